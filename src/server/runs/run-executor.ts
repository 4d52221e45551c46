/**
 * Runs one admitted run through the library and records what happens: started, a progress
 * event about once a second (and for a suite, a test event as each test and loop starts), and
 * the final status with fio's JSON and the outcome of the run's assertions.
 */
import { runPlan } from '../../run/run-jobs.js';
import type { FioResult } from '../../fio-output/index.js';
import { runPrepared, type SuiteRunOptions } from '../../suites/index.js';
import { removalDetail, removeCreatedFiles } from './created-files.js';
import { RunFiles } from '../../run/run-files.js';
import type { ServiceMetrics } from './metrics.js';
import { INTERNAL_PROBLEM, knownProblem, problemType, type Problem } from '../problems/http-problem.js';
import { rootLabel, type TargetRoot } from '../admission/roots.js';
import { asPrinted, gateOf } from '../admission/run-assertions.js';
import type { AdmittedRun } from '../admission/run-request.js';
import type { AnalysisStep } from '../admission/analysis-admission.js';
import { progressView, runLinks } from './run-view.js';
import type { RunEvents } from './run-events.js';
import type { RunProgressBody, RunStatus, SuiteTestBody } from '../../api/run.js';
import type { RunRow, RunStore } from '../store/runs.js';

export type AbortReason = 'cancel' | 'shutdown';

export interface ExecutorDeps {
  /** Whether the service has closed its store: a run that ends after that records nothing. */
  closed: () => boolean;
  store: RunStore;
  events: RunEvents;
  metrics: ServiceMetrics;
  roots: TargetRoot[];
  logError: (err: unknown, runId: string) => void;
}

export function interruptedProblem(detail: string): Problem {
  return { type: problemType('interrupted'), title: 'Run interrupted', status: 503, detail };
}

/** fio's JSON as stored: non-finite numbers become 0, as formatJson prints them. */
export function storedResult(result: FioResult): string {
  return JSON.stringify(result, (_key, value: unknown) =>
    typeof value === 'number' && !Number.isFinite(value) ? 0 : value);
}

function ioErrorProblem(result: FioResult): Problem | null {
  const failed = result.volbench.jobs.filter((j, i) => j.error_message !== '' || (result.jobs[i]?.error ?? 0) !== 0);
  if (failed.length === 0) return null;
  return {
    type: problemType('io-error'),
    title: 'A job ended with an I/O error',
    status: 500,
    detail: failed.map((j) => `job ${j.jobname}: ${j.error_message || 'error'}${j.error_syscall ? ` (${j.error_syscall})` : ''}`).join('; '),
  };
}

interface Outcome {
  status: RunStatus;
  error: Problem | null;
  result: FioResult | null;
}

/** `removed`: at shutdown, what became of the files the run created. */
function outcomeOf(result: FioResult | null, thrown: unknown, signal: AbortSignal, removed = ''): Outcome {
  const reason = signal.aborted ? (signal.reason as AbortReason) : null;
  if (reason === 'shutdown') {
    return { status: 'failed', error: interruptedProblem(`the server shut down while the run was running${removed ? `; ${removed}` : ''}`), result };
  }
  if (reason === 'cancel') return { status: 'cancelled', error: null, result };
  if (result === null) return { status: 'failed', error: knownProblem(thrown) ?? INTERNAL_PROBLEM, result };
  const ioError = ioErrorProblem(result);
  return { status: ioError ? 'failed' : 'finished', error: ioError, result };
}

/**
 * Through the library, which judges the assertions: a suite test by test (each planned again
 * under the admission's rules as it starts), a spec as admitted.
 */
async function runAdmitted(admitted: AdmittedRun, control: SuiteRunOptions, onStep: (step: AnalysisStep) => void): Promise<FioResult> {
  if (admitted.analysis !== null) {
    admitted.plan.release();
    return admitted.analysis.run({ signal: control.signal, onProgress: control.onProgress }, onStep);
  }
  if (admitted.prepared !== null) {
    admitted.plan.release();
    return runPrepared(admitted.prepared, { ...admitted.planOptions, ...control });
  }
  return runPlan(admitted.plan, control);
}

