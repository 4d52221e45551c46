/**
 * What lies underneath a block device: a loop device writes its backing file or device, a
 * stacked device (device-mapper, md) writes its slaves. Writing the device on top writes what is
 * underneath, so a device is in use when anything underneath is: a loop device over a mounted
 * disk, or a second loop device over the image of a mounted one, each destroyed a superblock
 * before this check existed.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeDevT, sysfsBlockDir, sysfsBlockDirByName, type SysfsBlockDevice } from './devnum.js';
import { SYSFS_ROOT, listSysDir, readSysAttr } from './sysfs.js';
import { deviceNode, isInUse, usageOfDevice } from './usage.js';
import { readSwaps } from './swaps.js';

/** How deep a stack is followed: loop over loop over dm ... ends well before this. */
const MAX_DEPTH = 8;

/** Reasons, one per device underneath `dev` that is in use ("/dev/loop0, mounted at /mnt"). */
export async function usedUnderneath(dev: SysfsBlockDevice): Promise<string[]> {
  return below(dev, new Set([dev.name]), 0);
}

async function below(dev: SysfsBlockDevice, seen: Set<string>, depth: number): Promise<string[]> {
  if (depth >= MAX_DEPTH) return [];
  const found: string[] = [];
  for (const lower of await lowerDevices(dev)) {
    if (seen.has(lower.name)) continue;
    seen.add(lower.name);
    const usage = await usageOfDevice(lower, await deviceNode(lower));
    // Whatever holds the lower device from above on our side of the stack is us.
    usage.holders = usage.holders.filter((h) => !seen.has(h));
    if (isInUse(usage)) found.push(`/dev/${lower.name} (${describeUse(usage)})`);
    found.push(...(await below(lower, seen, depth + 1)));
  }
  const backing = backingFile(dev);
  if (backing !== null) found.push(...(await fileUnderneath(backing, seen)));
  return found;
}

/** The devices `dev` writes through: its slaves, and a loop device's backing block device. */
async function lowerDevices(dev: SysfsBlockDevice): Promise<SysfsBlockDevice[]> {
  const lower = listSysDir(join(dev.dir, 'slaves')).flatMap((name) => sysfsBlockDirByName(name) ?? []);
  const backing = backingFile(dev);
  if (backing !== null) {
    const st = await stat(backing, { bigint: true }).catch(() => null);
    if (st?.isBlockDevice()) {
      const { major, minor } = decodeDevT(st.rdev);
      const found = sysfsBlockDir(major, minor);
      if (found !== null) lower.push(found);
    }
  }
  return lower;
}

function backingFile(dev: SysfsBlockDevice): string | null {
  return readSysAttr(join(dev.dir, 'loop', 'backing_file'));
}

/**
 * A loop device's backing file (a regular one; a backing device is a lower device) is in use
 * when another loop device over it is, or it is swap.
 */
async function fileUnderneath(path: string, seen: Set<string>): Promise<string[]> {
  const st = await stat(path, { bigint: true }).catch(() => null);
  if (st === null || !st.isFile()) return [];
  const found: string[] = [];
  for (const name of listSysDir(join(SYSFS_ROOT, 'block'))) {
    if (seen.has(name)) continue;
    const other = readSysAttr(join(SYSFS_ROOT, 'block', name, 'loop', 'backing_file'));
    if (other === null || !(await sameFile(other, st.dev, st.ino))) continue;
    const sibling = sysfsBlockDirByName(name);
    if (sibling === null) continue;
    seen.add(name);
    const usage = await usageOfDevice(sibling, await deviceNode(sibling));
    if (isInUse(usage)) found.push(`/dev/${name} over the same file ${path} (${describeUse(usage)})`);
  }
  for (const entry of readSwaps()) {
    if (entry.type === 'file' && (await sameFile(entry.path, st.dev, st.ino))) found.push(`${path} (active swap file)`);
  }
  return found;
}

async function sameFile(path: string, dev: bigint, ino: bigint): Promise<boolean> {
  if (!path.startsWith('/')) return false;
  const st = await stat(path, { bigint: true }).catch(() => null);
  return st !== null && st.dev === dev && st.ino === ino;
}

function describeUse(usage: Awaited<ReturnType<typeof usageOfDevice>>): string {
  if (usage.mountPoints.length > 0) return `mounted at ${usage.mountPoints.join(', ')}`;
  if (usage.mountedPartitions.length > 0) return `partitions ${usage.mountedPartitions.join(', ')} mounted`;
  if (usage.swap) return 'active swap';
  if (usage.holders.length > 0) return `held by ${usage.holders.join(', ')}`;
  return 'held exclusively';
}
