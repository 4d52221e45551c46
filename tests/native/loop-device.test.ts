/**
 * Jobs on loop devices over files in /dev/shm: reads work and report the device in disk_util;
 * writes and trims need allow_block_write and are refused before any I/O without it; a mounted
 * device is refused whatever the flags; a 4 KiB-sector device refuses smaller direct I/O.
 */
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { basename } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { identifyTarget, runJobs } from '../../src/index.js';
import { requires } from '../helpers/requires.js';
import { KiB, MiB, ScratchDir, dir, runJob, volbenchError, type EngineName } from '../helpers/run-fixtures.js';
import { TargetFixtures } from '../helpers/target-fixtures.js';

const needs = requires('child', 'tmpfs', 'loop', 'mkfs', 'io_uring', 'libaio');

const IMAGE_BYTES = 32 * MiB;
const loopReason = needs.missing('loop');
const mkfsReason = needs.missing('loop', 'mkfs');
const why = (reason: string | undefined): string => (reason === undefined ? '' : ` (skipped: ${reason})`);

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** Fills the image with random data, so that writes and trims show in its content. */
function fillRandom(path: string, bytes: number): void {
  const fd = openSync(path, 'r+');
  try {
    for (let at = 0; at < bytes; at += 4 * MiB) writeSync(fd, randomBytes(4 * MiB), 0, 4 * MiB, at);
  } finally {
    closeSync(fd);
  }
}

/** Reads and writes the kernel counted on a block device (/sys/block/<name>/stat). */
function deviceIos(dev: string): { reads: number; writes: number } {
  const fields = readFileSync(`/sys/block/${basename(dev)}/stat`, 'utf8').trim().split(/\s+/).map(Number);
  return { reads: fields[0], writes: fields[4] };
}

describe.skipIf(loopReason !== undefined)(`a loop device${why(loopReason)}`, () => {
  let fx: TargetFixtures;
  let image = '';
  let dev = '';
  beforeAll(() => {
    fx = new TargetFixtures('loopdev', '/dev/shm');
    image = fx.image('disk.img', IMAGE_BYTES);
    fillRandom(image, IMAGE_BYTES);
    dev = fx.attachLoop(image);
  });
  afterAll(() => fx?.release());

  it('takes a randread job, and disk_util names the loop device', async () => {
    const { result, job } = await runJob({ name: 'rr', filename: dev, size: '8m', rw: 'randread', direct: 1, iodepth: 8 });
    expect(job.error).toBe(0);
    expect(dir(job, 'read').total_ios).toBe((8 * MiB) / (4 * KiB));
    const device = (await identifyTarget(dev)).device;
    expect(device).toBe(basename(dev));
    const util = result.disk_util?.find((d) => d.name === device);
    expect(util).toBeDefined();
    expect(util?.read_ios).toBeGreaterThan(0);
    expect(result.volbench.targets[0]).toMatchObject({ is_block_device: true, device });
  });

  it('reads the whole device when no size is given', async () => {
    const { job } = await runJob({ name: 'whole', filename: dev, rw: 'read', bs: '128k', direct: 1 });
    expect(dir(job, 'read').io_bytes).toBe(IMAGE_BYTES);
  });

  it('refuses randwrite without allow_block_write, before any I/O', async () => {
    const before = sha256(image);
    const ios = deviceIos(dev);
    const err = await volbenchError(runJobs({ jobs: [{ name: 'rw', filename: dev, size: '8m', rw: 'randwrite', direct: 1 }] }));
    expect(err.code).toBe('EUNSAFE_TARGET');
    expect(err.field).toBe('jobs[0].allow_block_write');
    expect(err.message).toContain('allow_block_write');
    expect(sha256(image)).toBe(before);
    expect(deviceIos(dev).writes).toBe(ios.writes);
  });

  it('runs randwrite with allow_block_write, and the data reaches the backing file', async () => {
    const before = sha256(image);
    const { job } = await runJob({ name: 'rw', filename: dev, size: '8m', rw: 'randwrite', direct: 1, allow_block_write: 1, iodepth: 8 });
    expect(job.error).toBe(0);
    expect(dir(job, 'write').total_ios).toBe((8 * MiB) / (4 * KiB));
    expect(sha256(image)).not.toBe(before);
  });

  it('runs two write jobs back to back: the first releases the device before its run resolves', async () => {
    // Regression: io_uring kept the device (opened O_EXCL) registered until the kernel freed
    // the ring, later; the second run was refused as "held exclusively by another program".
    for (let i = 0; i < 2; i++) {
      const { job } = await runJob({ name: `again${i}`, filename: dev, size: '1m', rw: 'randwrite', ioengine: 'io_uring', allow_block_write: 1 });
      expect(job.error).toBe(0);
      expect(dir(job, 'write').total_ios).toBe(MiB / (4 * KiB));
    }
  });

  it('runs numjobs=3 randwrite on one device: the run claims it once, every instance writes', async () => {
    // Regression: each instance opened the device O_EXCL, and the kernel lets a device have
    // one exclusive holder, so all but one ended with EBUSY.
    const result = await runJobs({ jobs: [{ name: 'multi', filename: dev, size: '4m', rw: 'randwrite', numjobs: 3, direct: 1, allow_block_write: 1 }] });
    expect(result.jobs).toHaveLength(3);
    for (const job of result.jobs) {
      expect(job.error).toBe(0);
      expect(dir(job, 'write').total_ios).toBe((4 * MiB) / (4 * KiB));
    }
  });

  for (const engine of ['io_uring', 'libaio', 'psync'] as EngineName[]) {
    const reason = needs.engine(engine);
    it.skipIf(reason !== undefined)(`runs randtrim with allow_block_write on ${engine}: the trim section counts and the range reads as zeros${why(reason)}`, async () => {
      // Regression: io_uring and libaio trims complete inline, and the engine then waited in
      // the kernel for completions that would never come.
      fillRandom(image, 8 * MiB);
      const { job } = await runJob({
        name: `trim-${engine}`, filename: dev, size: '8m', rw: 'randtrim', ioengine: engine, iodepth: 4, allow_block_write: 1,
      });
      expect(job.error).toBe(0);
      const trim = dir(job, 'trim');
      expect(trim.total_ios).toBe((8 * MiB) / (4 * KiB));
      expect(trim.io_bytes).toBe(8 * MiB);
      expect(dir(job, 'read').total_ios + dir(job, 'write').total_ios).toBe(0);
      // The loop driver punches discarded ranges out of its backing file.
      const head = readFileSync(image).subarray(0, 8 * MiB);
      expect(head.every((b) => b === 0)).toBe(true);
    });
  }

  it('refuses randtrim without allow_block_write', async () => {
    const err = await volbenchError(runJobs({ jobs: [{ name: 'trim', filename: dev, size: '8m', rw: 'randtrim' }] }));
    expect(err.code).toBe('EUNSAFE_TARGET');
    expect(err.field).toBe('jobs[0].allow_block_write');
  });
});