/**
 * Progress and test events of a running run; a suite's progress names its current test, an
 * analysis's its current step (sweep point, uniformity chunk, batch of reads), each of which is
 * an `analysis` event as it starts and again, with its figures, once it has run.
 */
function reporting(deps: ExecutorDeps, run: RunRow): Pick<SuiteRunOptions, 'onProgress' | 'onTest' | 'onSuiteProgress'> & { onStep: (step: AnalysisStep) => void } {
  let current: SuiteTestBody | null = null;
  let step: { analysis: string; step: number; steps: number } | null = null;
  const publish = (progress: RunProgressBody): void => {
    if (deps.closed()) return;
    deps.store.saveProgress(run.id, progress);
    deps.events.publish(run, 'progress', { id: run.id, ...progress });
  };
  return {
    onStep: (s) => {
      step = { analysis: s.analysis, step: s.step, steps: s.steps };
      if (!deps.closed()) deps.events.publish(run, 'analysis', { id: run.id, ...s });
    },
    onTest: ({ test, tests, loop, loops, jobs }) => {
      current = { test, tests, loop, loops, jobs };
      if (!deps.closed()) deps.events.publish(run, 'test', { id: run.id, ...current });
    },
    // A suite's reports come with where the whole suite is (onSuiteProgress), and go out from there.
    onProgress: (p) => {
      if (current === null) publish({ ...progressView(p), ...(step === null ? {} : { analysis_step: step }) });
    },
    onSuiteProgress: (p) => {
      if (current !== null) publish({ ...progressView(p.run), suite_test: { ...current, fraction: p.fraction, eta_ms: p.etaMs } });
    },
  };
}

export async function executeRun(deps: ExecutorDeps, run: RunRow, admitted: AdmittedRun, signal: AbortSignal): Promise<void> {
  const startedAt = Date.now();
  // A store that cannot record the start throws its problem before any I/O: the run fails with it.
  let started;
  try {
    started = deps.store.markRunning(run.id, startedAt, { id: run.id, status: 'running', started_at: new Date(startedAt).toISOString() });
  } finally {
    if (!started) admitted.plan.release();
  }
  if (started === null) return;
  deps.events.emit(run.id, started);
  let result: FioResult | null = null;
  let thrown: unknown = null;
  try {
    const { onStep, ...control } = reporting(deps, run);
    // Every file the run creates is recorded with its identity as it is made.
    const files = new RunFiles((made) => {
      if (!deps.closed()) deps.store.recordCreated(run.id, made);
    });
    result = await runAdmitted(admitted, { signal, files, ...control }, onStep);
  } catch (err) {
    thrown = err;
    if (knownProblem(err) === null) deps.logError(err, run.id);
  }
  const shutdown = signal.aborted && signal.reason === 'shutdown';
  // The store closes soon after: a removal that has not returned by then is said to be so.
  const removed = shutdown ? removalDetail(await removeCreatedFiles(deps.store.createdFiles(run.id), deps.roots)) : '';
  finishRun(deps, run, outcomeOf(result, thrown, signal, removed), startedAt);
}

function finishRun(deps: ExecutorDeps, run: RunRow, outcome: Outcome, startedAt: number): void {
  // Past the service's shutdown wait: the next start fails it as interrupted, with its files.
  if (deps.closed()) return;
  const finishedAt = Date.now();
  // Judged on whatever result the run has, as the library does; the status says how it ended.
  const assertions = asPrinted(outcome.result?.volbench.assertions ?? []);
  const gate = gateOf(assertions);
  const final = deps.store.finish(run.id, {
    status: outcome.status,
    finishedAt,
    error: outcome.error,
    result: outcome.result === null ? null : storedResult(outcome.result),
    assertions,
    gate,
  }, {
    id: run.id,
    status: outcome.status,
    finished_at: new Date(finishedAt).toISOString(),
    error: outcome.error,
    gate,
    links: runLinks(run.id),
  });
  deps.events.emit(run.id, final);
  const rootOf = (path: string): string | null => rootLabel(deps.roots, path);
  deps.metrics.recordRun(outcome.status, (finishedAt - startedAt) / 1000, outcome.result, rootOf);
}
