/**
 * The cloud facts of a result: `volbench.cloud` (the volume and instance) and, per job,
 * `volbench.jobs[].entitlement` (expected IOPS and bandwidth at the job's I/O size and pattern,
 * measured / expected, and what bound it). A job far under a limit with too few I/Os in flight
 * to reach it is bound by `latency`, with the depth that would reach it (IOPS × latency,
 * Little's law). With the region known, `volbench.cloud.price` is the volume's monthly price
 * from the prices in use. The findings held against the volume's model come after, in the run's
 * finishing step (run/finish.ts).
 */
import type { FioResult, VolbenchEntitlement } from '../fio-output/fio-result.js';
import { costBasis, volumeMonthly } from './cost.js';
import { directionOf, entitlement, SEQUENTIAL_RW } from './entitlement.js';
import { checkPlacement } from './placement.js';
import type { Volume } from './volume.js';

export interface CloudContext {
  /** The volume (plain figures are checked once, when the run is planned: pass a Volume). */
  volume: Volume;
  /** The instance type whose EBS limits bound the entitlement (one in the catalog). */
  instance?: string;
  /** The instance type to report when the catalog lacks its limits (the volume alone bounds). */
  instanceType?: string;
  region?: string;
  availabilityZone?: string;
  /** vol-…, when the volume was recognised. */
  volumeId?: string;
}

/** Under this share of the expected IOPS, a job with too few I/Os in flight is latency-bound. */
const LATENCY_BOUND_BELOW = 0.8;

interface Dir { iops?: number; bw_bytes?: number; total_ios?: number; io_bytes?: number; clat_ns?: { mean?: number }; lat_ns?: { mean?: number } }

/** The result with `volbench.cloud` and each job's entitlement on `ctx.volume`. */
export function cloudFacts(result: FioResult, ctx: CloudContext): FioResult {
  const volume = ctx.volume;
  checkPlacement(volume, ctx.instance);
  const jobs = result.volbench.jobs.map((vj, i) => {
    const job = result.jobs[i] as unknown as { read: Dir; write: Dir; trim: Dir; 'job options'?: Record<string, string> };
    const dirs = [job.read, job.write, job.trim].filter((d) => (d?.total_ios ?? 0) > 0);
    const ios = dirs.reduce((s, d) => s + (d.total_ios ?? 0), 0);
    if (ios === 0) return vj;
    const bytes = dirs.reduce((s, d) => s + (d.io_bytes ?? 0), 0);
    const measuredIops = dirs.reduce((s, d) => s + (d.iops ?? 0), 0);
    const measuredBw = dirs.reduce((s, d) => s + (d.bw_bytes ?? 0), 0);
    const bs = Math.max(1, Math.round(bytes / ios));
    const rw = job['job options']?.rw ?? job['job options']?.readwrite ?? 'read';
    const e = entitlement(volume, { bs, sequential: SEQUENTIAL_RW.has(rw), direction: directionOf(rw), instance: ctx.instance });
    const ratio = e.iops > 0 ? measuredIops / e.iops : 0;
    const latNs = dirs.reduce((s, d) => s + (d.lat_ns?.mean ?? d.clat_ns?.mean ?? 0) * (d.total_ios ?? 0), 0) / ios;
    const depth = Number(job['job options']?.iodepth ?? 1) * (vj.members || 1);
    const needed = (e.iops * latNs) / 1e9;
    const latencyBound = ratio < LATENCY_BOUND_BELOW && needed > depth;
    const ent: VolbenchEntitlement = {
      bs,
      expected_iops: e.iops,
      expected_bw_bytes: Math.round(e.iops * bs),
      measured_iops: measuredIops,
      measured_bw_bytes: measuredBw,
      ratio: Math.round(ratio * 1000) / 1000,
      bound_by: latencyBound ? 'latency' : e.bound_by,
      ...(latencyBound ? { depth_needed: Math.ceil(needed) } : {}),
      entitled: { iops: e.iops, mibps: e.throughputMiBps, bound_by: e.bound_by },
      entitled_merged: { iops: e.merged.iops, mibps: e.merged.throughputMiBps, bound_by: e.merged.bound_by },
      measured_vs_entitled: Math.round(ratio * 1000) / 1000,
      counted_io_kib: e.counted_io_kib,
      counted_per_io: e.counted_per_io,
      ...(e.instance_burst ? {
        instance_burst: { after_s: e.instance_burst.seconds, iops: e.instance_burst.iops, mibps: e.instance_burst.throughputMiBps, bound_by: 'instance-burst' as const },
      } : {}),
    };
    return { ...vj, entitlement: ent };
  });
  const cloud = {
    provider: volume.provider,
    ...(ctx.region ? { region: ctx.region } : {}),
    ...(ctx.availabilityZone ? { availability_zone: ctx.availabilityZone } : {}),
    ...(ctx.instance ?? ctx.instanceType ? { instance_type: ctx.instance ?? ctx.instanceType } : {}),
    volume: {
      ...(ctx.volumeId ?? result.volbench.cloud?.volume?.id ? { id: ctx.volumeId ?? result.volbench.cloud?.volume?.id } : {}),
      ...volume.json(),
    },
  };
  // The monthly price where the prices in use have the region; none (not an error) where not.
  const p = ctx.region ? volumeMonthly(volume, ctx.region) : undefined;
  // A volume's price is a month's: its scope is the volume, on AWS's 730-hour month.
  const price = p ? { usd_per_month: p.usd, as_of: p.as_of, source: p.source, ...(p.confidence ? { confidence: p.confidence } : {}), cost_scope: 'volume' as const, basis: costBasis('730h') } : undefined;
  return { ...result, volbench: { ...result.volbench, cloud: { ...result.volbench.cloud, ...cloud, ...(price ? { price } : {}) }, jobs } };
}
