/**
 * A suite runs as several fio runs (a test at a time, each `loops` times). This folds the kept
 * run of every test into one fio document: its job entries in suite order with the suite's
 * group ids, one disk_util over the kept runs, one target list, one job file of the tests in
 * order, and the loop figures under `volbench.jobs[].loops`.
 */
import { mergedJobFile, withJobFile } from '../report/job-file.js';
import type { DiskUtil } from '../report/types.js';
import type { FioJob, FioResult, VolbenchJob, VolbenchSuiteInfo, VolbenchTarget } from '../report/fio-result.js';
import { bestLoop, jobLoops, loopValues } from './loops.js';

export interface LoopRun {
  result: FioResult;
  /** Wall time of the run, to weigh its disk utilisation. */
  durationMs: number;
}

/** The runs of one test (a stonewall group of the suite). */
export interface TestRuns {
  /** Group id of the test's first job in the whole suite. */
  firstGroupid: number;
  loops: LoopRun[];
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
function mergeTargets(all: VolbenchTarget[], targets: readonly VolbenchTarget[]): number[] {
  return targets.map((t) => {
    const at = all.findIndex((x) => x.path === t.path);
    if (at >= 0) return at;
    all.push(t);
    return all.length - 1;
  });
}

interface Kept {
  jobs: FioJob[];
  volbench: VolbenchJob[];
}

/** The kept run of one test, renumbered into the suite and with its loop figures. */
function keepTest(test: TestRuns, targets: VolbenchTarget[]): Kept & { run: LoopRun } {
  const results = test.loops.map((l) => l.result);
  const best = bestLoop(results);
  const run = test.loops[best];
  const targetMap = mergeTargets(targets, run.result.volbench.targets);
  const jobs = run.result.jobs.map((j) => ({ ...j, groupid: test.firstGroupid + j.groupid }));
  const volbench = run.result.volbench.jobs.map((vj, k) => {
    const values = results.map((r, i) => loopValues(r.jobs[k] ?? run.result.jobs[k], i + 1));
    return { ...vj, groupid: test.firstGroupid + vj.groupid, target: targetMap[vj.target] ?? vj.target, loops: jobLoops(values, best) };
  });
  return { jobs, volbench, run };
}

/** One fio document for the whole suite, in fio's key order. */
export function mergeSuiteRuns(tests: readonly TestRuns[], suite: Omit<VolbenchSuiteInfo, 'runs'>): FioResult {
  const first = tests[0].loops[0].result;
  const targets: VolbenchTarget[] = [];
  const kept = tests.map((t) => keepTest(t, targets));
  const hasDiskUtil = kept.some((k) => k.run.result.disk_util !== undefined);
  const diskUtil = combineDiskUtil(kept.map((k) => ({ diskUtil: k.run.result.disk_util ?? [], durationMs: k.run.durationMs })));
  return {
    'fio version': first['fio version'],
    timestamp: first.timestamp,
    timestamp_ms: first.timestamp_ms,
    time: first.time,
    ...(first['global options'] ? { 'global options': first['global options'] } : {}),
    jobs: kept.flatMap((k) => k.jobs),
    ...(hasDiskUtil ? { disk_util: diskUtil } : {}),
    volbench: withJobFile({
      ...first.volbench,
      targets,
      jobs: kept.flatMap((k) => k.volbench),
      suite: { ...suite, runs: tests.reduce((n, t) => n + t.loops.length, 0) },
    }, mergedJobFile(kept.map((k) => k.run.result.volbench.job_file))),
  };
}
