/**
 * Which prebuilt binary the loader takes, from prebuilds/manifest.json and this system: the one
 * for its architecture on glibc, a reason where none fits (musl, an unknown architecture, a glibc
 * older than the binary needs), never a binary that cannot load.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { choosePrebuilt, hostPlatform } from '../../src/engine/prebuilt.js';
import { requires } from '../helpers/requires.js';

requires();

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), `volbench-prebuilt-${process.pid}-`));
  mkdirSync(join(dir, 'linux-x64'));
  writeFileSync(join(dir, 'linux-x64', 'volbench.node'), 'stand-in');
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({
    binaries: {
      'linux-x64': { file: 'linux-x64/volbench.node', libc: 'glibc', glibc: '2.30' },
      'linux-arm64': { file: 'linux-arm64/volbench.node', libc: 'glibc', glibc: '2.30' },
    },
  }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const glibc = (arch: string, version: string | undefined) => ({ platform: 'linux', arch, glibc: version });

describe('choosing the prebuilt binary', () => {
  it('takes the one for this architecture on a new enough glibc', () => {
    expect(choosePrebuilt(dir, glibc('x64', '2.34'))).toEqual({ path: join(dir, 'linux-x64', 'volbench.node') });
    expect(choosePrebuilt(dir, glibc('x64', '2.30'))).toEqual({ path: join(dir, 'linux-x64', 'volbench.node') });
  });

  it('refuses musl, saying so and what is supported', () => {
    const got = choosePrebuilt(dir, glibc('x64', undefined));
    expect(got).toHaveProperty('refused');
    expect((got as { refused: string }).refused).toMatch(/not glibc \(musl.*musl is not supported/);
  });

  it('names the architectures it has when this one is not among them', () => {
    expect(choosePrebuilt(dir, glibc('riscv64', '2.36'))).toEqual({
      refused: expect.stringMatching(/^no prebuilt binary for linux-riscv64 \(there are linux-x64, linux-arm64\); build from source with "VOLBENCH_BUILD_FROM_SOURCE=1 npm rebuild volbench"/),
    });
  });

  it('refuses a glibc older than the binary needs, comparing versions as numbers', () => {
    expect(choosePrebuilt(dir, glibc('x64', '2.28'))).toEqual({ refused: expect.stringMatching(/needs glibc 2\.30, this system has 2\.28/) });
    expect(choosePrebuilt(dir, glibc('x64', '2.4'))).toHaveProperty('refused');
  });

  it('refuses a listed binary that is missing, and other systems than Linux', () => {
    expect(choosePrebuilt(dir, glibc('arm64', '2.36'))).toEqual({ refused: expect.stringMatching(/linux-arm64\/volbench\.node is missing/) });
    expect(choosePrebuilt(dir, { platform: 'darwin', arch: 'arm64', glibc: undefined })).toEqual({ refused: 'volbench runs on Linux only, not on darwin' });
  });

  it('reads this glibc from Node', () => {
    expect(hostPlatform()).toEqual({ platform: 'linux', arch: process.arch, glibc: expect.stringMatching(/^2\.\d+$/) });
  });
});
