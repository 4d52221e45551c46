/**
 * A suite runs as several fio runs (a test at a time, each `loops` times). The kept run of every
 * test is folded into one fio document (fio-output/fold.ts) with the suite's group ids, and each
 * test's loop figures under `volbench.jobs[].loops`.
 */
import type { FioResult, VolbenchJob, VolbenchSuiteInfo } from '../fio-output/fio-result.js';
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

/** Below this a test's measured time is too short for its figures to mean much. */
export const SHORT_TEST_NS = 1e9;
export const SHORT_TEST_NOTE = 'too short to trust (under 1 s); give a larger --size, or --runtime with a time_based suite';

/**
 * A test that measured for under a second (KDiskMark's 1 GiB read from a fast device or the
 * page cache takes 80 ms) says so beside its figures, with what would make it longer.
 */
function withShortNote(vj: VolbenchJob): Pick<VolbenchJob, 'notes'> {
  const ns = vj.runtime_ns;
  if (ns === undefined || ns <= 0 || ns >= SHORT_TEST_NS || vj.cancelled || vj.error_message) return {};
  const note = `measured for ${Math.round(ns / 1e6)} ms: ${SHORT_TEST_NOTE}`;
  return { notes: [...(vj.notes ?? []), note] };
}

/** One fio document for the whole suite: the kept loop of each test, with every loop's figures. */
export function mergeSuiteRuns(tests: readonly TestRuns[], suite: Omit<VolbenchSuiteInfo, 'runs'>): FioResult {
  const runs = tests.map((test): FoldRun => {
    const results = test.loops.map((l) => l.result);
    const best = bestLoop(results);
    const kept = test.loops[best];
    return {
      ...kept,
      groupBase: test.firstGroupid,
      jobExtras: (vj, k) => ({
        loops: jobLoops(results.map((r, i) => loopValues(r.jobs[k] ?? kept.result.jobs[k], i + 1)), best),
        ...withShortNote(vj),
      }),
    };
  });
  return foldRuns(runs, { suite: { ...suite, runs: tests.reduce((n, t) => n + t.loops.length, 0) } });
}
