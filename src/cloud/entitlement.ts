/**
 * What a volume should deliver to a job: its IOPS and throughput for the job's I/O size,
 * counting I/Os the provider's way (an I/O larger than the counted size is several; small
 * sequential I/Os merge up to it), and which limit binds: the volume's, or, given the instance,
 * the instance's EBS IOPS and bandwidth (its maximum while its daily burst lasts). A tiered disk
 * (Azure) performs as the smallest tier that holds it; instance store as its instance's device.
 */
import { VolbenchError } from '../errors.js';
import type { EntitledRate, Limit, ModelEntitlement, VolumeBurst } from '../fio-output/entitlement-section.js';
import { instanceType } from './catalog.js';
import type { VolumeTypeInfo } from './schema.js';
import { checkPlacement, instanceStoreOf } from './placement.js';
import type { Volume } from './volume.js';

export type { EntitledRate, Limit } from '../fio-output/entitlement-section.js';

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
   * (`entitled_merged`); `entitled` assumes they do not (O_DIRECT at low depth).
   */
  sequential?: boolean;
  /**
   * Reads, writes or both (default reads): where a type states them apart (GCP pd-standard,
   * instance store), a mix gets the two weighted by `rwmixread`.
   */
  direction?: Direction;
  /** A mix's reads, percent of its I/Os (fio's rwmixread; default 50). */
  rwmixread?: number;
  /**
   * Burst credits left, 0–1 of a full bucket (a new volume starts full). 0: the baseline only.
   * Undefined: full.
   */
  burstBalance?: number;
}

/**
 * The model's answer in the result's own shape (`volbench.jobs[].entitlement` without what the
 * job measured): `entitled`, `entitled_merged`, the counting, and the bursts.
 */
export type Entitlement = ModelEntitlement;

/** The rw values whose I/Os are sequential: the provider merges small ones up to its I/O size. */
export const SEQUENTIAL_RW: ReadonlySet<string> = new Set(['read', 'write', 'rw', 'readwrite', 'trim']);

export type Direction = 'read' | 'write' | 'mixed';

/** fio's rw as the direction of its I/Os (trims count as writes). */
export function directionOf(rw: string): Direction {
  if (['rw', 'readwrite', 'randrw', 'trimwrite', 'randtrimwrite'].includes(rw)) return 'mixed';
  if (['write', 'randwrite', 'trim', 'randtrim'].includes(rw)) return 'write';
  return 'read';
}

/**
 * A read and a write limit as one for the direction: a mix shares the device, each I/O taking
 * its direction's time, so the mix's rate is the harmonic mean weighted by its share of reads.
 */
function forDirection(read: number, write: number, q: Pick<EntitlementQuery, 'direction' | 'rwmixread'>): number {
  if (q.direction === 'write') return write;
  if (q.direction === 'mixed') {
    const reads = Math.min(100, Math.max(0, q.rwmixread ?? 50)) / 100;
    return 1 / (reads / read + (1 - reads) / write);
  }
  return read;
}

/** IOPS that scale with size: a base plus so many per GiB, between the type's min and max. */
function sizedIops(t: VolumeTypeInfo, sizeGiB: number, q: EntitlementQuery): number {
  const i = t.iops;
  const at = (perGib: number, max: number) => Math.min(max, Math.max(i.min ?? 0, (i.base ?? 0) + perGib * sizeGiB));
  const read = at(i.per_gib ?? 0, i.max);
  return i.write_per_gib === undefined && i.write_max === undefined ? read : forDirection(read, at(i.write_per_gib ?? i.per_gib ?? 0, i.write_max ?? i.max), q);
}

const KiB = 1024;
const round2 = (n: number) => Math.round(n * 100) / 100;
const MiB = 1024 * 1024;

/**
 * A volume's bucket: its levels and life from full, and what the job's rate is held against: a
 * bucket of `bucket` credits (counted I/Os, or MiB as charged) refilled at `refill` a second.
 */
interface Bucket extends Omit<VolumeBurst, 'seconds_at_job_rate'> {
  bucket: number;
  refill: number;
}

