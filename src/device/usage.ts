/**
 * Whether a block device is in use by the system: mounted (itself or a partition), active swap,
 * claimed by a stacked device (device-mapper, md, LVM, dm-crypt: its holders/), backing a loop
 * device, or held exclusively by something this mount namespace cannot see.
 */
import { constants as fsConstants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeDevT, parseDevAttr, type DeviceNumber, type SysfsBlockDevice } from './devnum.js';
import { readMountTable, type MountEntry } from './mountinfo.js';
import { readSwaps } from './swaps.js';
import { SYSFS_ROOT, listSysDir, readSysAttr } from './sysfs.js';

export interface BlockDeviceUsage {
  /** Where the device itself is mounted (every mount, bind mounts included). */
  mountPoints: string[];
  /** Kernel names of the device's partitions that are mounted. */
  mountedPartitions: string[];
  /** Devices stacked on it or on its partitions ("dm-0", "md0"), and loop devices over it. */
  holders: string[];
  /** It or one of its partitions is active swap. */
  swap: boolean;
  /**
   * The kernel refused an exclusive open with EBUSY: it is claimed by a mount or a program that
   * the checks above cannot see, such as a mount in another mount namespace.
   */
  exclusivelyHeld: boolean;
}

export function isInUse(usage: BlockDeviceUsage): boolean {
  return (
    usage.mountPoints.length > 0 ||
    usage.mountedPartitions.length > 0 ||
    usage.holders.length > 0 ||
    usage.swap ||
    usage.exclusivelyHeld
  );
}

/**
 * `nodePath` is a device node for `dev` (for the exclusive-open probe), or null to skip the
 * probe when there is none.
 */
export async function usageOfDevice(dev: SysfsBlockDevice, nodePath: string | null): Promise<BlockDeviceUsage> {
  const partitions = dev.isPartition ? [] : partitionsOf(dev);
  const mounts = readMountTable();
  const mountPoints = (await mountsOf(mounts, dev)).map((m) => m.mountPoint);
  const mountedPartitions: string[] = [];
  for (const part of partitions) {
    if ((await mountsOf(mounts, part)).length > 0) mountedPartitions.push(part.name);
  }
  const holders = [dev, ...partitions].flatMap((d) => listSysDir(join(d.dir, 'holders')));
  holders.push(...(await loopDevicesOver(dev)));
  return {
    mountPoints,
    mountedPartitions,
    holders: [...new Set(holders)],
    swap: (await swapDevices()).some((n) => [dev, ...partitions].some((d) => sameDevice(d, n))),
    exclusivelyHeld: nodePath === null ? false : await refusesExclusiveOpen(nodePath),
  };
}

interface PartitionRef extends DeviceNumber {
  name: string;
  dir: string;
}

/** A disk's partitions are the subdirectories of its sysfs directory that have a `partition` file. */
function partitionsOf(disk: SysfsBlockDevice): PartitionRef[] {
  const parts: PartitionRef[] = [];
  for (const entry of listSysDir(disk.dir)) {
    const dir = join(disk.dir, entry);
    if (readSysAttr(join(dir, 'partition')) === null) continue;
    const numbers = parseDevAttr(readSysAttr(join(dir, 'dev')));
    if (numbers !== null) parts.push({ name: entry, dir, ...numbers });
  }
  return parts;
}

/**
 * Mounts of a device, found by major:minor whatever name was used to mount it. btrfs reports an
 * anonymous major:minor (0:N) in mountinfo, so for those the source path is checked too.
 */
async function mountsOf(mounts: MountEntry[], dev: DeviceNumber): Promise<MountEntry[]> {
  const found: MountEntry[] = [];
  for (const m of mounts) {
    if (sameDevice(dev, m)) found.push(m);
    else if (m.major === 0 && m.source.startsWith('/dev/')) {
      const source = await blockDeviceNumber(m.source);
      if (source !== null && sameDevice(dev, source)) found.push(m);
    }
  }
  return found;
}

/** Device numbers of active swap areas on block devices (swap files are covered by mounts). */
async function swapDevices(): Promise<DeviceNumber[]> {
  const devices: DeviceNumber[] = [];
  for (const entry of readSwaps()) {
    // Only "partition" entries are block devices; a swap file's path is never worth a stat here.
    if (entry.type !== 'partition') continue;
    const numbers = await blockDeviceNumber(entry.path);
    if (numbers !== null) devices.push(numbers);
  }
  return devices;
}

/** Loop devices whose backing file is this block device: the loop driver does not list itself in holders/. */
async function loopDevicesOver(dev: SysfsBlockDevice): Promise<string[]> {
  const names: string[] = [];
  for (const name of listSysDir(join(SYSFS_ROOT, 'block'))) {
    const backing = readSysAttr(join(SYSFS_ROOT, 'block', name, 'loop', 'backing_file'));
    // Device nodes live under /dev; other backing files are regular files, not worth a stat.
    if (backing === null || !backing.startsWith('/dev/')) continue;
    const numbers = await blockDeviceNumber(backing);
    if (numbers !== null && sameDevice(dev, numbers)) names.push(name);
  }
  return names;
}

/**
 * Linux lets O_EXCL without O_CREAT claim a block device; it fails with EBUSY while the device
 * is mounted or claimed anywhere, across mount namespaces. The claim ends when the fd closes.
 */
async function refusesExclusiveOpen(nodePath: string): Promise<boolean> {
  try {
    const handle = await open(nodePath, fsConstants.O_RDONLY | fsConstants.O_EXCL);
    await handle.close();
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EBUSY';
  }
}

/** `/dev/<name>` when that node is this device, for the exclusive-open probe; else null. */
export async function deviceNode(dev: SysfsBlockDevice): Promise<string | null> {
  const path = `/dev/${dev.name}`;
  const numbers = await blockDeviceNumber(path);
  return numbers !== null && sameDevice(dev, numbers) ? path : null;
}

async function blockDeviceNumber(path: string): Promise<DeviceNumber | null> {
  const st = await stat(path, { bigint: true }).catch(() => null);
  return st !== null && st.isBlockDevice() ? decodeDevT(st.rdev) : null;
}

function sameDevice(a: DeviceNumber, b: DeviceNumber): boolean {
  return a.major === b.major && a.minor === b.minor;
}
