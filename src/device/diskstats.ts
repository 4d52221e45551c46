/**
 * fio's `disk_util`: /sys/block/<disk>/stat read before and after a run, reported as deltas.
 * Which devices, and in what order, follows fio 3.33 (diskutil.c, stat.c):
 *   - a partition is reported as its whole disk (fio steps up when `../queue` exists), named by
 *     the disk's kernel name;
 *   - a stacked device (dm, md) is followed by its slaves, each itself a whole disk, depth first;
 *     a slave is linked to its master only when this walk added it, and the master then carries
 *     the slaves' mean counters as `aggr_*`;
 *   - a loop device has no slaves, so only "loopN" appears, not the disk under its backing file;
 *   - a device without a /sys/block entry (tmpfs, overlay) is left out.
 */
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import type { DiskUtil, TargetIdentity } from '../fio-output/types.js';
import { sysfsBlockDirByName } from './devnum.js';
import { SYSFS_ROOT, listSysDir, readSysAttr } from './sysfs.js';

/** The first eleven fields of a block device's stat file (Documentation/block/stat.rst). */
export interface DiskStatCounters {
  readIos: number;
  readMerges: number;
  readSectors: number;
  /** Milliseconds reads spent waiting, summed over reads. */
  readTicks: number;
  writeIos: number;
  writeMerges: number;
  writeSectors: number;
  writeTicks: number;
  inFlight: number;
  /** Milliseconds the device had I/O in flight: the basis of util. */
  ioTicks: number;
  /** Milliseconds of I/O in flight weighted by how many (discards and flushes included). */
  timeInQueue: number;
}

export interface DiskStatsDevice {
  /** Whole-disk kernel name, as fio prints it. */
  name: string;
  /** Names of the devices linked as this one's slaves (for `aggr_*`). */
  slaves: string[];
  /** The sysfs file the counters are read from. */
  statFile: string;
  /** Null when the stat file could not be read. */
  counters: DiskStatCounters | null;
}

export interface DiskStatsSnapshot {
  /** performance.now() when the counters were read: monotonic, in milliseconds. */
  takenAtMs: number;
  devices: DiskStatsDevice[];
}

export interface DiskStatsOptions {
  /** Root of sysfs, "/sys" unless a test points it at a fixture tree. */
  sysfsRoot?: string;
}

/** The devices to watch for a run's targets: each target's whole disk, once, in target order. */
export function diskUtilDevices(targets: TargetIdentity[]): string[] {
  const names = targets.map((t) => t.disk ?? t.device).filter((n): n is string => n !== null);
  return [...new Set(names)];
}

/**
 * Reads the counters of `devNames` (kernel names; partitions are taken as their disks) and of
 * the slaves under them. Names sysfs does not know are skipped, as fio skips them.
 */
export async function snapshotDiskStats(
  devNames: string[],
  options: DiskStatsOptions = {},
): Promise<DiskStatsSnapshot> {
  const root = options.sysfsRoot ?? SYSFS_ROOT;
  const devices: DiskStatsDevice[] = [];
  for (const name of devNames) addDevice(devices, name, root);
  const takenAtMs = performance.now();
  for (const dev of devices) dev.counters = parseDiskStat(readSysAttr(dev.statFile));
  return { takenAtMs, devices };
}

/**
 * The same devices as `template`, with counters read elsewhere (the native run reads them once
 * it has laid its files out): `texts` holds each stat file's text, in the template's order.
 */
export function snapshotFromTexts(template: DiskStatsSnapshot, texts: readonly string[], takenAtMs: number): DiskStatsSnapshot {
  const devices = template.devices.map((d, i) => ({ ...d, counters: parseDiskStat(texts[i] || null) }));
  return { takenAtMs, devices };
}

/** An interval of a run that disk_util leaves out (a layout: fio takes its baseline after it). */
export interface ExcludedInterval {
  from: DiskStatsSnapshot;
  to: DiskStatsSnapshot;
}

/** Adds a device and, depth first, its slaves; answers the name added, or null if none was. */
function addDevice(devices: DiskStatsDevice[], name: string, root: string): string | null {
  const dev = sysfsBlockDirByName(name, root);
  if (dev === null || devices.some((d) => d.name === dev.disk)) return null;
  const entry: DiskStatsDevice = { name: dev.disk, slaves: [], statFile: join(root, 'block', dev.disk, 'stat'), counters: null };
  devices.push(entry);
  for (const slave of listSysDir(join(dev.diskDir, 'slaves'))) {
    const added = addDevice(devices, slave, root);
    if (added !== null) entry.slaves.push(added);
  }
  return entry.name;
}

