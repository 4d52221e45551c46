/**
 * Folding several runs into one fio document, as a suite (a test at a time) and an analysis (a
 * sweep point, a batch of probes) both do: the runs' job entries in order with their group ids
 * moved to where the runs sit in the whole, one target list, one disk_util over all the runs,
 * one job file of every run's jobs, and the rest of the first run's document.
 */
import { mergedJobFile, withJobFile } from './job-file.js';
import type { FioJob, FioResult, VolbenchJob, VolbenchSection, VolbenchTarget } from './fio-result.js';
import type { DiskUtil } from './types.js';

export interface FoldRun {
  result: FioResult;
  /** Wall time of the run, to weigh its disk utilisation. */
  durationMs: number;
  /** Added to every group id of the run: where its first group sits in the whole document. */
  groupBase: number;
  /** What the run's k-th volbench job entry gains (a suite's loop figures). */
  jobExtras?: (vj: VolbenchJob, k: number) => Partial<VolbenchJob>;
}

const COUNTERS = [
  'read_ios', 'write_ios', 'read_merges', 'write_merges', 'read_ticks', 'write_ticks', 'in_queue',
  'aggr_read_ios', 'aggr_write_ios', 'aggr_read_merges', 'aggr_write_merge', 'aggr_read_ticks',
  'aggr_write_ticks', 'aggr_in_queue',
] as const;

/**
 * Counters add up over the runs; utilisation is the runs' mean weighted by their wall time
 * (what one disk_util over all the runs would say, less the gaps between them).
 */
export function combineDiskUtil(runs: ReadonlyArray<{ diskUtil: DiskUtil[]; durationMs: number }>): DiskUtil[] {
  const byName = new Map<string, { sum: DiskUtil; utilMs: number; aggrUtilMs: number; ms: number }>();
  for (const { diskUtil, durationMs } of runs) {
    for (const d of diskUtil) {
      let acc = byName.get(d.name);
      if (!acc) {
        acc = { sum: { ...d }, utilMs: 0, aggrUtilMs: 0, ms: 0 };
        for (const k of COUNTERS) if (acc.sum[k] !== undefined) acc.sum[k] = 0;
        byName.set(d.name, acc);
      }
      for (const k of COUNTERS) if (d[k] !== undefined) acc.sum[k] = (acc.sum[k] ?? 0) + d[k];
      acc.utilMs += d.util * durationMs;
      acc.aggrUtilMs += (d.aggr_util ?? 0) * durationMs;
      acc.ms += durationMs;
    }
  }
  return [...byName.values()].map(({ sum, utilMs, aggrUtilMs, ms }) => {
    sum.util = ms > 0 ? utilMs / ms : 0;
    if (sum.aggr_util !== undefined) sum.aggr_util = ms > 0 ? aggrUtilMs / ms : 0;
    return sum;
  });
}

/** Adds `targets` to `all` (by path) and returns where each landed. */
function foldTargets(all: VolbenchTarget[], targets: readonly VolbenchTarget[]): number[] {
  return targets.map((t) => {
    const at = all.findIndex((x) => x.path === t.path);
    if (at >= 0) return at;
    all.push(t);
    return all.length - 1;
  });
}

/** Group bases for runs one after another: each starts after the last group of the one before. */
export function groupBasesInOrder(results: readonly FioResult[]): number[] {
  let groups = 0;
  return results.map((r) => {
    const base = groups;
    for (const j of r.jobs) groups = Math.max(groups, base + j.groupid + 1);
    return base;
  });
}

/** One fio document for all the runs, in fio's key order, `section` added to its volbench key. `runs` must not be empty. */
export function foldRuns(runs: readonly FoldRun[], section: Partial<VolbenchSection> = {}): FioResult {
  const first = runs[0].result;
  const targets: VolbenchTarget[] = [];
  const jobs: FioJob[] = [];
  const volbench: VolbenchJob[] = [];
  for (const { result, groupBase, jobExtras } of runs) {
    const targetMap = foldTargets(targets, result.volbench.targets);
    for (const j of result.jobs) jobs.push({ ...j, groupid: groupBase + j.groupid });
    result.volbench.jobs.forEach((vj, k) => {
      volbench.push({ ...vj, groupid: groupBase + vj.groupid, target: targetMap[vj.target] ?? vj.target, ...jobExtras?.(vj, k) });
    });
  }
  const hasDiskUtil = runs.some((r) => r.result.disk_util !== undefined);
  // Why some run had no EBS statistics: each run's reason, once.
  const unavailable = [...new Set(runs.flatMap((r) => r.result.volbench.ebs_stats_unavailable ?? []))];
  const diskUtil = combineDiskUtil(runs.map((r) => ({ diskUtil: r.result.disk_util ?? [], durationMs: r.durationMs })));
  return {
    'fio version': first['fio version'],
    timestamp: first.timestamp,
    timestamp_ms: first.timestamp_ms,
    time: first.time,
    ...(first['global options'] ? { 'global options': first['global options'] } : {}),
    jobs,
    ...(hasDiskUtil ? { disk_util: diskUtil } : {}),
    volbench: withJobFile({
      ...first.volbench, targets, jobs: volbench, ...(unavailable.length ? { ebs_stats_unavailable: unavailable.join('; ') } : {}), ...section,
    }, mergedJobFile(runs.map((r) => r.result.volbench.job_file))),
  };
}
