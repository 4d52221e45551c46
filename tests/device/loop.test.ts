/**
 * Target identity and the write guard on real loop devices: plain, mounted (also through a bind
 * mount and a symlink), stacked under another loop device, and partitioned.
 */
import { existsSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertWritableBlockDevice,
  assertWritableFile,
  blockDeviceUsage,
  fileUsage,
  identifyTarget,
  isMountedFilesystemDevice,
} from '../../src/device/index.js';
import { requires } from '../helpers/requires.js';
import { TargetFixtures, run } from '../helpers/target-fixtures.js';

const needs = requires('loop', 'mkfs');

const MiB = 1024 * 1024;
const loopReason = needs.missing('loop');
const mkfsReason = needs.missing('loop', 'mkfs');
/** A skipped suite says why in its name. */
const why = (reason: string | undefined): string => (reason === undefined ? '' : ` (skipped: ${reason})`);

describe.skipIf(loopReason !== undefined)(`a loop device${why(loopReason)}`, () => {
  let fx: TargetFixtures;
  let image = '';
  let dev = '';
  beforeAll(() => {
    fx = new TargetFixtures('loop');
    image = fx.image('plain.img', 64 * MiB);
    dev = fx.attachLoop(image);
  });
  afterAll(() => fx?.release());

  it('is identified with its size, queue and backing file', async () => {
    const id = await identifyTarget(dev);
    expect(id).toMatchObject({
      path: dev,
      device: basename(dev),
      disk: basename(dev),
      isBlockDevice: true,
      sizeBytes: 64 * MiB,
      logicalBlockSize: 512,
      backingFile: image,
      filesystem: null,
      mountPoint: null,
      model: null,
      ebsVolumeId: null,
    });
  });

  it('is not in use', async () => {
    expect(await blockDeviceUsage(dev)).toEqual({
      mountPoints: [],
      mountedPartitions: [],
      holders: [],
      swap: false,
      exclusivelyHeld: false,
    });
    expect(await isMountedFilesystemDevice(dev)).toBe(false);
  });

  it('refuses a write without allow_block_write, naming the device and the flag', async () => {
    const err = await assertWritableBlockDevice(dev, false, 'jobs[0].filename').catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'EUNSAFE_TARGET',
      path: dev,
      field: 'jobs[0].filename',
      message: `writing to block device ${dev} needs allow_block_write=1 (--allow_block_write)`,
    });
  });

  it('allows a write with allow_block_write', async () => {
    await expect(assertWritableBlockDevice(dev, true, 'filename')).resolves.toBeUndefined();
  });

  it('refuses a regular file where a block device is expected', async () => {
    await expect(assertWritableBlockDevice(image, true, 'filename')).rejects.toMatchObject({
      code: 'ETARGET',
      path: image,
    });
  });

  it('counts as in use when another loop device is stacked on it', async () => {
    const upper = fx.attachLoop(dev);
    expect((await blockDeviceUsage(dev)).holders).toEqual([basename(upper)]);
    await expect(assertWritableBlockDevice(dev, true, 'filename')).rejects.toMatchObject({
      code: 'EUNSAFE_TARGET',
      message: expect.stringContaining(basename(upper)),
    });
  });
});