/** Parses a stat line; null unless it has the eleven fields fio reads. */
export function parseDiskStat(text: string | null): DiskStatCounters | null {
  if (text === null) return null;
  const fields = text.trim().split(/\s+/).map(Number);
  if (fields.length < 11 || fields.slice(0, 11).some((n) => !Number.isFinite(n))) return null;
  const [readIos, readMerges, readSectors, readTicks, writeIos, writeMerges, writeSectors, writeTicks] = fields;
  const [inFlight, ioTicks, timeInQueue] = fields.slice(8, 11);
  return {
    readIos,
    readMerges,
    readSectors,
    readTicks,
    writeIos,
    writeMerges,
    writeSectors,
    writeTicks,
    inFlight,
    ioTicks,
    timeInQueue,
  };
}

/**
 * fio's disk_util entries for the interval between two snapshots, less the `excluded` intervals
 * inside it (their counts and their time): counter deltas, and util = 100·Δio_ticks / elapsed ms,
 * capped at 100. Devices missing from either snapshot or unreadable in either are left out.
 */
export function diskUtilDelta(before: DiskStatsSnapshot, after: DiskStatsSnapshot, excluded: readonly ExcludedInterval[] = []): DiskUtil[] {
  const elapsedMs = excluded.reduce((ms, x) => ms - (x.to.takenAtMs - x.from.takenAtMs), after.takenAtMs - before.takenAtMs);
  const deltas = new Map<string, DiskStatCounters>();
  for (const dev of before.devices) {
    let delta = countersDelta(before, after, dev.name);
    for (const x of excluded) {
      const left = countersDelta(x.from, x.to, dev.name);
      if (delta && left) delta = subtract(delta, left);
    }
    if (delta) deltas.set(dev.name, delta);
  }
  const result: DiskUtil[] = [];
  for (const dev of before.devices) {
    const d = deltas.get(dev.name);
    if (d === undefined) continue;
    const entry: DiskUtil = {
      name: dev.name,
      read_ios: d.readIos,
      write_ios: d.writeIos,
      read_merges: d.readMerges,
      write_merges: d.writeMerges,
      read_ticks: d.readTicks,
      write_ticks: d.writeTicks,
      in_queue: d.timeInQueue,
      util: utilPercent(d.ioTicks, elapsedMs),
    };
    const slaves = dev.slaves.flatMap((name) => deltas.get(name) ?? []);
    result.push(slaves.length > 0 ? { ...entry, ...aggregate(slaves, elapsedMs) } : entry);
  }
  return result;
}

/**
 * fio's view of a stacked device's members: the integer mean of each counter over the slaves,
 * and the busiest slave's util ("the utilization of the component with the highest
 * utilization"), capped at 100.
 */
function aggregate(slaves: DiskStatCounters[], elapsedMs: number): Partial<DiskUtil> {
  const mean = (pick: (c: DiskStatCounters) => number): number =>
    Math.floor(slaves.reduce((sum, c) => sum + pick(c), 0) / slaves.length);
  return {
    aggr_read_ios: mean((c) => c.readIos),
    aggr_write_ios: mean((c) => c.writeIos),
    aggr_read_merges: mean((c) => c.readMerges),
    aggr_write_merge: mean((c) => c.writeMerges),
    aggr_read_ticks: mean((c) => c.readTicks),
    aggr_write_ticks: mean((c) => c.writeTicks),
    aggr_in_queue: mean((c) => c.timeInQueue),
    aggr_util: Math.max(0, ...slaves.map((c) => utilPercent(c.ioTicks, elapsedMs))),
  };
}

function utilPercent(ioTicksMs: number, elapsedMs: number): number {
  if (!(elapsedMs > 0)) return 0;
  return Math.min(100, (100 * ioTicksMs) / elapsedMs);
}

/** A device's counters from one snapshot to another; null when either could not read them. */
function countersDelta(from: DiskStatsSnapshot, to: DiskStatsSnapshot, name: string): DiskStatCounters | null {
  const a = from.devices.find((d) => d.name === name)?.counters;
  const b = to.devices.find((d) => d.name === name)?.counters;
  return a && b ? subtract(b, a) : null;
}

/** Counters only grow; a device detached and attached again mid-run restarts them, read as 0. */
function subtract(after: DiskStatCounters, before: DiskStatCounters): DiskStatCounters {
  const out = {} as DiskStatCounters;
  for (const key of Object.keys(before) as Array<keyof DiskStatCounters>) {
    out[key] = key === 'inFlight' ? after.inFlight : Math.max(0, after[key] - before[key]);
  }
  return out;
}
