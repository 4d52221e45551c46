/**
 * Device numbers and the sysfs directory they lead to. Node's `fs.stat` gives `dev` (the device
 * holding a file's filesystem) and `rdev` (the device a block special file stands for) as raw
 * dev_t values; the kernel names devices by major:minor under /sys/dev/block.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { SYSFS_ROOT, isMissing, readSysAttr } from './sysfs.js';

export interface DeviceNumber {
  major: number;
  minor: number;
}

/** A block device as sysfs sees it. */
export interface SysfsBlockDevice {
  /** Kernel name: "vda", "vda1", "nvme0n1p2", "loop3", "dm-0". */
  name: string;
  major: number;
  minor: number;
  /** Its directory with symlinks resolved (under /sys/devices). */
  dir: string;
  isPartition: boolean;
  /** The whole disk: the device itself, or a partition's parent. */
  disk: string;
  /** The whole disk's directory: queue/, device/, holders/ and loop/ live there. */
  diskDir: string;
}

/**
 * Splits a dev_t the way glibc's major()/minor() do: 12 bits of major at bit 8 and the rest
 * at bit 32; 8 bits of minor at bit 0 and the rest at bit 12. BigInt keeps the high bits, which
 * a 32-bit JavaScript shift would drop.
 */
export function decodeDevT(dev: number | bigint): DeviceNumber {
  const d = BigInt(dev);
  const major = ((d >> 8n) & 0xfffn) | ((d >> 32n) & ~0xfffn);
  const minor = (d & 0xffn) | ((d >> 12n) & ~0xffn);
  return { major: Number(major & 0xffffffffn), minor: Number(minor & 0xffffffffn) };
}

/** The inverse of decodeDevT (glibc's makedev), for comparing against stat results. */
export function encodeDevT({ major, minor }: DeviceNumber): bigint {
  const ma = BigInt(major);
  const mi = BigInt(minor);
  return ((ma & 0xfffn) << 8n) | ((ma & ~0xfffn) << 32n) | (mi & 0xffn) | ((mi & ~0xffn) << 12n);
}

/**
 * The block device with this major:minor, or null when there is none: filesystems without a
 * device (tmpfs, overlay, proc) use major 0, which has no /sys/dev/block entry.
 */
export function sysfsBlockDir(
  major: number,
  minor: number,
  sysRoot: string = SYSFS_ROOT,
): SysfsBlockDevice | null {
  return describeAt(join(sysRoot, 'dev', 'block', `${major}:${minor}`));
}

/** The block device with this kernel name ("vda1", "loop0"), or null when there is none. */
export function sysfsBlockDirByName(
  name: string,
  sysRoot: string = SYSFS_ROOT,
): SysfsBlockDevice | null {
  if (name === '' || name.includes('/') || name === '.' || name === '..') return null;
  return describeAt(join(sysRoot, 'class', 'block', name));
}

/** Resolves a device's symlink and tells a partition (it has a `partition` file) from a disk. */
function describeAt(link: string): SysfsBlockDevice | null {
  let dir: string;
  try {
    dir = realpathSync(link);
  } catch (err) {
    if (isMissing(err)) return null;
    throw err;
  }
  const numbers = parseDevAttr(readSysAttr(join(dir, 'dev')));
  if (numbers === null) return null;
  const isPartition = readSysAttr(join(dir, 'partition')) !== null;
  // A partition's directory sits inside its disk's: .../block/vda/vda1.
  const diskDir = isPartition ? dirname(dir) : dir;
  return {
    name: basename(dir),
    ...numbers,
    dir,
    isPartition,
    disk: basename(diskDir),
    diskDir,
  };
}

/** Parses a sysfs `dev` attribute ("254:1"). */
export function parseDevAttr(text: string | null): DeviceNumber | null {
  const match = text === null ? null : /^(\d+):(\d+)$/.exec(text);
  return match === null ? null : { major: Number(match[1]), minor: Number(match[2]) };
}
