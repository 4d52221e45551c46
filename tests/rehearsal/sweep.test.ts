/**
 * What a killed rehearsal leaves (a loop device over a tmpfs file, the member's network namespace,
 * a blkio group) is removed by sweepStale, and what a live run holds is not.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { BLKIO_ROOT } from '../harness/blkio.js';
import { createLoopVolume, rehearsalDir, sweepStale } from '../harness/loop-volume.js';
import { requires } from '../helpers/requires.js';

const needs = requires('loop', 'blkio', 'netns');

const skip = needs.missing();
/** A pid above the kernel's pid_max: never a live process. */
const DEAD = 99_999_999;

describe.skipIf(skip)('sweepStale', () => {
  const parent = mkdtempSync(join(tmpdir(), 'volbench-sweep-test-'));
  afterAll(() => rmSync(parent, { recursive: true, force: true }));

  it('removes a dead run\'s loop device, tmpfs, namespace and group, and keeps a live run\'s', () => {
    const dead = join(parent, `volbench-rehearsal-${DEAD}-abc`);
    mkdirSync(dead);
    const home = join(dead, 'v.backing');
    mkdirSync(home);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'volbench-rehearsal-tmpfs', home]);
    writeFileSync(join(home, 'device.img'), '');
    execFileSync('truncate', ['-s', '1G', join(home, 'device.img')]);
    const loop = execFileSync('losetup', ['--find', '--show', join(home, 'device.img')], { encoding: 'utf8' }).trim();
    const ns = `volbench-rehearsal-${DEAD}-m1`;
    execFileSync('ip', ['netns', 'add', ns]);
    const group = join(BLKIO_ROOT, 'volbench-rehearsal', `sweep-${DEAD}`);
    mkdirSync(group, { recursive: true });
    const live = rehearsalDir(parent);
    const volume = createLoopVolume({ dir: live, sizeBytes: 1 << 30, tmpfsBytes: 16 << 20 });
    try {
      const removed = sweepStale(parent);
      expect(removed).toEqual(expect.arrayContaining([loop, home, dead, `netns ${ns}`, group]));
      expect(execFileSync('losetup', ['--list', '--noheadings', '-O', 'NAME'], { encoding: 'utf8' })).not.toContain(`${loop}\n`);
      expect(execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' })).not.toContain(ns);
      expect(existsSync(group)).toBe(false);
      expect(existsSync(dead)).toBe(false);
      expect(existsSync(volume.file)).toBe(true);
      expect(execFileSync('losetup', ['--list', '--noheadings', '-O', 'NAME'], { encoding: 'utf8' })).toContain(volume.device);
    } finally {
      volume.close();
      rmSync(live, { recursive: true, force: true });
    }
  });
});