describe.skipIf(mkfsReason !== undefined)(`a mounted loop device${why(mkfsReason)}`, () => {
  let fx: TargetFixtures;
  let image = '';
  let dev = '';
  let mountPoint = '';
  let bindPoint = '';
  beforeAll(() => {
    fx = new TargetFixtures('mounted');
    image = fx.image('fs.img', 64 * MiB);
    dev = fx.attachLoop(image);
    fx.mkfsExt4(dev);
    mountPoint = fx.mount(dev, 'mnt');
    run('mkdir', [join(mountPoint, 'sub')]);
    bindPoint = fx.mount(join(mountPoint, 'sub'), 'bind', ['--bind']);
  });
  afterAll(() => fx?.release());

  it('is refused even with allow_block_write', async () => {
    const err = await assertWritableBlockDevice(dev, true, 'jobs[0].filename').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'EUNSAFE_TARGET', path: dev, field: 'jobs[0].filename' });
    expect((err as Error).message).toContain(`${dev} is mounted at ${mountPoint}`);
    expect((err as Error).message).toContain('volbench never writes to a mounted device');
  });

  it('is refused through a symlink, which is resolved before the check', async () => {
    const link = join(fx.dir, 'disk-by-name');
    symlinkSync(dev, link);
    const err = await assertWritableBlockDevice(link, true, 'filename').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'EUNSAFE_TARGET', path: link });
    expect((err as Error).message).toContain(`${link} (${dev})`);
  });

  it('lists every mount, bind mounts included, by major:minor', async () => {
    const usage = await blockDeviceUsage(dev);
    expect(usage.mountPoints).toEqual([mountPoint, bindPoint]);
    expect(usage.exclusivelyHeld).toBe(true);
    expect(await isMountedFilesystemDevice(dev)).toBe(true);
  });

  it('reports the filesystem it holds', async () => {
    expect(await identifyTarget(dev)).toMatchObject({ filesystem: 'ext4', mountPoint, backingFile: image });
  });

  it('is the device of a file inside it', async () => {
    const file = join(bindPoint, 'data.bin');
    writeFileSync(file, Buffer.alloc(8192));
    expect(await identifyTarget(file)).toMatchObject({
      device: basename(dev),
      disk: basename(dev),
      filesystem: 'ext4',
      mountPoint: bindPoint,
      sizeBytes: 8192,
      backingFile: image,
    });
  });

  it('makes its image file unsafe to write', async () => {
    expect(await fileUsage(image)).toEqual({
      loopDevices: [basename(dev)],
      loopDevicesInUse: [basename(dev)],
      swap: false,
    });
    await expect(assertWritableFile(image, 'filename')).rejects.toMatchObject({
      code: 'EUNSAFE_TARGET',
      path: image,
      message: expect.stringContaining(`backs ${dev}`),
    });
  });

  it('allows reads: only writes go through the guard', async () => {
    // A read job needs no check beyond identification; identifying a mounted device works.
    await expect(identifyTarget(dev)).resolves.toMatchObject({ isBlockDevice: true });
  });
});

describe.skipIf(mkfsReason !== undefined)(`a partitioned loop device${why(mkfsReason)}`, () => {
  let fx: TargetFixtures;
  let dev = '';
  let part = '';
  beforeAll(() => {
    fx = new TargetFixtures('parts');
    const image = fx.image('parts.img', 64 * MiB);
    fx.writeMbr(image, 32 * 2048);
    dev = fx.attachLoop(image, true);
    const name = basename(dev);
    const found = existsSync(`/sys/block/${name}`)
      ? readdirSync(`/sys/block/${name}`).find((e) => e.startsWith(`${name}p`))
      : undefined;
    part = found === undefined ? '' : `/dev/${found}`;
  });
  afterAll(() => fx?.release());

  it('refuses the whole disk while a partition is mounted', async (ctx) => {
    if (part === '' || !existsSync(part)) {
      ctx.skip('the kernel found no partition on a loop device with an MBR (this kernel seems to lack partition table support)');
    }
    const id = await identifyTarget(part);
    expect(id).toMatchObject({ device: basename(part), disk: basename(dev), sizeBytes: 32 * MiB });
    fx.mkfsExt4(part);
    const mountPoint = fx.mount(part, 'mnt');
    const usage = await blockDeviceUsage(dev);
    expect(usage.mountPoints).toEqual([]);
    expect(usage.mountedPartitions).toEqual([basename(part)]);
    expect((await blockDeviceUsage(part)).mountPoints).toEqual([mountPoint]);
    await expect(assertWritableBlockDevice(dev, true, 'filename')).rejects.toMatchObject({
      code: 'EUNSAFE_TARGET',
      message: expect.stringContaining('mounted partitions'),
    });
  });
});
