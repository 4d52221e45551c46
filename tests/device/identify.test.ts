import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VolbenchError } from '../../src/errors.js';
import {
  activeScheduler,
  blockSizeFor,
  ebsVolumeId,
  identifyTarget,
  mountContaining,
  parseMountInfo,
  resolveTarget,
} from '../../src/device/index.js';
import { requires } from '../helpers/requires.js';

const needs = requires('child', 'tmpfs');

/** `df` names the device and filesystem independently of the code under test. */
function dfSourceAndType(path: string): { source: string; fstype: string } {
  const lines = execFileSync('df', ['--output=source,fstype', path], { encoding: 'utf8' }).trim().split('\n');
  const [source, fstype] = lines[lines.length - 1].trim().split(/\s+/);
  return { source, fstype };
}

describe('identifyTarget on files', () => {
  const dir = mkdtempSync(join(tmpdir(), `volbench-identify-${process.pid}-`));
  const shmDir = mkdtempSync(join('/dev/shm', `volbench-identify-${process.pid}-`));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(shmDir, { recursive: true, force: true });
  });

  it('names the disk and ext4 filesystem under a temp file on /', async (ctx) => {
    const df = dfSourceAndType(dir);
    if (df.source !== '/dev/vda' || df.fstype !== 'ext4') ctx.skip(`${dir} is on ${df.source} (${df.fstype}), not ext4 on /dev/vda`);
    const file = join(dir, 'data.bin');
    writeFileSync(file, Buffer.alloc(12345));
    const id = await identifyTarget(file);
    expect(id).toMatchObject({
      path: file,
      device: 'vda',
      disk: 'vda',
      sizeBytes: 12345,
      filesystem: 'ext4',
      mountPoint: '/',
      isBlockDevice: false,
      kernel: release(),
      backingFile: null,
      ebsVolumeId: null,
    });
    expect([512, 1024, 2048, 4096]).toContain(id.logicalBlockSize);
    expect(id.physicalBlockSize).toBeGreaterThanOrEqual(id.logicalBlockSize);
    expect(typeof id.rotational).toBe('boolean');
    expect(id.scheduler).toMatch(/^[a-z0-9-]+$/);
  });

  it('reports no device for a file on tmpfs', async () => {
    const file = join(shmDir, 'data.bin');
    writeFileSync(file, Buffer.alloc(4096));
    const id = await identifyTarget(file);
    expect(id).toMatchObject({
      device: null,
      disk: null,
      model: null,
      serial: null,
      vendor: null,
      rotational: null,
      scheduler: null,
      filesystem: 'tmpfs',
      mountPoint: '/dev/shm',
      sizeBytes: 4096,
      logicalBlockSize: 512,
      isBlockDevice: false,
    });
  });

  it('describes a file not laid out yet by its nearest existing directory', async () => {
    const missing = join(dir, 'not', 'yet', 'there.bin');
    const id = await identifyTarget(missing);
    const existing = await identifyTarget(dir);
    expect(id.path).toBe(missing);
    expect(id.sizeBytes).toBe(0);
    expect(id.device).toBe(existing.device);
    expect(id.filesystem).toBe(existing.filesystem);
  });

  it('follows a dangling symlink to where the file would be created', async () => {
    const link = join(dir, 'to-shm');
    symlinkSync(join(shmDir, 'created-later.bin'), link);
    const resolved = await resolveTarget(link);
    expect(resolved.exists).toBe(false);
    expect(resolved.resolvedPath).toBe(join(shmDir, 'created-later.bin'));
    expect((await identifyTarget(link)).filesystem).toBe('tmpfs');
  });

  it('refuses a character device with ETARGET naming the path', async () => {
    await expect(identifyTarget('/dev/null')).rejects.toMatchObject({ code: 'ETARGET', path: '/dev/null' });
  });

  it('refuses a path through a regular file with ETARGET', async () => {
    const file = join(dir, 'plain');
    writeFileSync(file, 'x');
    const err = await identifyTarget(join(file, 'below')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VolbenchError);
    expect((err as VolbenchError).code).toBe('ETARGET');
    expect((err as VolbenchError).message).toContain('not a directory');
  });
});

describe('blockSizeFor', () => {
  const dir = mkdtempSync(join(tmpdir(), `volbench-bs-${process.pid}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is the underlying device's logical block size for a file", async (ctx) => {
    const id = await identifyTarget(dir);
    if (id.device === null) ctx.skip(`${dir} is on a filesystem without a block device`);
    const logical = Number(
      execFileSync('cat', [`/sys/block/${id.disk}/queue/logical_block_size`], { encoding: 'utf8' }).trim(),
    );
    expect(await blockSizeFor(join(dir, 'file-to-be.bin'))).toBe(logical);
  });

  it('is 512 on tmpfs, which has no device', async () => {
    expect(await blockSizeFor('/dev/shm/volbench-bs-never-created')).toBe(512);
  });
});

describe('identity helpers', () => {
  it('turns an EBS NVMe serial into the volume id', () => {
    expect(ebsVolumeId('Amazon Elastic Block Store', 'vol0123456789abcdef0')).toBe('vol-0123456789abcdef0');
    expect(ebsVolumeId('Amazon Elastic Block Store', 'vol-0123456789abcdef0')).toBe('vol-0123456789abcdef0');
    expect(ebsVolumeId('Amazon EC2 NVMe Instance Storage', 'AWS1234')).toBeNull();
    expect(ebsVolumeId(null, 'vol0123')).toBeNull();
  });

  it('picks the bracketed scheduler, or none', () => {
    expect(activeScheduler('none [mq-deadline] kyber bfq')).toBe('mq-deadline');
    expect(activeScheduler('[none] mq-deadline')).toBe('none');
    expect(activeScheduler('none')).toBe('none');
    expect(activeScheduler(null)).toBeNull();
  });

  it('parses mountinfo with optional fields and escaped blanks', () => {
    const mounts = parseMountInfo(
      [
        '27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw',
        '25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw',
        '30 25 0:27 / /dev/shm rw,relatime - tmpfs tmpfs rw',
        '40 27 254:0 /srv/data /mnt/my\\040disk rw master:2 shared:7 - ext4 /dev/vda rw',
      ].join('\n'),
    );
    expect(mounts).toHaveLength(4);
    expect(mounts[3]).toMatchObject({ major: 254, minor: 0, root: '/srv/data', mountPoint: '/mnt/my disk' });
    // The later of two stacked mounts is the one a path sees.
    expect(mountContaining(mounts, '/dev/shm/x')).toMatchObject({ minor: 27 });
    expect(mountContaining(mounts, '/mnt/my disk/a')).toMatchObject({ mountPoint: '/mnt/my disk' });
    expect(mountContaining(mounts, '/mnt/my diskette')).toMatchObject({ mountPoint: '/' });
  });
});