/** The volume's own limits for the job, before the instance's. */
interface VolumeLimits {
  iops: number;
  mibps: number;
  burst?: Bucket;
  /** The volume's bucket is empty: which of its limits fell to the baseline (false: none). */
  burstBinds: false | 'iops' | 'throughput' | 'both';
}

/** A tiered disk (Azure) performs as its tier, bursting on credits while they last. */
function tierLimits(tier: NonNullable<Volume['tier']>, t: VolumeTypeInfo, balance: number): VolumeLimits {
  const b = t.burst;
  const out: VolumeLimits = { iops: tier.iops, mibps: tier.throughput_mibps, burstBinds: false };
  if (b?.kind === 'credits' && tier.size_gib <= b.up_to_gib && tier.iops < b.iops) {
    const seconds = b.minutes * 60;
    out.burst = { level: b.iops, baseline: tier.iops, unit: 'IOPS', seconds_from_full: seconds, bucket: (b.iops - tier.iops) * seconds, refill: tier.iops };
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
      out.burst = { level: b.level, baseline, unit: 'IOPS', seconds_from_full: Math.round(b.bucket / (b.level - refill)), bucket: b.bucket, refill };
      if (balance > 0) out.iops = b.level;
      else out.burstBinds = 'iops';
    }
  } else if (t.iops.provisioned) {
    out.iops = spec.provisionedIops ?? t.iops.max;
    // io1 and io2 deliver more than 32,000 IOPS only to instances built on Nitro.
    if (t.iops.non_nitro_max !== undefined && q.instance && instanceType(q.instance).hypervisor === 'xen') out.iops = Math.min(out.iops, t.iops.non_nitro_max);
  } else if (t.iops.per_mibps !== undefined) {
    // Hyperdisk Throughput: IOPS come with the provisioned throughput.
    out.iops = Math.min(t.iops.max, t.iops.per_mibps * (spec.provisionedThroughputMiBps ?? 0));
  } else if (t.iops.per_gib !== undefined) {
    out.iops = sizedIops(t, spec.sizeGiB, q);
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
        const bucket = b.bucket_mib_per_tib * tib;
        out.burst = { level: round2(level), baseline: round2(base), unit: 'MiB/s', seconds_from_full: Math.round(bucket / (level - base)), bucket, refill: base };
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
    out.mibps = tp.write_max === undefined ? at(tp.max) : forDirection(at(tp.max), at(tp.write_max), q);
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
    return { iops: forDirection(store.random_read_iops_4k, store.write_iops_4k, q) / store.devices, mibps: Infinity, burstBinds: false };
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

/** How many of the provider's counted I/Os one I/O of `bs` bytes is: a fraction where small sequential ones merge. */
export function countedPerIo(t: VolumeTypeInfo, bs: number, merged: boolean): number {
  const countedBytes = t.io_size_kib * KiB;
  return merged && bs < countedBytes ? bs / countedBytes : Math.max(1, Math.ceil(bs / countedBytes));
}

/** The bytes an I/O of `bs` spends of the throughput limit and its credits: HDD charges an unmerged small I/O whole. */
function chargedBytes(t: VolumeTypeInfo, bs: number, merged: boolean): number {
  const countedBytes = t.io_size_kib * KiB;
  return t.small_io_charged_whole && !(merged && bs < countedBytes) ? countedPerIo(t, bs, merged) * countedBytes : bs;
}

/** The volume's own limit for I/O of `bs`: IOPS or throughput, an exact tie going to throughput on HDD. */
function volumeRate(t: VolumeTypeInfo, limits: VolumeLimits, bs: number, merged: boolean): { iops: number; bound: Limit } {
  const byIops = limits.iops / countedPerIo(t, bs, merged);
  const byThroughput = (limits.mibps * MiB) / chargedBytes(t, bs, merged);
  // A disk's I/Os of its counted size are as many as its MiB/s allow: the bytes bind.
  const iopsBind = t.media === 'hdd' ? byIops < byThroughput : byIops <= byThroughput;
  let bound: Limit = iopsBind ? 'volume-iops' : 'volume-throughput';
  // An empty bucket names the limit only where the bucket lowered it: gp2 600 GiB at 256 KiB is
  // held by its 250 MiB/s with or without credits.
  const lowered = limits.burstBinds === 'both' || (limits.burstBinds === 'iops' ? bound === 'volume-iops' : limits.burstBinds === 'throughput' && bound === 'volume-throughput');
  if (lowered) bound = 'burst-credits';
  return { iops: Math.min(byIops, byThroughput), bound };
}

/**
 * The job's rate under the volume's limits and, given one, the instance's: I/Os are counted in
 * the provider's size (merged or not), and the instance's bandwidth sees the job's own bytes.
 */
function rate(t: VolumeTypeInfo, limits: VolumeLimits, bs: number, merged: boolean, inst: InstanceRate | undefined, spent: boolean): EntitledRate {
  let { iops, bound } = volumeRate(t, limits, bs, merged);
  if (inst) {
    // The instance counts what EBS counts: merged small sequential I/O is one I/O per counted size.
    const perIo = countedPerIo(t, bs, merged);
    const instIops = inst.iops / (perIo < 1 ? perIo : 1);
    if (instIops < iops) {
      iops = instIops;
      bound = spent ? 'instance-burst' : 'instance-iops';
    }
    if (inst.bytes / bs < iops) {
      iops = inst.bytes / bs;
      bound = spent ? 'instance-burst' : 'instance-bandwidth';
    }
  }
  return { iops: round2(iops), mibps: round2((iops * bs) / MiB), bound_by: bound };
}

/**
 * A bucket's life at the job's entitled rate: it drains at what the job spends (counted I/Os, or
 * MiB as charged) above the refill; null where the job's rate does not drain it.
 */
function burstAtRate(t: VolumeTypeInfo, b: Bucket, entitled: EntitledRate, bs: number): VolumeBurst {
  const { bucket, refill, ...levels } = b;
  const spent = b.unit === 'IOPS' ? entitled.iops * countedPerIo(t, bs, false) : (entitled.iops * chargedBytes(t, bs, false)) / MiB;
  const drains = spent > b.baseline && spent > refill;
  return { ...levels, seconds_at_job_rate: drains ? Math.round(bucket / (spent - refill)) : null };
}

/** What `volume` should deliver to I/O of `q.bs`, in the result's own shape. */
export function entitlement(volume: Volume, q: EntitlementQuery): Entitlement {
  checkPlacement(volume, q.instance);
  const t = volume.catalog;
  const limits = volumeLimits(volume, q);
  // An instance's EBS limits bound EBS volumes; instance store is not behind them.
  const ebsInstance = q.instance && !t.from_instance ? q.instance : undefined;
  const burstLeft = q.instanceBurst ?? true;
  const daily = ebsInstance ? instanceType(ebsInstance).ebs.burst : undefined;
  const inst = ebsInstance ? instanceRate(ebsInstance, burstLeft) : undefined;
  // Only an instance that bursts has a burst to have spent.
  const at = (merged: boolean, r = inst, spent = !burstLeft && daily !== undefined) => rate(t, limits, q.bs, merged && q.sequential === true, r, spent);
  const entitled = at(false);
  let instanceBurst: Entitlement['instance_burst'];
  if (ebsInstance && daily && burstLeft) {
    const after = at(false, instanceRate(ebsInstance, false), true);
    if (after.iops < entitled.iops) instanceBurst = { after_s: daily.minutes_per_day * 60, iops: after.iops, mibps: after.mibps, bound_by: 'instance-burst' };
  }
  return {
    entitled,
    entitled_merged: at(true),
    counted_io_kib: t.io_size_kib,
    counted_per_io: countedPerIo(t, q.bs, false),
    ...(instanceBurst ? { instance_burst: instanceBurst } : {}),
    ...(limits.burst ? { burst: burstAtRate(t, limits.burst, entitled, q.bs) } : {}),
  };
}
