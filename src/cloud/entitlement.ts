/**
 * What a volume should deliver to a job: its IOPS and throughput for the job's I/O size,
 * counting I/Os the provider's way (an I/O larger than the counted size is several; small
 * sequential I/Os merge up to it), and which limit binds: the volume's, or, given the instance,
 * the instance's EBS IOPS and bandwidth (its maximum while its daily burst lasts). A tiered disk
 * (Azure) performs as the smallest tier that holds it; instance store as its instance's device.
 */
import { instanceType } from './catalog.js';
import type { VolumeTypeInfo } from './schema.js';
import { checkPlacement, instanceStoreOf } from './placement.js';
import { volumeOf, type Volume, type VolumeSpec } from './volume.js';

export type BoundBy = 'volume-iops' | 'volume-throughput' | 'burst-credits' | 'instance-iops' | 'instance-bandwidth';

export interface EntitlementQuery {
  /** The job's block size in bytes. */
  bs: number;
  /** The instance the volume is attached to: its EBS limits bound the volume's. */
  instance?: string;
  /** Whether the instance's daily EBS burst is left (default true); false: its baseline. */
  instanceBurst?: boolean;
  /** Sequential I/O merges up to the counted size; random does not. */
  sequential?: boolean;
  /**
   * Reads, writes or both (default reads): where a type states them apart (GCP pd-standard,
   * instance store), a mix gets the harmonic mean of the two, half and half.
   */
  direction?: Direction;
  /**
   * Burst credits left, 0–1 of a full bucket (a new volume starts full). 0: the baseline only.
   * Undefined: full.
   */
  burstBalance?: number;
}

export interface Entitlement {
  /** I/Os per second of the job's size. */
  iops: number;
  /** MiB/s at that rate. */
  throughputMiBps: number;
  bound_by: BoundBy;
  /** The I/O size the provider counts, and how many of them one job I/O counts as. */
  counted_io_kib: number;
  counted_per_io: number;
  /** For a volume that bursts: the baseline after the bucket is empty, and how long a full one lasts. */
  burst?: { level: number; baseline: number; unit: 'IOPS' | 'MiB/s'; seconds_from_full: number };
}

/** The rw values whose I/Os are sequential: the provider merges small ones up to its I/O size. */
export const SEQUENTIAL_RW: ReadonlySet<string> = new Set(['read', 'write', 'rw', 'readwrite', 'trim']);

export type Direction = 'read' | 'write' | 'mixed';

/** fio's rw as the direction of its I/Os (trims count as writes). */
export function directionOf(rw: string): Direction {
  if (['rw', 'readwrite', 'randrw', 'trimwrite', 'randtrimwrite'].includes(rw)) return 'mixed';
  if (['write', 'randwrite', 'trim', 'randtrim'].includes(rw)) return 'write';
  return 'read';
}

/** A read and a write limit as one for the direction: a half-and-half mix shares the device. */
function forDirection(read: number, write: number, d: Direction | undefined): number {
  if (d === 'write') return write;
  if (d === 'mixed') return 2 / (1 / read + 1 / write);
  return read;
}

/** IOPS that scale with size: a base plus so many per GiB, between the type's min and max. */
function sizedIops(t: VolumeTypeInfo, sizeGiB: number, d: Direction | undefined): number {
  const i = t.iops;
  const at = (perGib: number, max: number) => Math.min(max, Math.max(i.min ?? 0, (i.base ?? 0) + perGib * sizeGiB));
  const read = at(i.per_gib ?? 0, i.max);
  return i.write_per_gib === undefined && i.write_max === undefined ? read : forDirection(read, at(i.write_per_gib ?? i.per_gib ?? 0, i.write_max ?? i.max), d);
}

const KiB = 1024;
const round2 = (n: number) => Math.round(n * 100) / 100;
const MiB = 1024 * 1024;

