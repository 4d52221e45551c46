/**
 * A suite runs as several fio runs (a test at a time, each `loops` times). The kept run of every
 * test is folded into one fio document (fio-output/fold.ts) with the suite's group ids, and each
 * test's loop figures under `volbench.jobs[].loops`.
 */
import type { FioResult, VolbenchSuiteInfo } from '../fio-output/fio-result.js';
import { foldRuns, type FoldRun } from '../fio-output/fold.js';
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

export { combineDiskUtil } from '../fio-output/fold.js';

/** One fio document for the whole suite: the kept loop of each test, with every loop's figures. */
export function mergeSuiteRuns(tests: readonly TestRuns[], suite: Omit<VolbenchSuiteInfo, 'runs'>): FioResult {
  const runs = tests.map((test): FoldRun => {
    const results = test.loops.map((l) => l.result);
    const best = bestLoop(results);
    const kept = test.loops[best];
    return {
      ...kept,
      groupBase: test.firstGroupid,
      jobExtras: (_vj, k) => ({ loops: jobLoops(results.map((r, i) => loopValues(r.jobs[k] ?? kept.result.jobs[k], i + 1)), best) }),
    };
  });
  return foldRuns(runs, { suite: { ...suite, runs: tests.reduce((n, t) => n + t.loops.length, 0) } });
}
