/**
 * An analysis makes several runs (a sweep point, a batch of probes), folded into one fio
 * document as a suite's are (fio-output/fold.ts), each run's groups numbered after the previous
 * run's; and what the analyses read from the runs.
 */
import { VolbenchError } from '../errors.js';
import type { PlanOptions } from '../plan/index.js';
import type { FioJob, FioResult } from '../fio-output/fio-result.js';
import { foldRuns, groupBasesInOrder } from '../fio-output/fold.js';
import { directionsWithIo, latencyPercentile, type DataDirection } from '../gates/metrics.js';
import { HIST_BUCKETS, bucketIndex, percentiles } from '../fio-output/histogram.js';

export interface AnalysisRun {
  result: FioResult;
  /** Wall time of the run, to weigh its disk utilisation. */
  durationMs: number;
}

/** One fio document for all the runs, one after another. `runs` must not be empty. */
export function mergeRuns(runs: readonly AnalysisRun[]): FioResult {
  const bases = groupBasesInOrder(runs.map((r) => r.result));
  return foldRuns(runs.map((r, i) => ({ ...r, groupBase: bases[i] })));
}

/** Whether a run was cut short by its signal. */
export function interrupted(result: FioResult): boolean {
  return result.volbench.jobs.some((j) => j.cancelled);
}

/** The first job error of a run, as `job: message`, or null when every job ran clean. */
export function runError(result: FioResult): string | null {
  const at = result.jobs.findIndex((j) => j.error !== 0);
  if (at < 0) return null;
  const vj = result.volbench.jobs[at];
  return `job ${result.jobs[at].jobname}: ${vj?.error_message || `error ${result.jobs[at].error}`}`;
}

/** What one job entry did over all its data directions: IOPS, bandwidth and completion latency. */
export interface EntryFigures {
  iops: number;
  bw_bytes: number;
  io_bytes: number;
  clat_mean_ns: number;
  clat_p50_ns: number;
  clat_p99_ns: number;
  clat_p999_ns: number;
}

/**
 * IOPS and bandwidth summed over the entry's directions; completion latency over all their I/Os
 * (their histograms merged), so a mixed workload's percentiles are those of every I/O it did.
 */
export function entryFigures(job: FioJob): EntryFigures {
  const withIo = directionsWithIo(job);
  const dirs: DataDirection[] = withIo.length > 1 ? withIo.filter((d) => d !== 'mixed') : withIo;
  const stats = dirs.map((d) => job[d]!);
  const n = stats.reduce((s, d) => s + d.clat_ns.N, 0);
  const hist = new Float64Array(HIST_BUCKETS);
  let binned = true;
  for (const d of stats) {
    if (!d.clat_ns.bins) binned = false;
    for (const [value, count] of Object.entries(d.clat_ns.bins ?? {})) hist[bucketIndex(Number(value))] += count;
  }
  let p: number[];
  if (binned && n > 0) {
    p = percentiles(hist, n, [50, 99, 99.9]);
  } else {
    // Without bins (real fio's json): the busiest direction's own percentiles.
    const main = [...stats].sort((a, b) => b.clat_ns.N - a.clat_ns.N)[0];
    p = [50, 99, 99.9].map((q) => (main ? (latencyPercentile(main.clat_ns, q) ?? 0) : 0));
  }
  return {
    iops: stats.reduce((s, d) => s + d.iops, 0),
    bw_bytes: stats.reduce((s, d) => s + d.bw_bytes, 0),
    io_bytes: stats.reduce((s, d) => s + d.io_bytes, 0),
    clat_mean_ns: n > 0 ? stats.reduce((s, d) => s + d.clat_ns.mean * d.clat_ns.N, 0) / n : 0,
    clat_p50_ns: p[0],
    clat_p99_ns: p[1],
    clat_p999_ns: p[2],
  };
}

/**
 * An analysis of one file or device must be told which: a filename, or the caller's default
 * target when that is one (a job without a filename would use a file named after each job).
 */
export function checkNamedTarget(options: PlanOptions & { filename?: string }, analysis: string): void {
  if (options.filename !== undefined || (options.defaultTarget !== undefined && 'filename' in options.defaultTarget)) return;
  throw new VolbenchError('EINVALID_ARGS', `${analysis} needs a filename: the file or block device to measure`, {
    field: 'filename', accepted: 'a file or block device path',
  });
}
