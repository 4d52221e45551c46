/**
 * What a volume should deliver to a job: its IOPS and throughput for the job's I/O size,
 * counting I/Os the provider's way (an I/O larger than the counted size is several; small
 * sequential I/Os merge up to it), and which limit binds: the volume's, or, given the instance,
 * the instance's EBS IOPS and bandwidth (its maximum while its daily burst lasts). A tiered disk
 * (Azure) performs as the smallest tier that holds it; instance store as its instance's device.
 */
import { VolbenchError } from '../errors.js';
import { instanceType } from './catalog.js';
import type { VolumeTypeInfo } from './schema.js';
import { checkPlacement, instanceStoreOf } from './placement.js';
import type { Volume } from './volume.js';

/** Which limit binds (the contract's values; `latency` is the run's, set from what it measured). */
export type BoundBy = 'volume-iops' | 'volume-throughput' | 'burst-credits' | 'instance-iops' | 'instance-bandwidth' | 'instance-burst';

export interface EntitlementQuery {
  /** The job's block size in bytes. */
  bs: number;
  /** The instance the volume is attached to: its EBS limits bound the volume's. */
  instance?: string;
  /**
   * Whether the instance's daily EBS burst is left (default true: a run starts at its maximum,
   * and `instance_burst` says what follows); false: its baseline, bound by `instance-burst`.
   */
  instanceBurst?: boolean;
  /**
   * A sequential pattern: small I/Os may reach the volume merged up to the counted size
   * (`merged`); `iops` assumes they do not (O_DIRECT at low depth).
   */
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

/** A rate the volume should deliver and the limit that sets it. */
export interface EntitledRate {
  /** I/Os per second of the job's size. */
  iops: number;
  /** MiB/s at that rate. */
  throughputMiBps: number;
  bound_by: BoundBy;
  /** How many of the provider's counted I/Os one job I/O is. */
  counted_per_io: number;
}

/** `iops`, `throughputMiBps`, `bound_by`: the bound with no merging of small sequential I/O (`entitled`). */
export interface Entitlement extends EntitledRate {
  /** The I/O size the provider counts in. */
  counted_io_kib: number;
  /** The bound with small sequential I/Os merged up to the counted size (`entitled_merged`); the same for random I/O. */
  merged: EntitledRate;
  /**
   * Given an instance whose EBS limits burst (30 minutes a day at their maximum): what the
   * volume delivers once that is spent, when lower than now.
   */
  instance_burst?: { seconds: number; iops: number; throughputMiBps: number; bound_by: 'instance-burst' };
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

/** The volume's own limits for the job, before the instance's. */
interface VolumeLimits {
  iops: number;
  mibps: number;
  burst?: Entitlement['burst'];
  /** The volume's bucket is empty: which of its limits fell to the baseline (false: none). */
  burstBinds: false | 'iops' | 'throughput' | 'both';
}

/** A tiered disk (Azure) performs as its tier, bursting on credits while they last. */
function tierLimits(tier: NonNullable<Volume['tier']>, t: VolumeTypeInfo, balance: number): VolumeLimits {
  const b = t.burst;
  const out: VolumeLimits = { iops: tier.iops, mibps: tier.throughput_mibps, burstBinds: false };
  if (b?.kind === 'credits' && tier.size_gib <= b.up_to_gib && tier.iops < b.iops) {
    out.burst = { level: b.iops, baseline: tier.iops, unit: 'IOPS', seconds_from_full: b.minutes * 60 };
    if (balance > 0) {
      out.iops = b.iops;
      out.mibps = Math.max(out.mibps, b.throughput_mibps);
    } else {
      out.burstBinds = 'both';
    }
  }
  return out;
}

/** IOPS the volume allows, with gp2's IOPS burst. */
function iopsLimits(spec: Volume, q: EntitlementQuery, balance: number, out: VolumeLimits): void {
  const t = spec.catalog;
  const b = t.burst;
  if (b?.kind === 'iops') {
    const baseline = Math.min(t.iops.max, Math.max(t.iops.min ?? 0, (t.iops.per_gib ?? 0) * spec.sizeGiB));
    out.iops = baseline;
    if (spec.sizeGiB < b.below_gib && baseline < b.level) {
      const refill = b.refill_per_gib_s * spec.sizeGiB;
      out.burst = { level: b.level, baseline, unit: 'IOPS', seconds_from_full: Math.round(b.bucket / (b.level - refill)) };
      if (balance > 0) out.iops = b.level;
      else out.burstBinds = 'iops';
    }
  } else if (t.iops.provisioned) {
    out.iops = spec.provisionedIops ?? t.iops.max;
  } else if (t.iops.per_mibps !== undefined) {
    // Hyperdisk Throughput: IOPS come with the provisioned throughput.
    out.iops = Math.min(t.iops.max, t.iops.per_mibps * (spec.provisionedThroughputMiBps ?? 0));
  } else if (t.iops.per_gib !== undefined) {
    out.iops = sizedIops(t, spec.sizeGiB, q.direction);
  } else {
    out.iops = t.iops.max;
  }
}

/** MiB/s the volume allows, with st1/sc1's throughput burst. */
function throughputLimits(spec: Volume, q: EntitlementQuery, balance: number, out: VolumeLimits): void {
  const t = spec.catalog;
  const tp = t.throughput_mibps;
  const b = t.burst;
  const tib = spec.sizeGiB / 1024;
  if (tp.base_per_tib !== undefined) {
    const base = Math.min(tp.base_max ?? tp.max, tp.base_per_tib * tib);
    out.mibps = base;
    if (b?.kind === 'throughput') {
      const level = Math.min(b.level_max, b.level_per_tib * tib);
      if (level > base) {
        out.burst = { level: round2(level), baseline: round2(base), unit: 'MiB/s', seconds_from_full: Math.round((b.bucket_mib_per_tib * tib) / (level - base)) };
        if (balance > 0) out.mibps = level;
        else out.burstBinds = 'throughput';
      }
    }
  } else if (tp.provisioned) {
    out.mibps = spec.provisionedThroughputMiBps ?? tp.max;
  } else if (tp.small_max !== undefined && tp.small_up_to_gib !== undefined && spec.sizeGiB <= tp.small_up_to_gib) {
    out.mibps = tp.small_max;
  } else if (tp.per_gib !== undefined) {
    const at = (max: number) => Math.min(max, (tp.base ?? 0) + tp.per_gib! * spec.sizeGiB);
    out.mibps = tp.write_max === undefined ? at(tp.max) : forDirection(at(tp.max), at(tp.write_max), q.direction);
  } else if (tp.per_iops_bands !== undefined) {
    // io1: the band with the largest floor under the volume's IOPS.
    const band = tp.per_iops_bands.filter((x) => x.above_iops < out.iops).sort((x, y) => y.above_iops - x.above_iops)[0] ?? tp.per_iops_bands[0];
    out.mibps = Math.min(band.max, band.mibps_per_iops * out.iops);
  } else if (tp.per_iops_max !== undefined) {
    out.mibps = Math.min(tp.max, tp.per_iops_max * out.iops);
  } else {
    out.mibps = tp.max;
  }
}

function volumeLimits(spec: Volume, q: EntitlementQuery): VolumeLimits {
  const t = spec.catalog;
  const balance = q.burstBalance ?? 1;
  if (t.from_instance) {
    // AWS states the instance's 4 KiB random IOPS over all its devices; a volume is one device.
    const store = instanceStoreOf(q.instance, 'instance');
    if (store.random_read_iops_4k === undefined || store.write_iops_4k === undefined) {
      throw new VolbenchError('EVOLUME_PLACEMENT', `the catalog has no instance store IOPS for ${store.type} (AWS states them on its instance store page, not in DescribeInstanceTypes)`, {
        field: 'instance', accepted: 'an instance type whose instance store IOPS the catalog has',
      });
    }
    return { iops: forDirection(store.random_read_iops_4k, store.write_iops_4k, q.direction) / store.devices, mibps: Infinity, burstBinds: false };
  }
  if (spec.tier) return tierLimits(spec.tier, t, balance);
  const out: VolumeLimits = { iops: 0, mibps: Infinity, burstBinds: false };
  iopsLimits(spec, q, balance, out);
  throughputLimits(spec, q, balance, out);
  return out;
}

/** An instance's EBS IOPS and bytes per second, at its maximum or its baseline. */
interface InstanceRate { iops: number; bytes: number }

function instanceRate(name: string, burstLeft: boolean): InstanceRate {
  const ebs = instanceType(name).ebs;
  // Mbps as AWS states them (10^6 bits/s), in bytes per second.
  return burstLeft ? { iops: ebs.max_iops, bytes: (ebs.max_mbps * 1e6) / 8 } : { iops: ebs.baseline_iops, bytes: (ebs.baseline_mbps * 1e6) / 8 };
}

/**
 * The job's rate under the volume's limits and, given one, the instance's: I/Os are counted in
 * the provider's size (merged or not), HDD charges an unmerged small I/O as a whole counted one
 * against its throughput, and the instance's bandwidth sees the job's own bytes.
 */
function rate(spec: Volume, limits: VolumeLimits, bs: number, merged: boolean, inst: InstanceRate | undefined, spent: boolean): EntitledRate {
  const t = spec.catalog;
  const countedBytes = t.io_size_kib * KiB;
  const perIo = merged && bs < countedBytes ? bs / countedBytes : Math.max(1, Math.ceil(bs / countedBytes));
  const charged = t.small_io_charged_whole && !(merged && bs < countedBytes) ? perIo * countedBytes : bs;
  const byIops = limits.iops / perIo;
  const byThroughput = (limits.mibps * MiB) / charged;
  let iops = Math.min(byIops, byThroughput);
  let bound: BoundBy = byIops <= byThroughput ? 'volume-iops' : 'volume-throughput';
  // An empty bucket names the limit only where the bucket lowered it: gp2 600 GiB at 256 KiB is
  // held by its 250 MiB/s with or without credits.
  const lowered = limits.burstBinds === 'both' || (limits.burstBinds === 'iops' ? bound === 'volume-iops' : limits.burstBinds === 'throughput' && bound === 'volume-throughput');
  if (lowered) bound = 'burst-credits';
  if (inst) {
    // The instance counts what EBS counts: merged small sequential I/O is one I/O per counted size.
    const instIops = inst.iops / (merged && bs < countedBytes ? perIo : 1);
    if (instIops < iops) {
      iops = instIops;
      bound = spent ? 'instance-burst' : 'instance-iops';
    }
    if (inst.bytes / bs < iops) {
      iops = inst.bytes / bs;
      bound = spent ? 'instance-burst' : 'instance-bandwidth';
    }
  }
  return { iops: round2(iops), throughputMiBps: round2((iops * bs) / MiB), bound_by: bound, counted_per_io: perIo };
}

/** What `volume` should deliver (plain figures are made a Volume first: deprecated, pass one). */
export function entitlement(volume: Volume, q: EntitlementQuery): Entitlement {
  const spec = volume;
  checkPlacement(spec, q.instance);
  const limits = volumeLimits(spec, q);
  // An instance's EBS limits bound EBS volumes; instance store is not behind them.
  const ebsInstance = q.instance && !spec.catalog.from_instance ? q.instance : undefined;
  const burstLeft = q.instanceBurst ?? true;
  const daily = ebsInstance ? instanceType(ebsInstance).ebs.burst : undefined;
  const inst = ebsInstance ? instanceRate(ebsInstance, burstLeft) : undefined;
  // Only an instance that bursts has a burst to have spent.
  const at = (merged: boolean, r = inst, spent = !burstLeft && daily !== undefined) => rate(spec, limits, q.bs, merged && q.sequential === true, r, spent);
  const entitled = at(false);
  let instanceBurst: Entitlement['instance_burst'];
  if (ebsInstance && daily && burstLeft) {
    const after = at(false, instanceRate(ebsInstance, false), true);
    if (after.iops < entitled.iops) {
      instanceBurst = { seconds: daily.minutes_per_day * 60, iops: after.iops, throughputMiBps: after.throughputMiBps, bound_by: 'instance-burst' };
    }
  }
  return {
    ...entitled,
    counted_io_kib: spec.catalog.io_size_kib,
    merged: at(true),
    ...(limits.burst ? { burst: limits.burst } : {}),
    ...(instanceBurst ? { instance_burst: instanceBurst } : {}),
  };
}
