/**
 * A regular file can hold a mounted filesystem too: the image behind a mounted loop device, or a
 * swap file. Writing to it corrupts that filesystem exactly as writing to a mounted disk would,
 * so it gets the same refusal.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { VolbenchError } from '../errors.js';
import { sysfsBlockDirByName } from './devnum.js';
import { describeTarget, resolveTarget, type ResolvedTarget } from './resolve.js';
import { readSwaps } from './swaps.js';
import { SYSFS_ROOT, listSysDir, readSysAttr } from './sysfs.js';
import { deviceNode, isInUse, usageOfDevice } from './usage.js';

export interface FileUsage {
  /** Loop devices whose backing file this is. */
  loopDevices: string[];
  /** Those of `loopDevices` that are mounted, held or swap. */
  loopDevicesInUse: string[];
  /** The file is an active swap file. */
  swap: boolean;
}

interface FileId {
  path: string;
  dev: bigint;
  ino: bigint;
}

/** `resolved`: the path as already resolved (the caller checks that one, not the name again). */
export async function fileUsage(path: string, resolved?: ResolvedTarget): Promise<FileUsage> {
  const target = resolved ?? (await resolveTarget(path));
  const none: FileUsage = { loopDevices: [], loopDevicesInUse: [], swap: false };
  if (!target.exists || !target.stats.isFile()) return none;
  const id: FileId = { path: target.resolvedPath, dev: target.stats.dev, ino: target.stats.ino };
  const loopDevices: string[] = [];
  for (const name of listSysDir(join(SYSFS_ROOT, 'block'))) {
    const backing = readSysAttr(join(SYSFS_ROOT, 'block', name, 'loop', 'backing_file'));
    if (backing !== null && (await isSameFile(backing, id))) loopDevices.push(name);
  }
  const loopDevicesInUse: string[] = [];
  for (const name of loopDevices) {
    const dev = sysfsBlockDirByName(name);
    if (dev !== null && isInUse(await usageOfDevice(dev, await deviceNode(dev)))) loopDevicesInUse.push(name);
  }
  return { loopDevices, loopDevicesInUse, swap: await isSwapFile(id) };
}

/**
 * Throws EUNSAFE_TARGET when writing to the file at `path` would corrupt a filesystem in use, or
 * would write a loop device that may not be written: a file that backs a device gets the
 * device's protection (`allowDevice` says which devices may be written; none by default).
 */
export async function assertWritableFile(
  path: string, field: string, allowDevice: (devPath: string) => boolean = () => false, resolved?: ResolvedTarget,
): Promise<void> {
  const target = resolved ?? (await resolveTarget(path));
  const usage = await fileUsage(path, target);
  const name = describeTarget(target);
  if (usage.swap) {
    throw new VolbenchError('EUNSAFE_TARGET', `${name} is an active swap file; volbench never writes to it`, {
      path,
      field,
    });
  }
  if (usage.loopDevicesInUse.length > 0) {
    const devices = usage.loopDevicesInUse.map((n) => `/dev/${n}`).join(', ');
    throw new VolbenchError(
      'EUNSAFE_TARGET',
      `${name} backs ${devices}, which is mounted or in use; volbench never writes to a mounted device`,
      { path, field },
    );
  }
  const guarded = usage.loopDevices.map((n) => `/dev/${n}`).filter((dev) => !allowDevice(dev));
  if (guarded.length > 0) {
    throw new VolbenchError('EUNSAFE_TARGET',
      `${name} backs ${guarded.join(', ')}; writing it writes that device, which needs allow_block_write=1 for it`,
      { path, field, accepted: 'allow_block_write=1 (a service: a device root started with --allow-block-write)' });
  }
}

/** The loop driver and /proc/swaps print the path they opened; a stat also catches other names for it. */
async function isSameFile(candidate: string, id: FileId): Promise<boolean> {
  if (candidate === id.path) return true;
  if (!candidate.startsWith('/')) return false;
  const st = await stat(candidate, { bigint: true }).catch(() => null);
  return st !== null && st.dev === id.dev && st.ino === id.ino;
}

async function isSwapFile(id: FileId): Promise<boolean> {
  for (const entry of readSwaps()) {
    if (entry.type === 'file' && (await isSameFile(entry.path, id))) return true;
  }
  return false;
}
