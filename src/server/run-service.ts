/**
 * The runs: submit (admit, store, queue), look up, cancel, wait, and on start-up recover what a
 * previous process left behind. Routes call this; it knows nothing of HTTP but its problems.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import type { AdmissionContext } from './admission.js';
import type { Limits } from './config.js';
import { removeCreatedFiles } from './created-files.js';
import { ServiceMetrics } from './metrics.js';
import { HttpProblem, INTERNAL_PROBLEM, knownProblem, type Problem } from './problem.js';
import { findRoot, type TargetRoot } from './roots.js';
import { executeRun, interruptedProblem, type ExecutorDeps } from './run-executor.js';
import { FINAL_EVENTS, RunEvents } from './run-events.js';
import { RunQueue, type QueueEntry } from './run-queue.js';
import { admitRequest, storedRequest, type AdmittedRun, type RunRequest } from './run-request.js';
import { runLinks } from './run-view.js';
import type { RunStatus } from './schemas/run.js';
import type { Db } from './store/database.js';
import { EventStore } from './store/events.js';
import { RunStore, type ListQuery, type RunRow } from './store/runs.js';

export interface RunServiceOptions {
  db: Db;
  roots: TargetRoot[];
  /** Real paths runs must not touch: the data directory. */
  reserved: string[];
  limits: Limits;
  logError: (err: unknown, context: string) => void;
}

export interface SubmitInput {
  request: RunRequest;
  /** The root named by ?target=, for jobs (or a suite) without a path. */
  defaultRoot: TargetRoot | null;
}

const TERMINAL: ReadonlySet<RunStatus> = new Set(['finished', 'failed', 'cancelled']);
/** How long DELETE waits for a running run to stop before answering 202. */
const CANCEL_WAIT_MS = 2000;

export function isTerminal(status: RunStatus): boolean {
  return TERMINAL.has(status);
}

interface ActiveRun {
  controller: AbortController;
  done: Promise<void>;
}

export class RunService {
  readonly store: RunStore;
  readonly events: RunEvents;
  readonly metrics: ServiceMetrics;
  private readonly queue: RunQueue;
  private readonly waiting = new Map<string, AdmittedRun>();
  private readonly active = new Map<string, ActiveRun>();
  private closing = false;

  constructor(private readonly options: RunServiceOptions) {
    this.store = new RunStore(options.db);
    this.events = new RunEvents(new EventStore(options.db));
    this.queue = new RunQueue({
      maxConcurrent: options.limits.maxConcurrent,
      limit: options.limits.queueLimit,
      start: (entry) => this.start(entry),
    });
    this.metrics = new ServiceMetrics({
      runsByStatus: () => this.store.countByStatus(),
      roots: () => options.roots.map((r) => r.path),
      queuedFor: (root) => this.queue.countsFor(root).queued,
    });
  }

  get roots(): TargetRoot[] {
    return this.options.roots;
  }

  get limits(): Limits {
    return this.options.limits;
  }

  async submit({ request, defaultRoot }: SubmitInput): Promise<RunRow> {
    const admitted = await admitRequest(request, defaultRoot, this.admissionContext());
    if (!this.queue.canAccept(admitted.queueKeys)) {
      throw new HttpProblem(429, 'queue-full', 'Queue full',
        `${this.limits.queueLimit} runs are already waiting (--queue-limit); try again later`, {},
        { 'retry-after': String(this.retryAfterSec()) });
    }
    const run = this.store.insert({
      id: randomUUID(),
      spec: admitted.spec,
      jobFile: request.kind === 'spec' ? request.jobFile : null,
      suite: admitted.suite,
      asserts: request.asserts,
      defaultRoot: defaultRoot?.path ?? null,
      roots: admitted.roots,
      queueKeys: admitted.queueKeys,
      createdAt: Date.now(),
    });
    this.events.publish(run, 'queued', { id: run.id, status: 'queued', created_at: new Date(run.createdAt).toISOString(), links: runLinks(run.id) });
    this.enqueue(run, admitted);
    return this.store.get(run.id) ?? run;
  }

  get(id: string): RunRow | null {
    return this.store.get(id);
  }

  list(query: ListQuery): RunRow[] {
    return this.store.list(query);
  }

  /** Cancels a queued or running run; a run that has ended is returned as it is. */
  async cancel(id: string): Promise<RunRow | null> {
    const run = this.store.get(id);
    if (run === null) return null;
    if (run.status === 'queued' && this.queue.remove(id)) {
      this.waiting.delete(id);
      this.endWithoutRunning(run, 'cancelled', null);
    }
    const active = this.active.get(id);
    if (active) {
      active.controller.abort('cancel');
      const timeout = new AbortController();
      await Promise.race([active.done, sleep(CANCEL_WAIT_MS, undefined, { signal: timeout.signal }).catch(() => undefined)]);
      timeout.abort();
    }
    return this.store.get(id);
  }

