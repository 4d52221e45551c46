/**
 * Progress of a whole run, built from the engine's per-instance reports: what the CLI's status
 * line and the HTTP service's events show.
 */
import type { NativeJobPlan, NativeProgress } from '../engine/native-types.js';
import { jobFraction, stageLeftMs, type FileLayout } from './eta.js';
import { runString } from './status-chars.js';

export type { FileLayout } from './eta.js';

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
  /** Ms until the current stage ends (its layout, then what each job has left), or null when unknown. */
  etaMs: number | null;
  runningJobs: number;
  /** fio's status string: a character per job instance (r, W, m, / for a ramp, _ once done, ...). */
  status: string;
  /** The stage's file layouts so far, each file once; empty when it lays out none. */
  layouts: FileLayout[];
  /** The stage is laying out its files: its jobs wait. */
  layingOut: boolean;
  /** Rates over the last second, summed over instances. */
  read: DirectionRate;
  write: DirectionRate;
  trim: DirectionRate;
  instances: NativeProgress[];
}

function zero(): DirectionRate {
  return { iops: 0, bw_bytes: 0, clat_mean_ns: 0, clat_p99_ns: 0 };
}

/** Each laid-out file once, as the engine reports it on every job of the file. */
function layoutsOf(plans: readonly NativeJobPlan[], reports: readonly NativeProgress[]): FileLayout[] {
  const seen = new Map<string, FileLayout>();
  reports.forEach((p, i) => {
    if (p.layout && !seen.has(plans[i].path)) seen.set(plans[i].path, { path: plans[i].path, ...p.layout });
  });
  return [...seen.values()];
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
    fraction += jobFraction(plans[i], p) / reports.length;
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
  const layouts = layoutsOf(plans, reports);
  return {
    stage,
    stages,
    elapsedMs: Date.now() - stageStartedAt,
    fraction,
    etaMs: stageLeftMs(plans, reports, layouts),
    runningJobs: running,
    status: runString(plans, reports),
    layouts,
    layingOut: reports.some((p) => p.phase === 'layout'),
    read: dirs[0],
    write: dirs[1],
    trim: dirs[2],
    instances: reports,
  };
}
