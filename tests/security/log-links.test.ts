/**
 * A log name linking to a device's image. A write_bw_log/write_iops_log/write_lat_log path that
 * is a symlink inside a root, or a hard link, to the file behind a loop device was opened,
 * truncated and written: the ext4 mounted from that image was destroyed, and the image behind a
 * read-only device root rewritten, where the same file named as a target is refused. Expected:
 * a log gets the target's checks, status and code (403 EUNSAFE_TARGET, naming the log's field),
 * a log name taken after planning is refused as a target's is, and the image is not touched.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runJobs } from '../../src/index.js';
import { startServer, type TestServer } from '../api/helpers/server.js';
import { requires } from '../helpers/requires.js';
import { TargetFixtures, superblockMagic } from '../helpers/target-fixtures.js';

const needs = requires('child', 'tmpfs', 'loop', 'mkfs');

const reason = needs.missing('loop', 'mkfs');

/** What a check of the image compares: its size and a digest of every byte. */
function fingerprint(path: string): { bytes: number; sha256: string } {
  return { bytes: statSync(path).size, sha256: createHash('sha256').update(readFileSync(path)).digest('hex') };
}

/** A job writing `prefix`'s bandwidth log, on a file of its own in `root`. */
function loggingJob(root: string, prefix: string, option = 'write_bw_log'): Record<string, string | number> {
  return { name: 'logger', rw: 'write', bs: '64k', size: '1m', filename: join(root, `${prefix}.dat`), [option]: join(root, prefix) };
}

describe.skipIf(reason !== undefined)(`log names linking to a loop device's image${reason ? ` (skipped: ${reason})` : ''}`, () => {
  let server: TestServer;
  let fx: TargetFixtures;
  // A directory root holding an ext4 image that is mounted, and the image behind a device root
  // served read-only.
  let root = '';
  let mountedDevice = '';
  beforeAll(async () => {
    fx = new TargetFixtures('log-links', '/dev/shm');
    root = join(fx.dir, 'root');
    mkdirSync(root);
    const mountedImage = join(root, 'fs.img');
    writeFileSync(mountedImage, Buffer.alloc(0));
    execFileSync('truncate', ['-s', '16M', mountedImage]);
    mountedDevice = fx.attachLoop(mountedImage);
    fx.mkfsExt4(mountedDevice);
    fx.mount(mountedDevice, 'mnt');
    const roImage = join(root, 'ro.img');
    writeFileSync(roImage, Buffer.alloc(4 * 1024 * 1024, 0xa5));
    const roDevice = fx.attachLoop(roImage);
    server = await startServer({ maxRuntimeSec: 30, extraRoots: [root, roDevice] });
  });
  afterAll(async () => {
    await server?.close();
    fx?.release();
  });

  for (const [how, make] of [
    ['a symlink inside the root', (image: string, name: string) => symlinkSync(image, name)],
    ['a hard link', (image: string, name: string) => linkSync(image, name)],
  ] as const) {
    it(`${how} to a mounted ext4's image: refused as the image is as a target, and the image is not touched`, async () => {
      const image = join(root, 'fs.img');
      const prefix = how.startsWith('a symlink') ? 'sym' : 'hard';
      make(image, join(root, `${prefix}_bw.1.log`));
      const before = fingerprint(image);
      const asLog = await server.client.submit({ jobs: [loggingJob(root, prefix)] });
      const asTarget = await server.client.submit({ jobs: [{ name: 't', rw: 'write', bs: '64k', size: '1m', filename: image }] });
      expect(asLog.status).toBe(asTarget.status);
      expect(asLog.body.code).toBe(asTarget.body.code);
      expect(asLog.status).toBe(403);
      expect(asLog.body.code).toBe('EUNSAFE_TARGET');
      expect(asLog.body.field).toBe('jobs[0].write_bw_log');
      expect(asTarget.body.field).toBe('jobs[0].filename');
      expect(fingerprint(image)).toEqual(before);
      expect(superblockMagic(mountedDevice)).toBe(0xef53);
    });

    it(`${how} to the image behind a read-only device root: refused with the target's status and code`, async () => {
      const image = join(root, 'ro.img');
      const prefix = how.startsWith('a symlink') ? 'rosym' : 'rohard';
      make(image, join(root, `${prefix}_lat.1.log`));
      const before = fingerprint(image);
      const asLog = await server.client.submit({ jobs: [loggingJob(root, prefix, 'write_lat_log')] });
      const asTarget = await server.client.submit({ jobs: [{ name: 't', rw: 'write', bs: '64k', size: '1m', filename: image }] });
      expect({ status: asLog.status, code: asLog.body.code }).toEqual({ status: asTarget.status, code: asTarget.body.code });
      expect(asLog.status).toBe(403);
      expect(asLog.body.field).toBe('jobs[0].write_lat_log');
      expect(fingerprint(image)).toEqual(before);
    });
  }

  it('a log name that did not exist when planned, hard-linked to the image before its stage: the job fails, the image is not touched', async () => {
    const dir = join(fx.dir, 'race');
    mkdirSync(dir);
    const image = join(dir, 'race.img');
    writeFileSync(image, Buffer.alloc(0));
    execFileSync('truncate', ['-s', '16M', image]);
    const device = fx.attachLoop(image);
    fx.mkfsExt4(device);
    fx.mount(device, 'race-mnt');
    const before = fingerprint(image);
    const run = runJobs({ jobs: [
      { name: 'first', rw: 'write', bs: '64k', size: '1m', filename: join(dir, 'first.dat'), time_based: 1, runtime: '1500ms' },
      { name: 'second', stonewall: 1, rw: 'write', bs: '64k', size: '1m', filename: join(dir, 'second.dat'), write_bw_log: join(dir, 'race') },
    ] });
    await new Promise((r) => setTimeout(r, 500));
    linkSync(image, join(dir, 'race_bw.2.log'));
    const result = await run;
    expect(result.jobs[0].error).toBe(0);
    expect(result.jobs[1].error).toBe(17); // EEXIST: the log is created by the run, or not at all
    expect(result.volbench.jobs[1].error_message).toMatch(/creating log .*race_bw\.2\.log: one appeared there after the run was planned/);
    expect(fingerprint(image)).toEqual(before);
    expect(superblockMagic(device)).toBe(0xef53);
  });
});
