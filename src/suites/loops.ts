/**
 * A suite test run several times (KDiskMark's loops): which run to keep, and the figures of
 * every run with their median.
 *
 * The kept run is the one that moved the most bytes per second over all of its entries and
 * directions. Within one test the block size is fixed, so that is also the run with the most
 * IOPS; KDiskMark keeps the best bandwidth and IOPS the same way. Runs that ended with an error
 * or were cancelled are kept only when no run finished cleanly.
 */
import type { FioDirStats, FioJob, FioResult, VolbenchJobLoops, VolbenchLoopDir, VolbenchLoopValues } from '../fio-output/fio-result.js';
import { latencyPercentile } from '../gates/metrics.js';

type LoopDirection = 'read' | 'write' | 'trim';
const LOOP_DIRECTIONS: readonly LoopDirection[] = ['read', 'write', 'trim'];

function clean(result: FioResult): boolean {
  return result.jobs.every((j) => j.error === 0) && result.volbench.jobs.every((j) => !j.cancelled);
}

function bytesPerSecond(result: FioResult): number {
  let sum = 0;
  for (const job of result.jobs) for (const d of [...LOOP_DIRECTIONS, 'mixed'] as const) sum += job[d]?.bw_bytes ?? 0;
  return sum;
}

/** Index of the run to keep. */
export function bestLoop(results: readonly FioResult[]): number {
  let best = 0;
  for (let i = 1; i < results.length; i++) {
    const [a, b] = [results[i], results[best]];
    if (clean(a) !== clean(b)) {
      if (clean(a)) best = i;
    } else if (bytesPerSecond(a) > bytesPerSecond(b)) {
      best = i;
    }
  }
  return best;
}

function loopDir(stats: FioDirStats): VolbenchLoopDir {
  return {
    iops: stats.iops,
    bw_bytes: stats.bw_bytes,
    clat_mean_ns: stats.clat_ns.mean,
    clat_p99_ns: latencyPercentile(stats.clat_ns, 99) ?? 0,
    lat_mean_ns: stats.lat_ns.mean,
  };
}

/** One entry's figures in one run, for the directions that did I/O. */
export function loopValues(entry: FioJob, loop: number): VolbenchLoopValues {
  const values: VolbenchLoopValues = { loop };
  for (const d of LOOP_DIRECTIONS) {
    const stats = entry[d];
    if (stats && stats.total_ios > 0) values[d] = loopDir(stats);
  }
  return values;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

function medianDir(dirs: VolbenchLoopDir[]): VolbenchLoopDir {
  const of = (k: keyof VolbenchLoopDir): number => median(dirs.map((d) => d[k]));
  return { iops: of('iops'), bw_bytes: of('bw_bytes'), clat_mean_ns: of('clat_mean_ns'), clat_p99_ns: of('clat_p99_ns'), lat_mean_ns: of('lat_mean_ns') };
}

/** The loops record of one entry: every run's figures, their median, the kept run. */
export function jobLoops(values: VolbenchLoopValues[], best: number): VolbenchJobLoops {
  const med: VolbenchJobLoops['median'] = {};
  for (const d of LOOP_DIRECTIONS) {
    const dirs = values.flatMap((v) => (v[d] ? [v[d]] : []));
    if (dirs.length) med[d] = medianDir(dirs);
  }
  return { count: values.length, best: best + 1, median: med, values };
}
