/**
 * runSuite: a shipped suite on the user's target. Every check (target, options, assertions)
 * is made before the first I/O; then each test (a stonewall group of the job file) runs on its
 * own, `loops` times, and the runs fold into one fio document (merge.ts).
 *
 * Running a test at a time is what KDiskMark does (a fio process per test and loop) and lets a
 * test be repeated; with one loop the measurements are those of one fio run of the whole file.
 */
import { leftInPlaceNotes, removeFiles } from '../device/remove-files.js';
import { RunFiles, withNotes } from '../run/run-files.js';

import { VolbenchError } from '../errors.js';
import { engineSpec } from '../engine/engines.js';
import { judged, type Assertion } from '../gates/index.js';
import { HeldTargets, planRun, stagesOf } from '../plan/index.js';
import { instancePath } from '../plan/targets.js';
import type { FioResult, VolbenchSuiteTest } from '../fio-output/fio-result.js';
import type { RunProgress } from '../run/progress.js';
import { runParsed, type RunJobsOptions } from '../run/run-jobs.js';
import { parseSpec } from '../jobspec/index.js';
import type { ParsedJob, ParsedSpec } from '../jobspec/types.js';
import { loadSuite, type Suite } from './load.js';
import { mergeSuiteRuns, type LoopRun, type TestRuns } from './merge.js';
import { applyOverrides, type SuiteOverrides } from './overrides.js';
import { plannedTestMs, SuiteClock, type SuiteProgress } from './suite-clock.js';
import { runFigures, type RunFigures } from './run-figures.js';

export interface SuiteTestEvent {
  suite: string;
  /** Job names of the test (one for every shipped suite). */
  jobs: string[];
  /** 1-based index of the test and of the loop. */
  test: number;
  tests: number;
  loop: number;
  loops: number;
}

/** A run of a test has ended: its wall time and headline figures. */
export interface SuiteTestEnd extends SuiteTestEvent, RunFigures {
  /** Wall time of the run, its layout included. */
  durationMs: number;
}

export interface SuiteRunOptions extends SuiteOverrides, RunJobsOptions {
  /** Runs of each test, the best kept (default: the suite's, 5 for kdiskmark, else 1). */
  loops?: number;
  /** Called as each run starts. */
  onTest?: (event: SuiteTestEvent) => void;
  /** Called as each run ends. */
  onTestEnd?: (event: SuiteTestEnd) => void;
  /** Each progress report of a run, with where the whole suite is (onProgress gets the run's alone). */
  onSuiteProgress?: (progress: SuiteProgress) => void;
}

/** A suite ready to run: overrides applied, spec parsed (with the caller's limits), assertions bound. */
export interface PreparedSuite {
  suite: Suite;
  /** The suite's spec as it runs (planRun's effective spec). */
  parsed: ParsedSpec;
  loops: number;
  assertions: Assertion[];
}

function loopCount(suite: Suite, loops: number | undefined): number {
  const n = loops ?? suite.loops;
  if (!Number.isInteger(n) || n < 1 || n > 1000) {
    throw new VolbenchError('EINVALID_VALUE', `loops must be a whole number from 1 to 1000, not ${n}`, {
      field: 'loops',
      accepted: '1 to 1000',
    });
  }
  return n;
}

/**
 * Loads the suite and makes every check before any I/O; throws VolbenchError. The plan stage
 * checks every test's target (exists, fits, aligned, may be written) and the caller's limits
 * over all tests and loops up front, so a bad last test is refused before the first one runs.
 */
export async function prepareSuite(name: string, options: SuiteRunOptions = {}): Promise<PreparedSuite> {
  const suite = loadSuite(name);
  const loops = loopCount(suite, options.loops);
  const plan = await planRun(parseSpec(applyOverrides(suite, options)), { ...options, repeats: loops });
  // Each test is planned again as it starts; this plan only proved that the suite can run.
  plan.release();
  return { suite, parsed: plan.spec, loops, assertions: plan.assertions };
}

/** The suite's tests: its stages (runs of jobs up to the next stonewall), with their first group id. */
export function suiteTests(parsed: ParsedSpec): Array<{ jobs: ParsedJob[]; firstGroupid: number }> {
  return stagesOf(parsed.jobs.map((j) => j.options)).map(({ members }) => ({
    jobs: members.map(({ index }) => parsed.jobs[index]),
    firstGroupid: members[0].groupid,
  }));
}

/**
 * One test as a spec of its own. unlink waits for the last loop, so that earlier loops reuse
 * the files instead of laying them out again; fio itself unlinks when the job ends.
 */
