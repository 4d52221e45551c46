/**
 * Which limit bound a job. Where the volume says (its NVMe statistics page: the share of the
 * job's time that demand exceeded each limit), the limit it exceeded most of the time is the
 * answer, and the model's is kept beside it. Otherwise the model answers:
 *
 * - at (or near) its entitlement, the job met the limit the model names;
 * - short of it, a cause the job or the model explains: the job's own rate caps; `latency`,
 *   only when its latency is near the volume's unloaded latency and its depth is too low for
 *   the entitled rate (with the queue full, measured IOPS ≈ depth / latency for any limit, so
 *   a shortfall alone says nothing about latency); the instance's daily EBS burst spent; the
 *   volume's bucket empty;
 * - else `below-entitlement`: nothing measured or modelled explains it.
 */
import type { VolbenchEbsStats } from '../fio-output/ebs-stats-section.js';
import type { BoundBy, BoundBySource, EntitledRate, Limit, ModelEntitlement } from '../fio-output/entitlement-section.js';
import type { JobShape } from './job-shape.js';

/** Under this share of its entitlement a job is short of it, and the limit alone does not explain it. */
export const SHORT_OF_ENTITLED = 0.8;
/** A latency at most this many times the volume's unloaded latency is near it. */
export const LATENCY_NEAR = 2;
/** A limit the statistics say was exceeded for at least this share of the job's time bound it. */
export const MEASURED_BINDS = 0.5;
/** A measured rate within this band of a lower rate the model names (an empty bucket, a spent burst) is explained by it. */
const EXPLAINED = { low: 0.8, high: 1.1 } as const;

export interface BindingFacts {
  /** The entitlement the volume was held to (scaled on an emulated volume). */
  entitlement: ModelEntitlement;
  /** For a volume that bursts: its rate with an empty bucket, scaled alike. */
  emptyBucket?: EntitledRate;
  job: JobShape;
  /** The volume type's unloaded latency, µs (the catalog's), when it states one. */
  unloadedUs?: number;
  ebs?: VolbenchEbsStats;
}

export interface Binding {
  bound_by: BoundBy;
  bound_by_source: BoundBySource;
  bound_by_model?: BoundBy;
  depth_needed?: number;
}

const explains = (measured: number, rate: number | undefined): boolean =>
  rate !== undefined && rate > 0 && measured >= EXPLAINED.low * rate && measured <= EXPLAINED.high * rate;

/** The model's answer (without the volume's statistics). */
export function modelBinding(f: BindingFacts): Pick<Binding, 'bound_by' | 'depth_needed'> {
  const { entitled, instance_burst: afterBurst } = f.entitlement;
  const measured = f.job.measuredIops;
  const asked = f.job.askedIops;
  if (asked !== undefined && asked < entitled.iops && measured >= EXPLAINED.low * asked) return { bound_by: 'job-rate' };
  if (entitled.iops > 0 && measured >= SHORT_OF_ENTITLED * entitled.iops) return { bound_by: entitled.bound_by };
  const latencyS = f.job.latencyNs / 1e9;
  const needed = entitled.iops * latencyS;
  const nearUnloaded = f.unloadedUs !== undefined && latencyS > 0 && latencyS * 1e6 <= LATENCY_NEAR * f.unloadedUs;
  if (nearUnloaded && needed > f.job.depth) return { bound_by: 'latency', depth_needed: Math.ceil(needed) };
  if (explains(measured, afterBurst?.iops)) return { bound_by: 'instance-burst' };
  if (f.emptyBucket && f.emptyBucket.iops < entitled.iops && explains(measured, f.emptyBucket.iops)) return { bound_by: 'burst-credits' };
  return { bound_by: 'below-entitlement' };
}

type Exceeded = keyof VolbenchEbsStats['exceeded_share'];

/** The statistics page's limits as the model names them. */
const LIMIT_OF: Readonly<Record<Exceeded, Limit>> = {
  volume_iops: 'volume-iops', volume_throughput: 'volume-throughput', instance_iops: 'instance-iops', instance_throughput: 'instance-bandwidth',
};

/** The limit the page says was exceeded most of the job's time, named as the model would (an empty bucket, a spent burst). */
function measuredLimit(ebs: VolbenchEbsStats, model: BoundBy): Limit | undefined {
  const shares = Object.entries(ebs.exceeded_share) as Array<[Exceeded, number]>;
  const [key, share] = shares.reduce((a, b) => (b[1] > a[1] ? b : a));
  if (!(share >= MEASURED_BINDS)) return undefined;
  // The page knows the volume's and the instance's limits as they stand: what lowered them is the model's to say.
  if (model === 'burst-credits' && key.startsWith('volume_')) return 'burst-credits';
  if (model === 'instance-burst' && key.startsWith('instance_')) return 'instance-burst';
  return LIMIT_OF[key];
}

/** What bound the job: measured where the statistics say, else modelled. */
export function bindingOf(f: BindingFacts): Binding {
  const model = modelBinding(f);
  const measured = f.ebs ? measuredLimit(f.ebs, model.bound_by) : undefined;
  if (measured === undefined) return { ...model, bound_by_source: 'model' };
  return { bound_by: measured, bound_by_source: 'ebs-stats', bound_by_model: model.bound_by };
}
