/**
 * What GET /v1/targets says about each root: the device behind it (from the library's target
 * identity, EBS volume id included), its filesystem, and the free space a file run can use.
 */
import { statfs } from 'node:fs/promises';
import { join } from 'node:path';

import { identifyTarget, sysfsBlockDirByName } from '../../device/index.js';
import { readSysInt } from '../../device/sysfs.js';
import type { TargetIdentity } from '../../fio-output/index.js';
import { queueKeyOf } from '../admission/device-key.js';
import type { TargetRoot } from '../admission/roots.js';
import type { TargetBody } from '../../api/target.js';

/** A device's size from sysfs (512-byte sectors whatever the block size). */
function deviceSizeBytes(name: string): number | null {
  const dev = sysfsBlockDirByName(name);
  const sectors = dev === null ? null : readSysInt(join(dev.dir, 'size'));
  return sectors === null ? null : sectors * 512;
}

function deviceView(id: TargetIdentity): TargetBody['device'] {
  if (id.device === null) return null;
  return {
    name: id.device,
    disk: id.disk,
    size_bytes: id.isBlockDevice ? id.sizeBytes : deviceSizeBytes(id.device),
    logical_block_size: id.logicalBlockSize,
    physical_block_size: id.physicalBlockSize,
    rotational: id.rotational,
    model: id.model,
    serial: id.serial,
    vendor: id.vendor,
    scheduler: id.scheduler,
    ebs_volume_id: id.ebsVolumeId,
  };
}

async function freeBytes(root: TargetRoot): Promise<number | null> {
  if (root.kind !== 'directory') return null;
  const fs = await statfs(root.realPath).catch(() => null);
  return fs === null ? null : fs.bavail * fs.bsize;
}

export async function describeTarget(root: TargetRoot, counts: { queued: number; running: number }): Promise<TargetBody> {
  const id = await identifyTarget(root.realPath);
  return {
    root: root.path,
    kind: root.kind,
    allow_block_write: root.allowBlockWrite,
    queue: await queueKeyOf(root.realPath),
    device: deviceView(id),
    filesystem: id.filesystem,
    mount_point: id.mountPoint,
    free_bytes: await freeBytes(root),
    ...counts,
  };
}
