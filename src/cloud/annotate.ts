/**
 * A result with what the volume behind it should have delivered: `volbench.cloud` (the volume
 * and instance) and, per job, `volbench.jobs[].entitlement` (expected IOPS and bandwidth at the
 * job's I/O size and pattern, measured / expected, and what bound it). A job far under a limit
 * with too few I/Os in flight to reach it is bound by `latency`, with the depth that would reach
 * it (IOPS × latency, Little's law). With the region known, `volbench.cloud.price` is the
 * volume's monthly price from the prices in use. The burst analysis of each job's series is made
 * again against the volume's burst model.
 */
import { VolbenchError } from '../errors.js';
import type { FioResult, VolbenchEntitlement } from '../report/fio-result.js';
import { analyseBurst } from '../findings/burst.js';
import { instanceType } from './catalog.js';
import { directionOf, entitlement, SEQUENTIAL_RW } from './entitlement.js';
import { priceVolume } from './price.js';
import { checkVolume, provisionedIops, provisionedThroughput, type VolumeSpec } from './volume.js';

export interface CloudContext {
  volume: VolumeSpec;
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

export function withCloud(result: FioResult, ctx: CloudContext): FioResult {
  const t = checkVolume(ctx.volume);
  if (ctx.instance) instanceType(ctx.instance);
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
    const e = entitlement(ctx.volume, { bs, sequential: SEQUENTIAL_RW.has(rw), direction: directionOf(rw), instance: ctx.instance });
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
    };
    return { ...vj, entitlement: ent };
  });
  const cloud = {
    provider: t.provider,
    ...(ctx.region ? { region: ctx.region } : {}),
    ...(ctx.availabilityZone ? { availability_zone: ctx.availabilityZone } : {}),
    ...(ctx.instance ?? ctx.instanceType ? { instance_type: ctx.instance ?? ctx.instanceType } : {}),
    volume: {
      ...(ctx.volumeId ?? result.volbench.cloud?.volume?.id ? { id: ctx.volumeId ?? result.volbench.cloud?.volume?.id } : {}),
      type: t.type,
      size_gib: ctx.volume.sizeGiB,
      ...(provisionedIops(ctx.volume, t) !== undefined ? { iops: provisionedIops(ctx.volume, t) } : {}),
      ...(provisionedThroughput(ctx.volume, t) !== undefined ? { throughput_mibps: provisionedThroughput(ctx.volume, t) } : {}),
    },
  };
  const price = ctx.region ? priceIn(ctx.volume, ctx.region) : undefined;
  const annotated = { ...result, volbench: { ...result.volbench, cloud: { ...result.volbench.cloud, ...cloud, ...(price ? { price } : {}) }, jobs } };
  // The burst analysis again, now against the volume's burst model.
  return analyseBurst(annotated, { volume: ctx.volume });
}

/** The monthly price where the prices in use have the region; none (not an error) where not. */
function priceIn(volume: VolumeSpec, region: string): { usd_per_month: number; as_of: string; source: string } | undefined {
  try {
    const p = priceVolume(volume, region);
    return { usd_per_month: p.total, as_of: p.as_of, source: p.source };
  } catch (err) {
    if (err instanceof VolbenchError) return undefined;
    throw err;
  }
}