function testSpec(parsed: ParsedSpec, jobs: ParsedJob[], lastLoop: boolean): ParsedSpec {
  return {
    ...(parsed.globalOptions ? { globalOptions: parsed.globalOptions } : {}),
    jobs: lastLoop ? jobs : jobs.map((j) => ({ ...j, options: { ...j.options, unlink: false } })),
  };
}

/**
 * The files these jobs' unlink asks for, removed here when their last loop (testSpec) never
 * ran: those the suite's runs recorded, each only while it is still that file (RunFiles).
 */
async function unlinkCutShort(jobs: ParsedJob[], options: SuiteRunOptions & { files: RunFiles }): Promise<string[]> {
  const cwd = options.cwd ?? process.cwd();
  const paths = jobs
    .filter(({ options: o }) => o.unlink && engineSpec(o.ioengine).touchesTarget)
    .flatMap(({ options: o }) => Array.from({ length: o.numjobs }, (_, i) => instancePath(o, i, cwd)));
  return leftInPlaceNotes(await removeFiles(options.files.of(paths), options.roots));
}

function interrupted(result: FioResult): boolean {
  return result.volbench.jobs.some((j) => j.cancelled);
}

/** Runs a prepared suite: every test, `loops` times each; stops after a cancelled run. */
export async function runPrepared(prepared: PreparedSuite, options: SuiteRunOptions = {}): Promise<FioResult> {
  const { suite, parsed, loops } = prepared;
  if (options.signal?.aborted) throw new VolbenchError('ECANCELLED', 'the run was cancelled before it started');
  const tests = suiteTests(parsed);
  // Each test is planned again as it starts, under the same rules; the limits and assertions
  // were applied to the whole suite when it was prepared.
  // The tests share files, recorded as they are made: a suite cut short removes those.
  const files = options.files ?? new RunFiles();
  const suiteStarted = Date.now();
  const clock = new SuiteClock(tests.map((t) => plannedTestMs(t.jobs)), loops, suiteStarted);
  let where: SuiteTestEvent | null = null;
  const onProgress = (p: RunProgress): void => {
    options.onProgress?.(p);
    if (where && options.onSuiteProgress) options.onSuiteProgress({ ...where, ...clock.progress(p), run: p });
    else if (where) clock.progress(p);
  };
  // Each test is planned beneath the directories the first one used, against the files it laid out.
  const held = options.held ?? new HeldTargets();
  const perTest: RunJobsOptions = { ...options, limits: undefined, repeats: undefined, assertions: undefined, files, held, onProgress };
  const done: TestRuns[] = [];
  const walls: VolbenchSuiteTest[] = [];
  // The test the suite is in, until it has run all its loops. Files are unlinked by the jobs
  // that ask for it in their last loop, and suites share one file across tests (KDiskMark): a
  // suite that stops early (cancelled, failed) removes those of this test and every later one.
  let stoppedIn: number | null = null;
  let left: string[] = [];
  try {
    for (const [t, test] of tests.entries()) {
      stoppedIn = t;
      const runs: LoopRun[] = [];
      const testStarted = Date.now();
      const jobs = test.jobs.map((j) => j.options.name);
      for (let loop = 1; loop <= loops; loop++) {
        where = { suite: suite.name, jobs, test: t + 1, tests: tests.length, loop, loops };
        clock.begin(t, loop);
        options.onTest?.(where);
        const started = Date.now();
        const result = await runParsed(testSpec(parsed, test.jobs, loop === loops), perTest);
        const durationMs = Date.now() - started;
        clock.end(durationMs);
        runs.push({ result, durationMs });
        options.onTestEnd?.({ ...where, durationMs, ...runFigures(result) });
        if (interrupted(result)) break;
      }
      walls.push({ jobs, runs: runs.length, wall_ms: Date.now() - testStarted });
      done.push({ firstGroupid: test.firstGroupid, loops: runs });
      if (interrupted(runs[runs.length - 1].result)) break;
      stoppedIn = null;
    }
  } finally {
    try {
      if (stoppedIn !== null) left = await unlinkCutShort(tests.slice(stoppedIn).flatMap((test) => test.jobs), { ...options, files });
    } finally {
      if (options.held === undefined) held.release();
    }
  }
  const info = { name: suite.name, file: suite.path, loops, wall_ms: Date.now() - suiteStarted, tests: walls };
  return judged(withNotes(mergeSuiteRuns(done, info), left), prepared.assertions);
}

/**
 * Runs a shipped suite (`listSuites()` names them) on `options.directory` or
 * `options.filename` and resolves to one fio document for the whole suite.
 */
export async function runSuite(name: string, options: SuiteRunOptions = {}): Promise<FioResult> {
  return runPrepared(await prepareSuite(name, options), options);
}
