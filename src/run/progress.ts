/**
 * Progress of a whole run, built from the engine's per-instance reports: what the CLI's status
 * line and the HTTP service's events show.
 */
import type { NativeJobPlan, NativeProgress } from '../engine/native-types.js';

export interface DirectionRate {
  iops: number;
  bw_bytes: number;
  clat_mean_ns: number;
  clat_p99_ns: number;
}

export interface RunProgress {
  /** Stonewall stage running now (0-based) and how many there are. */
  stage: number;
  stages: number;
  elapsedMs: number;
  /** Share of the current stage done, 0..1, from runtime or bytes. */
  fraction: number;
  /** Estimated ms until the current stage ends, or null when unknown. */
  etaMs: number | null;
  runningJobs: number;
  /** Rates over the last second, summed over instances. */
  read: DirectionRate;
  write: DirectionRate;
  trim: DirectionRate;
  instances: NativeProgress[];
}

function zero(): DirectionRate {
  return { iops: 0, bw_bytes: 0, clat_mean_ns: 0, clat_p99_ns: 0 };
}

function instanceFraction(plan: NativeJobPlan, p: NativeProgress): number {
  if (p.phase === 'done') return 1;
  if (plan.timeBased || (plan.runtimeNs > 0 && plan.ioBytesPerLoop === 0)) {
    return plan.runtimeNs > 0 ? Math.min(1, p.elapsedMs / (plan.runtimeNs / 1e6)) : 0;
  }
  const total = plan.ioBytesPerLoop * plan.loops;
  const done = p.bytes[0] + p.bytes[1] + p.bytes[2];
  const bySize = total > 0 ? done / total : 0;
  const byTime = plan.runtimeNs > 0 ? p.elapsedMs / (plan.runtimeNs / 1e6) : 0;
  return Math.min(1, Math.max(bySize, byTime));
}

export function summarizeProgress(
  plans: NativeJobPlan[],
  reports: NativeProgress[],
  stage: number,
  stages: number,
  stageStartedAt: number,
): RunProgress {
  const dirs = [zero(), zero(), zero()];
  const meanWeight = [0, 0, 0];
  let fraction = 0;
  let running = 0;
  reports.forEach((p, i) => {
    if (p.phase !== 'done') running++;
    fraction += instanceFraction(plans[i], p) / reports.length;
    const last = p.last;
    if (!last || last.durMs <= 0) return;
    last.dirs.forEach((s, d) => {
      const scale = 1000 / last.durMs;
      dirs[d].iops += s.ios * scale;
      dirs[d].bw_bytes += s.bytes * scale;
      dirs[d].clat_mean_ns += s.clatMeanNs * s.ios;
      meanWeight[d] += s.ios;
      // Instances' p99s combine into an upper bound of the run's p99: the largest.
      dirs[d].clat_p99_ns = Math.max(dirs[d].clat_p99_ns, s.clatP99Ns);
    });
  });
  dirs.forEach((d, i) => {
    d.clat_mean_ns = meanWeight[i] ? d.clat_mean_ns / meanWeight[i] : 0;
    d.iops = Math.round(d.iops);
    d.bw_bytes = Math.round(d.bw_bytes);
  });
  const elapsedMs = Date.now() - stageStartedAt;
  const etaMs = fraction > 0.01 ? Math.max(0, Math.round((elapsedMs * (1 - fraction)) / fraction)) : null;
  return {
    stage,
    stages,
    elapsedMs,
    fraction,
    etaMs,
    runningJobs: running,
    read: dirs[0],
    write: dirs[1],
    trim: dirs[2],
    instances: reports,
  };
}