  /** Resolves when the run has ended or `timeoutMs` has passed, with the run as it is then. */
  waitForEnd(id: string, timeoutMs: number): Promise<RunRow | null> {
    const current = this.store.get(id);
    if (current === null || isTerminal(current.status) || timeoutMs <= 0) return Promise.resolve(current);
    return new Promise((resolve) => {
      const done = (): void => {
        unsubscribe();
        clearTimeout(timer);
        resolve(this.store.get(id));
      };
      const unsubscribe = this.events.subscribe(id, (event) => {
        if (FINAL_EVENTS.has(event.type)) done();
      });
      const timer = setTimeout(done, timeoutMs);
    });
  }

  /** Seconds until a running run is expected to end: when a place in the queue may free up. */
  retryAfterSec(): number {
    const remaining = [...this.active.keys()].map((id) => this.store.get(id)?.progress?.eta_ms ?? null);
    const known = remaining.filter((ms): ms is number => ms !== null);
    const ms = known.length > 0 ? Math.min(...known) : 5000;
    return Math.min(this.limits.maxRuntimeSec, Math.max(1, Math.ceil(ms / 1000)));
  }

  queueCounts(root: string): { queued: number; running: number } {
    return this.queue.countsFor(root);
  }

  /**
   * A previous process's leftovers: a run it was running is failed as interrupted and the
   * files it created are removed; runs it had queued are admitted again and queued in order.
   */
  async recover(): Promise<void> {
    for (const run of this.store.withStatus('running')) {
      const removed = await removeCreatedFiles(run.files, this.roots);
      const detail = `the server stopped while the run was running; ${removed.length} file(s) it created were removed`;
      this.endWithoutRunning(run, 'failed', interruptedProblem(detail));
    }
    for (const run of this.store.withStatus('queued')) {
      try {
        const defaultRoot = run.defaultRoot === null ? null : findRoot(this.roots, run.defaultRoot);
        this.enqueue(run, await admitRequest(storedRequest(run), defaultRoot, this.admissionContext()));
      } catch (err) {
        this.endWithoutRunning(run, 'failed', knownProblem(err) ?? INTERNAL_PROBLEM);
      }
    }
    this.store.prune(this.limits.keepRuns);
  }

  /** Stops running runs (they end failed, interrupted, their files removed); queued ones stay queued. */
  async close(): Promise<void> {
    this.closing = true;
    for (const { controller } of this.active.values()) controller.abort('shutdown');
    await Promise.all([...this.active.values()].map((a) => a.done));
  }

  private admissionContext(): AdmissionContext {
    return { roots: this.roots, reserved: this.options.reserved, limits: this.limits };
  }

  private enqueue(run: RunRow, admitted: AdmittedRun): void {
    this.waiting.set(run.id, admitted);
    this.queue.enqueue({ id: run.id, queueKeys: run.queueKeys, roots: run.roots });
  }

  private endWithoutRunning(run: RunRow, status: RunStatus, error: Problem | null): void {
    const finishedAt = Date.now();
    this.store.finish(run.id, { status, finishedAt, error, result: null, assertions: [], gate: null });
    this.events.publish(run, status, { id: run.id, status, finished_at: new Date(finishedAt).toISOString(), error, gate: null, links: runLinks(run.id) });
  }

  private start(entry: QueueEntry): Promise<void> {
    const admitted = this.waiting.get(entry.id);
    this.waiting.delete(entry.id);
    const run = this.store.get(entry.id);
    if (this.closing || admitted === undefined || run === null || run.status !== 'queued') return Promise.resolve();
    const controller = new AbortController();
    const deps: ExecutorDeps = {
      store: this.store,
      events: this.events,
      metrics: this.metrics,
      roots: this.roots,
      logError: (err, runId) => this.options.logError(err, `run ${runId}`),
    };
    const done = executeRun(deps, run, admitted, controller.signal)
      .catch((err: unknown) => {
        this.options.logError(err, `run ${run.id}`);
        const now = this.store.get(run.id);
        if (now !== null && !isTerminal(now.status)) this.endWithoutRunning(now, 'failed', INTERNAL_PROBLEM);
      })
      .finally(() => {
        this.active.delete(run.id);
        this.store.prune(this.limits.keepRuns);
      });
    this.active.set(run.id, { controller, done });
    return done;
  }
}
