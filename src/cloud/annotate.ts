/**
 * The cloud facts of a result: `volbench.cloud` (the volume, the instance, an emulated volume's
 * scale) and, per job, `volbench.jobs[].entitlement` (job-entitlement.ts: what the volume should
 * deliver at the job's I/O size, pattern and mix, measured against it, and what bound it, from
 * the volume's own statistics where the job carries them). With the region known,
 * `volbench.cloud.price` is the volume's monthly price from the prices in use. The findings held
 * against the volume's model come after, in the run's finishing step (run/finish.ts).
 */
import type { VolbenchEmulation } from '../fio-output/ebs-stats-section.js';
import type { FioResult } from '../fio-output/fio-result.js';
import { costBasis, volumeMonthly } from './cost.js';
import { jobEntitlement } from './job-entitlement.js';
import { jobShape } from './job-shape.js';
import { checkPlacement } from './placement.js';
import type { Volume } from './volume.js';

export interface CloudContext {
  /** The volume, checked once when the run was planned. */
  volume: Volume;
  /** The instance type whose EBS limits bound the entitlement (one in the catalog). */
  instance?: string;
  /** The instance type to report when the catalog lacks its limits (the volume alone bounds). */
  instanceType?: string;
  region?: string;
  availabilityZone?: string;
  /** vol-…, when the volume was recognised. */
  volumeId?: string;
  /** An emulated volume's scale (a rehearsal); default: what the result already says (`volbench.cloud.emulation`). */
  emulation?: VolbenchEmulation;
}

/** The result with `volbench.cloud` and each job's entitlement on `ctx.volume`. */
export function cloudFacts(result: FioResult, ctx: CloudContext): FioResult {
  const volume = ctx.volume;
  checkPlacement(volume, ctx.instance);
  const emulation = ctx.emulation ?? result.volbench.cloud?.emulation;
  const jobs = result.volbench.jobs.map((vj, i) => {
    const shape = jobShape(result, i);
    if (!shape) return vj;
    const facts = { ...(ctx.instance ? { instance: ctx.instance } : {}), ...(vj.ebs_stats ? { ebs: vj.ebs_stats } : {}), ...(emulation ? { emulation } : {}) };
    return { ...vj, entitlement: jobEntitlement(volume, shape, facts) };
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
    ...(emulation ? { emulation } : {}),
  };
  // The monthly price where the prices in use have the region; none (not an error) where not.
  const p = ctx.region ? volumeMonthly(volume, ctx.region) : undefined;
  // A volume's price is a month's: its scope is the volume, on AWS's 730-hour month.
  const price = p ? { usd_per_month: p.usd, as_of: p.as_of, source: p.source, ...(p.confidence ? { confidence: p.confidence } : {}), cost_scope: 'volume' as const, basis: costBasis('730h') } : undefined;
  return { ...result, volbench: { ...result.volbench, cloud: { ...result.volbench.cloud, ...cloud, ...(price ? { price } : {}) }, jobs } };
}
