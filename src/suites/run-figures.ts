/**
 * A run's headline figures, for a line or a table row as each run of a suite ends: its IOPS
 * summed over its jobs and directions, and the highest p99 completion latency among them.
 */
import type { FioDirStats, FioResult } from '../fio-output/fio-result.js';
import { directionsWithIo, latencyPercentile } from '../gates/metrics.js';

export interface RunFigures {
  iops: number;
  /** The highest p99 clat of the run's jobs and directions, ns; null when none did I/O. */
  p99Ns: number | null;
  /** Whether it ended cleanly: not cancelled, no job with an error. */
  clean: boolean;
}

export function runFigures(result: FioResult): RunFigures {
  let iops = 0;
  let p99Ns: number | null = null;
  for (const job of result.jobs) {
    // unified_rw_reporting=both adds a mixed entry summing the others: counted once.
    const dirs = directionsWithIo(job);
    for (const dir of dirs.length > 1 ? dirs.filter((d) => d !== 'mixed') : dirs) {
      const s = job[dir] as FioDirStats;
      iops += s.iops;
      const p99 = latencyPercentile(s.clat_ns, 99);
      if (p99 !== null) p99Ns = Math.max(p99Ns ?? 0, p99);
    }
  }
  const clean = result.jobs.every((j) => j.error === 0) && result.volbench.jobs.every((j) => !j.cancelled);
  return { iops, p99Ns, clean };
}