/** What `volume` should deliver (plain figures are made a Volume first: deprecated, pass one). */
export function entitlement(volume: Volume | VolumeSpec, q: EntitlementQuery): Entitlement {
  const spec = volumeOf(volume);
  const t = spec.catalog;
  checkPlacement(spec, q.instance);
  const countedKiB = t.io_size_kib;
  const bsKiB = q.bs / KiB;
  const countedPerIo = q.sequential && bsKiB < countedKiB ? bsKiB / countedKiB : Math.max(1, Math.ceil(bsKiB / countedKiB));
  const balance = q.burstBalance ?? 1;
  const tib = spec.sizeGiB / 1024;

  let iopsLimit: number;
  let tpLimit = Infinity;
  let burst: Entitlement['burst'];
  let burstBinds = false;
  const b = t.burst;
  const tier = spec.tier;
  if (t.from_instance) {
    // AWS states the instance's 4 KiB random IOPS over all its devices; a volume is one device.
    const store = instanceStoreOf(q.instance, 'instance');
    iopsLimit = forDirection(store.random_read_iops_4k, store.write_iops_4k, q.direction) / store.devices;
  } else if (tier) {
    iopsLimit = tier.iops;
    tpLimit = tier.throughput_mibps;
    if (b?.kind === 'credits' && tier.size_gib <= b.up_to_gib && tier.iops < b.iops) {
      burst = { level: b.iops, baseline: tier.iops, unit: 'IOPS', seconds_from_full: b.minutes * 60 };
      if (balance > 0) {
        iopsLimit = b.iops;
        tpLimit = Math.max(tpLimit, b.throughput_mibps);
      } else {
        burstBinds = true;
      }
    }
  } else if (b?.kind === 'iops') {
    const baseline = Math.min(t.iops.max, Math.max(t.iops.min ?? 0, (t.iops.per_gib ?? 0) * spec.sizeGiB));
    iopsLimit = baseline;
    if (spec.sizeGiB < b.below_gib && baseline < b.level) {
      const refill = b.refill_per_gib_s * spec.sizeGiB;
      burst = { level: b.level, baseline, unit: 'IOPS', seconds_from_full: Math.round(b.bucket / (b.level - refill)) };
      if (balance > 0) iopsLimit = b.level;
      else burstBinds = true;
    }
  } else if (t.iops.provisioned) {
    iopsLimit = spec.provisionedIops ?? t.iops.max;
  } else if (t.iops.per_mibps !== undefined) {
    // Hyperdisk Throughput: IOPS come with the provisioned throughput.
    iopsLimit = Math.min(t.iops.max, t.iops.per_mibps * (spec.provisionedThroughputMiBps ?? 0));
  } else if (t.iops.per_gib !== undefined) {
    iopsLimit = sizedIops(t, spec.sizeGiB, q.direction);
  } else {
    iopsLimit = t.iops.max;
  }
  const tp = t.throughput_mibps;
  if (t.from_instance || tier) {
    // Set above.
  } else if (tp.base_per_tib !== undefined) {
    const base = Math.min(tp.base_max ?? tp.max, tp.base_per_tib * tib);
    tpLimit = base;
    if (b?.kind === 'throughput') {
      const level = Math.min(b.level_max, b.level_per_tib * tib);
      if (level > base) {
        burst = { level: round2(level), baseline: round2(base), unit: 'MiB/s', seconds_from_full: Math.round((b.bucket_mib_per_tib * tib) / (level - base)) };
        if (balance > 0) tpLimit = level;
        else burstBinds = true;
      }
    }
  } else if (tp.provisioned) {
    tpLimit = spec.provisionedThroughputMiBps ?? tp.max;
  } else if (tp.small_max !== undefined && tp.small_up_to_gib !== undefined && spec.sizeGiB <= tp.small_up_to_gib) {
    tpLimit = tp.small_max;
  } else if (tp.per_gib !== undefined) {
    const at = (max: number) => Math.min(max, (tp.base ?? 0) + tp.per_gib! * spec.sizeGiB);
    tpLimit = tp.write_max === undefined ? at(tp.max) : forDirection(at(tp.max), at(tp.write_max), q.direction);
  } else if (tp.per_iops_max !== undefined) {
    tpLimit = Math.min(tp.max, tp.per_iops_max * iopsLimit);
  } else {
    tpLimit = tp.max;
  }
  const byIops = iopsLimit / countedPerIo;
  const byThroughput = (tpLimit * MiB) / q.bs;
  let iops = Math.min(byIops, byThroughput);
  let limit: BoundBy = byIops <= byThroughput ? 'volume-iops' : 'volume-throughput';
  // An instance's EBS limits bound EBS volumes; instance store is not behind them.
  if (q.instance && !t.from_instance) {
    const ebs = instanceType(q.instance).ebs;
    const burstLeft = q.instanceBurst ?? true;
    const instIops = burstLeft ? ebs.max_iops : ebs.baseline_iops;
    // Mbps as AWS states them (10^6 bits/s), in bytes per second.
    const instBytes = ((burstLeft ? ebs.max_mbps : ebs.baseline_mbps) * 1e6) / 8;
    if (instIops < iops) {
      iops = instIops;
      limit = 'instance-iops';
    }
    if (instBytes / q.bs < iops) {
      iops = instBytes / q.bs;
      limit = 'instance-bandwidth';
    }
  }
  return {
    iops: Math.round(iops * 100) / 100,
    throughputMiBps: Math.round(((iops * q.bs) / MiB) * 100) / 100,
    bound_by: burstBinds && limit.startsWith('volume') ? 'burst-credits' : limit,
    counted_io_kib: countedKiB,
    counted_per_io: countedPerIo,
    ...(burst ? { burst } : {}),
  };
}
