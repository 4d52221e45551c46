/**
 * The target probe runs on a thread of its own: it answers with a promise, and what it reports
 * of a file, a directory's new file and a missing directory is what the kernel says.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';

import { nativeAddon } from '../../src/engine/addon.js';
import { requires } from '../helpers/requires.js';
import { ScratchDir } from '../helpers/run-fixtures.js';

const needs = requires('tmpfs');

const scratch = new ScratchDir('probe');
afterAll(() => scratch.remove());

describe('probeTarget', () => {
  it('answers with a promise: an existing file with its size, on tmpfs, which takes O_DIRECT', async () => {
    const path = scratch.path('f.dat');
    writeFileSync(path, Buffer.alloc(12345));
    const pending = nativeAddon().probeTarget(path);
    expect(pending).toBeInstanceOf(Promise);
    const info = await pending;
    expect(info).toMatchObject({ exists: true, isRegularFile: true, isBlockDevice: false, sizeBytes: 12345, error: 0, directOk: true });
    expect(info?.fsType).toBe('tmpfs');
  });

  it('a file not made yet: its directory\'s filesystem; a missing directory: ENOENT', async () => {
    const fresh = await nativeAddon().probeTarget(scratch.path('new.dat'));
    expect(fresh).toMatchObject({ exists: false, error: 0, fsType: 'tmpfs' });
    const missing = await nativeAddon().probeTarget(scratch.path('no/such/dir/f'));
    expect(missing).toMatchObject({ exists: false, error: 2 });
  });
});
