/**
 * What a whole disk says about itself in sysfs: hardware identity (model, vendor, serial, EBS
 * volume id), queue limits and, for a loop device, the file behind it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SysfsBlockDevice } from './devnum.js';
import { isMissing, readSysAttr, readSysInt } from './sysfs.js';

export interface DiskInfo {
  model: string | null;
  vendor: string | null;
  serial: string | null;
  ebsVolumeId: string | null;
  logicalBlockSize: number | null;
  physicalBlockSize: number | null;
  rotational: boolean | null;
  scheduler: string | null;
  /** The file a loop device reads and writes, or null for any other device. */
  backingFile: string | null;
}

export const EBS_MODEL = 'Amazon Elastic Block Store';

export function readDiskInfo(dev: SysfsBlockDevice): DiskInfo {
  const { diskDir } = dev;
  // NVMe namespaces and SCSI disks keep model/vendor/serial on their parent device; device-mapper
  // and md devices have no parent device, so these stay null.
  const model = blankToNull(readSysAttr(join(diskDir, 'device', 'model')));
  const serial = readSerial(diskDir);
  const rotational = readSysAttr(join(diskDir, 'queue', 'rotational'));
  return {
    model,
    vendor: blankToNull(readSysAttr(join(diskDir, 'device', 'vendor'))),
    serial,
    ebsVolumeId: ebsVolumeId(model, serial),
    logicalBlockSize: readSysInt(join(diskDir, 'queue', 'logical_block_size')),
    physicalBlockSize: readSysInt(join(diskDir, 'queue', 'physical_block_size')),
    rotational: rotational === null ? null : rotational === '1',
    scheduler: activeScheduler(readSysAttr(join(diskDir, 'queue', 'scheduler'))),
    backingFile: blankToNull(readSysAttr(join(diskDir, 'loop', 'backing_file'))),
  };
}

/**
 * NVMe and some SCSI drivers publish `device/serial`; virtio-blk publishes `serial` on the disk
 * itself; other SCSI disks only have the unit serial number VPD page (0x80), whose serial starts
 * at byte 4 and runs for the length in bytes 2-3.
 */
function readSerial(diskDir: string): string | null {
  const direct =
    blankToNull(readSysAttr(join(diskDir, 'device', 'serial'))) ??
    blankToNull(readSysAttr(join(diskDir, 'serial')));
  if (direct !== null) return direct;
  try {
    const page = readFileSync(join(diskDir, 'device', 'vpd_pg80'));
    if (page.length < 4 || page[1] !== 0x80) return null;
    const length = page.readUInt16BE(2);
    return blankToNull(page.subarray(4, 4 + length).toString('latin1').replace(/\0/g, '').trim());
  } catch (err) {
    if (isMissing(err) || (err as NodeJS.ErrnoException).code === 'EACCES') return null;
    throw err;
  }
}

/**
 * EBS volumes on Nitro instances are NVMe devices whose serial is the volume id without its
 * dash ("vol0123abcd..."); some drivers and tools already print the dash, so both are accepted.
 */
export function ebsVolumeId(model: string | null, serial: string | null): string | null {
  if (model !== EBS_MODEL || serial === null) return null;
  const match = /^vol-?([0-9a-f]+)$/i.exec(serial);
  return match === null ? null : `vol-${match[1].toLowerCase()}`;
}

/**
 * queue/scheduler lists the choices with the active one in brackets ("none [mq-deadline] kyber");
 * a queue that cannot schedule prints just "none".
 */
export function activeScheduler(text: string | null): string | null {
  if (text === null) return null;
  const active = /\[([^\]]+)\]/.exec(text);
  if (active !== null) return active[1];
  return text === 'none' ? 'none' : null;
}

function blankToNull(text: string | null): string | null {
  return text === null || text === '' ? null : text;
}