describe('trim on a regular file', () => {
  const scratch = new ScratchDir('trimfile');
  afterAll(() => scratch.remove());

  it('is refused as a plan error naming rw', async () => {
    const err = await volbenchError(runJobs({ jobs: [{ name: 'trim', filename: scratch.path('f.dat'), size: '1m', rw: 'trim' }] }));
    expect(err.code).toBe('EINVALID_PLAN');
    expect(err.field).toBe('jobs[0].rw');
  });
});

describe.skipIf(mkfsReason !== undefined)(`a loop device holding a mounted ext4${why(mkfsReason)}`, () => {
  let fx: TargetFixtures;
  let dev = '';
  let mountPoint = '';
  beforeAll(() => {
    fx = new TargetFixtures('mountedfs', '/dev/shm');
    const image = fx.image('fs.img', IMAGE_BYTES);
    dev = fx.attachLoop(image);
    // A mounted ext4 writes on its own: its inode tables and journal initialized in the
    // background, the mount's superblock committed by the journal within 5 s (6 writes during the
    // refusal once, under the sanitizers). Initialized whole at mkfs, and synced before counting,
    // it writes nothing while the test looks.
    fx.mkfsExt4(dev, ['-E', 'lazy_itable_init=0,lazy_journal_init=0']);
    mountPoint = fx.mount(dev, 'mnt');
  });
  afterAll(() => fx?.release());

  it('is refused for writing even with allow_block_write', async () => {
    execFileSync('sync', ['-f', mountPoint]);
    const ios = deviceIos(dev);
    const err = await volbenchError(runJobs({
      jobs: [{ name: 'w', filename: dev, size: '8m', rw: 'randwrite', allow_block_write: 1, direct: 1 }],
    }));
    expect(err.code).toBe('EUNSAFE_TARGET');
    expect(err.message).toContain(`mounted at ${mountPoint}`);
    expect(deviceIos(dev).writes).toBe(ios.writes);
  });

  it('can still be read', async () => {
    const { job } = await runJob({ name: 'r', filename: dev, size: '4m', rw: 'randread', direct: 1 });
    expect(job.error).toBe(0);
    expect(dir(job, 'read').total_ios).toBe((4 * MiB) / (4 * KiB));
  });

  it('lets a read job use an existing file on it once it is mounted read-only', async () => {
    // Regression: the layout step opened every file O_RDWR, and a read-only mount refused it.
    const file = `${mountPoint}/data.bin`;
    writeFileSync(file, randomBytes(4 * MiB));
    execFileSync('mount', ['-o', 'remount,ro', mountPoint]);
    try {
      const { job } = await runJob({ name: 'ro', filename: file, size: '4m', rw: 'randread' });
      expect(job.error).toBe(0);
      expect(dir(job, 'read').total_ios).toBe((4 * MiB) / (4 * KiB));
    } finally {
      execFileSync('mount', ['-o', 'remount,rw', mountPoint]);
    }
  });
});

describe.skipIf(loopReason !== undefined)(`a loop device with 4096-byte logical blocks${why(loopReason)}`, () => {
  let fx: TargetFixtures;
  let dev = '';
  beforeAll(() => {
    fx = new TargetFixtures('lbs4k', '/dev/shm');
    const image = fx.image('4k.img', IMAGE_BYTES);
    dev = fx.attachLoop(image, false, 4096);
  });
  afterAll(() => fx?.release());

  it('refuses direct=1 with bs=2k, naming bs and 4096, before any I/O', async () => {
    const ios = deviceIos(dev);
    const err = await volbenchError(runJobs({ jobs: [{ name: 'small', filename: dev, size: '8m', rw: 'randread', bs: '2k', direct: 1 }] }));
    expect(err.code).toBe('EINVALID_PLAN');
    expect(err.field).toBe('jobs[0].bs');
    expect(err.message).toContain('bs=2048');
    expect(err.message).toContain('4096');
    expect(deviceIos(dev).reads).toBe(ios.reads);
  });

  it('runs direct=1 with bs=4k', async () => {
    const { job } = await runJob({ name: 'aligned', filename: dev, size: '8m', rw: 'randread', bs: '4k', direct: 1 });
    expect(job.error).toBe(0);
    expect(dir(job, 'read').total_ios).toBe(2048);
  });
});
