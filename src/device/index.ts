/**
 * The target module: what a target path is (device, hardware, filesystem), whether volbench may
 * write to it, and fio's disk_util for the devices behind it. Reads /sys, /proc and the
 * filesystem only.
 */
export { decodeDevT, encodeDevT, sysfsBlockDir, sysfsBlockDirByName } from './devnum.js';
export type { DeviceNumber, SysfsBlockDevice } from './devnum.js';
export { identifyTarget, blockSizeFor, DEVICELESS_BLOCK_SIZE } from './identify.js';
export { activeScheduler, ebsVolumeId, EBS_MODEL } from './disk-info.js';
export { resolveTarget } from './resolve.js';
export type { ResolvedTarget } from './resolve.js';
export { parseMountInfo, mountContaining } from './mountinfo.js';
export type { MountEntry } from './mountinfo.js';
export { assertWritableBlockDevice, blockDeviceUsage, isMountedFilesystemDevice } from './safety.js';
export type { BlockDeviceUsage } from './safety.js';
export { assertWritableFile, fileUsage } from './file-safety.js';
export type { FileUsage } from './file-safety.js';
export { diskUtilDelta, diskUtilDevices, parseDiskStat, snapshotDiskStats, snapshotFromTexts } from './diskstats.js';
export type { DiskStatCounters, DiskStatsDevice, DiskStatsOptions, DiskStatsSnapshot, ExcludedInterval } from './diskstats.js';
