/**
 * The prebuilt addon binaries the package ships (prebuilds/, made by `npm run prebuilds`) are
 * checked here, not rebuilt: each is for the architecture its name says, needs no symbol version
 * newer than Amazon Linux 2023 has (glibc 2.34, GCC 11's libstdc++ and libgcc: objdump -T), is
 * the very file the manifest describes, and was made from the sources native/ and binding.gyp
 * hold now. After a change under native/, `npm run prebuilds` makes them again.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

import { addonSourcesHash } from '../../install/addon-sources.mjs';
import { elfArch, symbolVersions, tooNew } from '../../scripts/elf-check.mjs';
import { requires } from '../helpers/requires.js';

const needs = requires('objdump');

const root = join(import.meta.dirname, '..', '..');
const dir = join(root, 'prebuilds');
const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
  binaries: Record<string, { file: string; libc: string; glibc: string; sources: string; sha256: string; bytes: number }>;
};
const noObjdump = needs.missing('objdump');

function nodeFiles(at: string, out: string[] = []): string[] {
  for (const e of readdirSync(at, { withFileTypes: true })) {
    if (e.isDirectory()) nodeFiles(join(at, e.name), out);
    else if (e.name.endsWith('.node')) out.push(relative(dir, join(at, e.name)));
  }
  return out;
}

describe('prebuilt addon binaries', () => {
  it('one per supported architecture, every .node listed in the manifest', () => {
    expect(Object.keys(manifest.binaries).sort()).toEqual(['linux-arm64', 'linux-x64']);
    expect(nodeFiles(dir).sort()).toEqual(Object.values(manifest.binaries).map((b) => b.file).sort());
  });

  it.each(Object.entries(manifest.binaries))('%s is the file the manifest describes, for its architecture', (key, entry) => {
    const file = join(dir, entry.file);
    expect(statSync(file).size).toBe(entry.bytes);
    expect(createHash('sha256').update(readFileSync(file)).digest('hex')).toBe(entry.sha256);
    expect(elfArch(file)).toBe(key.replace('linux-', ''));
    expect(entry.libc).toBe('glibc');
  });

  it.skipIf(noObjdump !== undefined)(`needs nothing newer than Amazon Linux 2023 (objdump -T)${noObjdump ? ` [skipped: ${noObjdump}]` : ''}`, () => {
    for (const entry of Object.values(manifest.binaries)) {
      const file = join(dir, entry.file);
      const versions = symbolVersions(file);
      expect(versions.length, `${entry.file} names no versioned glibc symbol: objdump read nothing`).toBeGreaterThan(0);
      expect(tooNew(file), entry.file).toEqual([]);
      // libstdc++ and libgcc are linked in: nothing is asked of the system's.
      expect(versions.filter((v) => /^(GLIBCXX|CXXABI|GCC)_/.test(v)), entry.file).toEqual([]);
      expect(versions).toContain(`GLIBC_${entry.glibc}`);
    }
    // The check sees versions past Amazon Linux 2023's where they are: this machine's libstdc++.
    const libstdcxx = spawnSync('g++', ['-print-file-name=libstdc++.so.6'], { encoding: 'utf8' }).stdout?.trim();
    if (libstdcxx && existsSync(libstdcxx)) expect(tooNew(libstdcxx).some((v) => v.startsWith('GLIBCXX_3.4.3'))).toBe(true);
  });

  it('were made from the sources under native/ and binding.gyp as they are now', () => {
    const now = addonSourcesHash(root);
    const stale = Object.entries(manifest.binaries).filter(([, e]) => e.sources !== now).map(([k]) => k);
    expect(stale, `prebuilds/ ${stale.join(', ')} were made from other sources than native/ and binding.gyp hold: ` +
      'run "npm run prebuilds" (a Debian 11 root and a cross compiler, a few minutes) and commit prebuilds/').toEqual([]);
  });
});
