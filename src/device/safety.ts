/**
 * The guard in front of every write to a block device. A write to a device that the system uses
 * destroys data no benchmark result is worth, so "in use" is refused whatever the flags say, and
 * any other device needs the explicit allow_block_write opt-in. Reading a device needs neither:
 * a read job on a mounted disk is a normal measurement.
 */
import { VolbenchError } from '../errors.js';
import type { SysfsBlockDevice } from './devnum.js';
import { describeTarget, resolveTarget, sysfsOfBlockTarget, type ResolvedTarget } from './resolve.js';
import { usedUnderneath } from './stacking.js';
import { isInUse, usageOfDevice, type BlockDeviceUsage } from './usage.js';

export type { BlockDeviceUsage } from './usage.js';

/** What uses the block device at `devPath` (symlinks resolved first). */
export async function blockDeviceUsage(devPath: string): Promise<BlockDeviceUsage> {
  const { target, dev } = await openBlockDevice(devPath);
  return usageOfDevice(dev, target.resolvedPath);
}

/** True when the device or one of its partitions holds a mounted filesystem. */
export async function isMountedFilesystemDevice(devPath: string): Promise<boolean> {
  const usage = await blockDeviceUsage(devPath);
  return usage.mountPoints.length > 0 || usage.mountedPartitions.length > 0;
}

/**
 * Throws EUNSAFE_TARGET unless volbench may write to the block device at `devPath`. The in-use
 * check comes first so that a user never adds the flag only to be refused for another reason.
 * `field` names the spec field that holds the path, for the error; `heldDevices` are resolved
 * paths of devices the caller has claimed itself (PlanOptions.heldDevices).
 */
export async function assertWritableBlockDevice(
  devPath: string,
  allowBlockWrite: boolean,
  field: string,
  heldDevices?: ReadonlySet<string>,
  resolved?: ResolvedTarget,
): Promise<void> {
  const { target, dev } = await openBlockDevice(devPath, field, resolved);
  // A device the caller holds itself is not probed for an exclusive holder: it would find the caller.
  const probe = heldDevices?.has(target.resolvedPath) ? null : target.resolvedPath;
  const usage = await usageOfDevice(dev, probe);
  const name = describeTarget(target);
  if (isInUse(usage)) {
    throw new VolbenchError('EUNSAFE_TARGET', inUseMessage(name, usage), { path: devPath, field });
  }
  const underneath = await usedUnderneath(dev);
  if (underneath.length > 0) {
    throw new VolbenchError('EUNSAFE_TARGET',
      `${name} writes through ${underneath.join('; ')}, which is in use; volbench never writes to a device in use`,
      { path: devPath, field });
  }
  if (!allowBlockWrite) {
    throw new VolbenchError(
      'EUNSAFE_TARGET',
      `writing to block device ${name} needs allow_block_write=1 (--allow_block_write)`,
      { path: devPath, field, accepted: 'allow_block_write=1' },
    );
  }
}

function inUseMessage(name: string, usage: BlockDeviceUsage): string {
  if (usage.mountPoints.length > 0) {
    return `${name} is mounted at ${usage.mountPoints.join(', ')}; volbench never writes to a mounted device`;
  }
  if (usage.mountedPartitions.length > 0) {
    return `${name} has mounted partitions (${usage.mountedPartitions.join(', ')}); volbench never writes to a mounted device`;
  }
  if (usage.swap) return `${name} is active swap; volbench never writes to a device in use`;
  if (usage.holders.length > 0) {
    return `${name} is in use by ${usage.holders.join(', ')} (device-mapper, md, LVM or loop); volbench never writes to a device in use`;
  }
  return `${name} is held exclusively by another program or a mount in another namespace (EBUSY); volbench never writes to a device in use`;
}

async function openBlockDevice(
  devPath: string,
  field?: string,
  resolved?: ResolvedTarget,
): Promise<{ target: ResolvedTarget; dev: SysfsBlockDevice }> {
  const target = resolved ?? (await resolveTarget(devPath));
  const where = field === undefined ? {} : { field };
  if (!target.exists) {
    throw new VolbenchError('ETARGET', `block device ${describeTarget(target)} does not exist`, {
      path: devPath,
      ...where,
    });
  }
  if (!target.stats.isBlockDevice()) {
    throw new VolbenchError('ETARGET', `${describeTarget(target)} is not a block device`, { path: devPath, ...where });
  }
  const dev = sysfsOfBlockTarget(target, { path: devPath, ...where });
  return { target, dev };
}
