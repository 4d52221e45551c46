/**
 * Who a target is: the block device behind it, that device's hardware and queue, and the
 * filesystem it lives on. Reported under "volbench" next to fio's JSON, so a result says which
 * volume (down to the EBS volume id) produced it.
 */
import { release } from 'node:os';
import { stat, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import type { TargetIdentity } from '../fio-output/types.js';
import { VolbenchError } from '../errors.js';
import { decodeDevT, sysfsBlockDir, type SysfsBlockDevice } from './devnum.js';
import { readDiskInfo } from './disk-info.js';
import { mountContaining, mountsOfDevice, readMountTable, type MountEntry } from './mountinfo.js';
import { describeTarget, resolveTarget, sysfsOfBlockTarget, type ResolvedTarget } from './resolve.js';
import { readSysInt } from './sysfs.js';

/**
 * O_DIRECT alignment where no block device stands behind the file. Recent kernels take O_DIRECT
 * on tmpfs (older ones refuse the open with EINVAL) and then need no alignment at all: on 6.18,
 * 1-byte writes, odd offsets and unaligned buffers all succeed. 512 is the smallest
 * sector of any real device, so a job that passes this check on tmpfs stays valid on a disk.
 */
export const DEVICELESS_BLOCK_SIZE = 512;

/**
 * Identifies a block device, a regular file or directory, or a path not created yet (described
 * by its nearest existing directory). `sizeBytes` is the device's size for a block device, the
 * file's size for a file, 0 for anything else.
 */
export async function identifyTarget(path: string): Promise<TargetIdentity> {
  const target = await resolveTarget(path);
  const { stats } = target;
  const isBlockDevice = target.exists && stats.isBlockDevice();
  if (target.exists && !isBlockDevice && !stats.isFile() && !stats.isDirectory()) {
    throw new VolbenchError(
      'ETARGET',
      `target ${describeTarget(target)} is neither a regular file nor a block device`,
      { path },
    );
  }
  const mounts = readMountTable();
  const { dev, mount } = isBlockDevice
    ? blockDeviceOf(target, mounts)
    : await deviceHoldingFile(target, mounts);
  const info = dev === null ? null : readDiskInfo(dev);
  const logical = info?.logicalBlockSize ?? DEVICELESS_BLOCK_SIZE;
  return {
    path,
    device: dev?.name ?? null,
    disk: dev?.disk ?? null,
    model: info?.model ?? null,
    serial: info?.serial ?? null,
    ebsVolumeId: info?.ebsVolumeId ?? null,
    vendor: info?.vendor ?? null,
    sizeBytes: sizeOf(target, dev),
    logicalBlockSize: logical,
    physicalBlockSize: info?.physicalBlockSize ?? (await filesystemBlockSize(target.statPath, logical)),
    rotational: info?.rotational ?? null,
    scheduler: info?.scheduler ?? null,
    filesystem: mount?.fstype ?? null,
    mountPoint: mount?.mountPoint ?? null,
    isBlockDevice,
    kernel: release(),
    backingFile: info?.backingFile ?? null,
  };
}

/**
 * The logical block size that O_DIRECT offsets, lengths and buffers must be multiples of: the
 * device's own for a block device, the underlying device's for a file (ext4 and xfs pass direct
 * I/O straight to it), DEVICELESS_BLOCK_SIZE where there is no device (tmpfs).
 */
export async function blockSizeFor(path: string): Promise<number> {
  const target = await resolveTarget(path);
  const mounts = readMountTable();
  const { dev } =
    target.exists && target.stats.isBlockDevice()
      ? blockDeviceOf(target, mounts)
      : await deviceHoldingFile(target, mounts);
  if (dev === null) return DEVICELESS_BLOCK_SIZE;
  return readSysInt(join(dev.diskDir, 'queue', 'logical_block_size')) ?? DEVICELESS_BLOCK_SIZE;
}

interface DeviceAndMount {
  dev: SysfsBlockDevice | null;
  mount: MountEntry | null;
}

/** A block device target: the device is its rdev; its filesystem is wherever it is mounted. */
function blockDeviceOf(target: ResolvedTarget, mounts: MountEntry[]): DeviceAndMount {
  const dev = sysfsOfBlockTarget(target, { path: target.path });
  return { dev, mount: mountsOfDevice(mounts, dev.major, dev.minor)[0] ?? null };
}

/**
 * A file's device is its st_dev. Filesystems that hand out anonymous device numbers (btrfs,
 * major 0) still name their device as the mount source, so that is the fallback; tmpfs and
 * overlay name none and get null.
 */
async function deviceHoldingFile(target: ResolvedTarget, mounts: MountEntry[]): Promise<DeviceAndMount> {
  const devnum = decodeDevT(target.stats.dev);
  const mount = mountContaining(mounts, target.resolvedPath, devnum);
  const dev = sysfsBlockDir(devnum.major, devnum.minor) ?? (await deviceFromMountSource(mount));
  return { dev, mount };
}

async function deviceFromMountSource(mount: MountEntry | null): Promise<SysfsBlockDevice | null> {
  if (mount === null || !mount.source.startsWith('/')) return null;
  const source = await stat(mount.source, { bigint: true }).catch(() => null);
  if (source === null || !source.isBlockDevice()) return null;
  const { major, minor } = decodeDevT(source.rdev);
  return sysfsBlockDir(major, minor);
}

function sizeOf(target: ResolvedTarget, dev: SysfsBlockDevice | null): number {
  if (!target.exists) return 0;
  if (target.stats.isBlockDevice()) {
    // sysfs counts a block device's size in 512-byte sectors whatever its logical block size.
    const sectors = dev === null ? null : readSysInt(join(dev.dir, 'size'));
    return sectors === null ? 0 : sectors * 512;
  }
  return target.stats.isFile() ? Number(target.stats.size) : 0;
}

/** Without a device, the filesystem's own block (a page on tmpfs) is the physical unit. */
async function filesystemBlockSize(path: string, fallback: number): Promise<number> {
  const fs = await statfs(path).catch(() => null);
  return fs === null || fs.bsize <= 0 ? fallback : fs.bsize;
}
