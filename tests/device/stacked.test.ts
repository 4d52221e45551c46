/**
 * Writing a device writes what lies underneath it. A loop device over a mounted device, and a
 * second loop device over a mounted device's image, were written with allow_block_write and
 * destroyed the superblock underneath; a file that backs a loop device was written (or grown by
 * a read job) while the device it backs was protected. All of these are refused now, and the
 * filesystem underneath stays as it was.
 */
import { statSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runJobs } from '../../src/index.js';
import { assertWritableBlockDevice } from '../../src/device/index.js';
import { requires } from '../helpers/requires.js';
import { MiB, volbenchError } from '../helpers/run-fixtures.js';
import { TargetFixtures, superblockMagic } from '../helpers/target-fixtures.js';

const needs = requires('tmpfs', 'loop', 'mkfs');

const loopReason = needs.missing('loop');
const reason = needs.missing('loop', 'mkfs');

describe.skipIf(reason !== undefined)(`devices stacked on a mounted one${reason ? `: skipped, ${reason}` : ''}`, () => {
  let fx: TargetFixtures;
  let image = '';
  let mounted = '';
  beforeAll(() => {
    fx = new TargetFixtures('stacked', '/dev/shm');
    image = fx.image('fs.img', 32 * MiB);
    mounted = fx.attachLoop(image);
    fx.mkfsExt4(mounted);
    fx.mount(mounted, 'mnt');
  });
  afterAll(() => fx?.release());

  it('refuses a loop device over the mounted device, even with allow_block_write', async () => {
    const upper = fx.attachLoop(mounted);
    await expect(assertWritableBlockDevice(upper, true, 'filename')).rejects.toMatchObject({
      code: 'EUNSAFE_TARGET',
      message: expect.stringContaining(`writes through ${mounted} (mounted at`),
    });
    const err = await volbenchError(runJobs({ jobs: [{ name: 'w', rw: 'write', bs: '64k', size: '1m', filename: upper, allow_block_write: 1 }] }));
    expect(err.code).toBe('EUNSAFE_TARGET');
    expect(superblockMagic(image)).toBe(0xef53);
  });

  it("refuses a second loop device over the mounted device's image", async () => {
    const twin = fx.attachLoop(image);
    await expect(assertWritableBlockDevice(twin, true, 'filename')).rejects.toMatchObject({
      code: 'EUNSAFE_TARGET',
      message: expect.stringContaining(`${mounted} over the same file ${image} (mounted at`),
    });
    expect(superblockMagic(image)).toBe(0xef53);
  });
});

describe.skipIf(loopReason !== undefined)(`a file that backs a loop device${loopReason ? `: skipped, ${loopReason}` : ''}`, () => {
  let fx: TargetFixtures;
  let image = '';
  let device = '';
  beforeAll(() => {
    fx = new TargetFixtures('backing', '/dev/shm');
    image = fx.image('disk.img', 4 * MiB);
    writeFileSync(image, Buffer.alloc(4 * MiB, 7));
    device = fx.attachLoop(image);
  });
  afterAll(() => fx?.release());

  it("gets the device's protection: written only with the device's opt-in", async () => {
    const write = { name: 'w', rw: 'randwrite', bs: '4k', size: '1m', filename: image };
    const err = await volbenchError(runJobs({ jobs: [write] }));
    expect(err).toMatchObject({ code: 'EUNSAFE_TARGET', field: 'jobs[0].filename' });
    expect(err.message).toContain(`backs ${device}`);
    // A caller's rule decides as it does for the device itself.
    const denied = await volbenchError(runJobs({ jobs: [{ ...write, allow_block_write: 1 }] }, { allowBlockWrite: () => false }));
    expect(denied.code).toBe('EUNSAFE_TARGET');
    const result = await runJobs({ jobs: [{ ...write, allow_block_write: 1 }] });
    expect(result.jobs[0].write?.io_bytes).toBe(MiB);
  });

  it('is never grown, not even by a read job', async () => {
    const err = await volbenchError(runJobs({ jobs: [{ name: 'r', rw: 'read', bs: '4k', size: '6m', filename: image }] }));
    expect(err).toMatchObject({ code: 'ETARGET', field: 'jobs[0].size' });
    expect(err.message).toContain('never grows a file that backs a device');
    expect(statSync(image).size).toBe(4 * MiB);
    // Within its size a read job runs as usual.
    const result = await runJobs({ jobs: [{ name: 'r', rw: 'read', bs: '4k', size: '2m', filename: image }] });
    expect(result.jobs[0].read?.io_bytes).toBe(2 * MiB);
  });
});
