/**
 * The runs: submit (admit, store, queue), look up, cancel, wait, and on start-up recover what a
 * previous process left behind. Routes call this; it knows nothing of HTTP but its problems.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import type { AdmissionContext } from '../admission/spec-admission.js';
import type { Limits } from '../config.js';
import { removalDetail, removeCreatedFiles, settledRemoval, type Removal } from './created-files.js';
import { ServiceMetrics } from './metrics.js';
import { INTERNAL_PROBLEM, knownProblem, type Problem } from '../problems/http-problem.js';
import { findRoot, type TargetRoot } from '../admission/roots.js';
import { executeRun, interruptedProblem, type ExecutorDeps } from './run-executor.js';
import { FINAL_EVENTS, RunEvents } from './run-events.js';
import { RunQueue, type QueueEntry } from './run-queue.js';
import { HeldTargets, planMemoryBytes, timeBasedSeconds } from '../../plan/index.js';
import { admitRequest, requestVolume, storedRequest, type AdmittedRun, type RunRequest } from '../admission/run-request.js';
import { runLinks } from './run-view.js';
import type { RunStatus } from '../../api/run.js';
import type { Db } from '../store/database.js';
import { RunStore, type ListQuery, type RunRow } from '../store/runs.js';
import { queueFull, targetChanged, unknownTarget } from '../problems/service-problems.js';
import { stuckTally } from '../../device/root-calls.js';
import { heldByRoot, refuseHeldMemory, rootMemoryBytes } from '../admission/held-memory.js';

export interface RunServiceOptions {
  db: Db;
  /** Where the store is: named when it cannot write. */
  dataDir: string;
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

/** How long DELETE waits for a running run to stop before answering 202. */
const CANCEL_WAIT_MS = 2000;

/**
 * How long close() waits for the running runs to stop and remove their files. A run stops within
 * half a second of its cancel (jobs stuck in the kernel are given up on), and its files' removal
 * takes one deadline at most on a root that does not answer (5 s, the roots side by side); the
 * wait is bounded all the same, so that the store closes however the devices behave.
 */
export const SHUTDOWN_WAIT_MS = 7000;

/** The statuses a run ends with are the events that end its stream. */
export function isTerminal(status: RunStatus): boolean {
  return FINAL_EVENTS.has(status);
}

interface ActiveRun {
  controller: AbortController;
  done: Promise<void>;
  /**
   * When its plan's time_based stages will have ended (set as it starts running; unset for a
   * run of size-based jobs). A suite or analysis plans its first pass only: an underestimate.
   */
  endsAtMs?: number;
}

export class RunService {
  readonly store: RunStore;
  readonly events: RunEvents;
  readonly metrics: ServiceMetrics;
  private readonly queue: RunQueue;
  private readonly active = new Map<string, ActiveRun>();
  /**
   * The directories each queued or running run's paths are in, held from its admission until it
   * ends: it starts beneath them, not wherever their names lead by then (AdmissionContext.held).
   */
  private readonly held = new Map<string, HeldTargets>();
  private readonly shutdown = new AbortController();
  /** Set as close() begins: no queued run starts from then on. */
  private stopping = false;
  /** Set once the store is closed: a run that ends after that records nothing. */
  private closed = false;

  constructor(private readonly options: RunServiceOptions) {
    this.store = new RunStore(options.db, { keepRuns: options.limits.keepRuns, dataDir: options.dataDir, logError: options.logError });
    this.events = new RunEvents(this.store);
    this.queue = new RunQueue({
      maxConcurrent: options.limits.maxConcurrent,
      // --max-memory bounds the runs going at once, not only each run, and with them what jobs
      // given up on still hold until their threads end.
      maxMemoryBytes: options.limits.maxMemoryBytes,
      heldBytes: () => stuckTally().memoryBytes,
      // One root's runs take at most a share of it: a root that freezes under them leaves the rest.
      rootMemoryBytes: rootMemoryBytes(options.limits.maxMemoryBytes),
      heldByRoot: () => heldByRoot(stuckTally(), options.roots),
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

  /** Aborted once the service is closing: event streams and waits that are still open end. */
  get closing(): AbortSignal {
    return this.shutdown.signal;
  }

  async submit({ request, defaultRoot }: SubmitInput): Promise<RunRow> {
    // A full queue refuses the run before it is planned, on the keys planning would give it.
    const queueGate = async (queueKeys: () => Promise<string[]>): Promise<void> => {
      if (this.queue.isFull() && !this.queue.canAccept(await queueKeys())) throw queueFull(this.limits.queueLimit, this.retryAfterSec());
    };
    const held = new HeldTargets();
    const admitted = await admitRequest(request, defaultRoot, { ...this.admissionContext(null), queueGate, held }).catch((err: unknown) => {
      held.release();
      throw err;
    });
    // Planned again as it starts (beneath the directories held now): this plan only proved that it can run.
    admitted.plan.release();
    try {
      // Taken only if it can run before the stuck jobs' devices answer.
      refuseHeldMemory(planMemoryBytes(admitted.plan), this.limits.maxMemoryBytes, heldByRoot(stuckTally(), this.roots));
    } catch (err) {
      held.release();
      throw err;
    }
    if (!this.queue.canAccept(admitted.queueKeys)) {
      held.release();
      throw queueFull(this.limits.queueLimit, this.retryAfterSec());
    }
    const id = randomUUID();
    const createdAt = Date.now();
    // A store that cannot take the run throws its problem: the run is refused, nothing is queued.
    const { run, event } = this.storeNew(held, {
      id,
      spec: admitted.spec,
      jobFile: request.kind === 'spec' ? request.jobFile : null,
      suite: admitted.suite,
      analysis: admitted.analysis?.view ?? null,
      asserts: request.asserts,
      volume: requestVolume(request),
      defaultRoot: defaultRoot?.path ?? null,
      roots: admitted.roots,
      queueKeys: admitted.queueKeys,
      createdAt,
    }, { id, status: 'queued', created_at: new Date(createdAt).toISOString(), links: runLinks(id) });
    this.held.set(id, held);
    this.events.emit(id, event);
    this.enqueue(id, admitted);
    return this.store.get(id) ?? run;
  }

  /** The store's insert, with the run's held directories released when it refuses. */
  private storeNew(held: HeldTargets, ...args: Parameters<RunStore['insert']>): ReturnType<RunStore['insert']> {
    try {
      return this.store.insert(...args);
    } catch (err) {
      held.release();
      throw err;
    }
  }

  private releaseHeld(id: string): void {
    this.held.get(id)?.release();
    this.held.delete(id);
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
      this.releaseHeld(id);
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

  /**
   * Resolves with the run as it is when it has ended, `timeoutMs` has passed, `stop` is aborted
   * (the client went away) or the service is closing, whichever comes first.
   */
  waitForEnd(id: string, timeoutMs: number, stop?: AbortSignal): Promise<RunRow | null> {
    const current = this.store.get(id);
    const signals = [this.shutdown.signal, ...(stop ? [stop] : [])];
    if (current === null || isTerminal(current.status) || timeoutMs <= 0 || signals.some((s) => s.aborted)) {
      return Promise.resolve(current);
    }
    return new Promise((resolve) => {
      const done = (): void => {
        unsubscribe();
        clearTimeout(timer);
        signals.forEach((s) => s.removeEventListener('abort', done));
        resolve(this.store.get(id));
      };
      const unsubscribe = this.events.subscribe(id, (event) => {
        if (FINAL_EVENTS.has(event.type)) done();
      });
      const timer = setTimeout(done, timeoutMs);
      signals.forEach((s) => s.addEventListener('abort', done, { once: true }));
    });
  }

  /**
   * Seconds until a running run is expected to end: when a place in the queue may free up. A
   * run's own progress report knows best; before its first (about a second in), its plan's
   * time_based stages say how long it will take at least; without either, 5 s.
   */
  retryAfterSec(): number {
    const now = Date.now();
    const remaining = [...this.active.entries()].map(([id, a]) =>
      this.store.get(id)?.progress?.eta_ms ?? (a.endsAtMs === undefined ? null : Math.max(0, a.endsAtMs - now)));
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
      const removal = await removeCreatedFiles(this.store.createdFiles(run.id), this.roots);
      if (removal.unidentified.length > 0) {
        this.options.logError(new Error('files recorded without their identity'),
          `run ${run.id}: ${removal.unidentified.join(', ')} were recorded before files were recorded with their identity and are left in place`);
      }
      if (removal.late.length === 0) {
        this.endInterrupted(run, removal);
        continue;
      }
      // Recorded once the device answers, with what was removed then; until then the run stays
      // as the last process left it (a restart before then tries again).
      this.options.logError(new Error('a removal has not returned'),
        `run ${run.id}: the removal of ${removal.late.map((l) => l.path).join(', ')} has not returned (its root does not answer); the run is recorded once it does`);
      void settledRemoval(removal).then((settled) => {
        if (!this.stopping) this.endInterrupted(run, settled);
      });
    }
    for (const run of this.store.withStatus('queued')) {
      const held = new HeldTargets();
      try {
        // Queued by the devices its targets are on now: device names may change across a reboot.
        const admitted = await this.admitStored(run, held);
        admitted.plan.release();
        this.held.set(run.id, held);
        this.enqueue(run.id, admitted);
      } catch (err) {
        held.release();
        this.endWithoutRunning(run, 'failed', knownProblem(err) ?? INTERNAL_PROBLEM);
      }
    }
    // --keep-runs may have been lowered since the last start.
    this.store.prune();
  }

  /**
   * Stops running runs (they end failed, interrupted, their files removed; their final events
   * reach whoever follows them), then ends the event streams and waits still open, those of
   * queued runs, which stay queued for the next start-up.
   */
  async close(): Promise<void> {
    this.stopping = true;
    const active = [...this.active.entries()];
    for (const [, { controller }] of active) controller.abort('shutdown');
    let timer: NodeJS.Timeout | undefined;
    const stopped = await Promise.race([
      Promise.all(active.map(([, a]) => a.done)).then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), SHUTDOWN_WAIT_MS))),
    ]);
    clearTimeout(timer);
    if (!stopped) {
      const left = active.filter(([id]) => this.active.has(id)).map(([id]) => id);
      this.options.logError(new Error('runs did not stop'),
        `runs ${left.join(', ')} did not stop within ${SHUTDOWN_WAIT_MS / 1000} s (a device that does not answer); the store closes without their end, and the next start fails them as interrupted`);
    }
    // Queued runs stay queued for the next start-up, which admits them again.
    for (const id of [...this.held.keys()]) this.releaseHeld(id);
    this.shutdown.abort();
    this.closed = true;
    const lost = this.store.close();
    if (lost.length > 0) {
      this.options.logError(new Error('the store still cannot be written'),
        `the ends of runs ${lost.join(', ')} were never stored; a restart fails those that were running as interrupted`);
    }
  }

  /**
   * `admitting` is the run being admitted, when it is stored already. The block device roots of
   * the other runs going now are held by this service: the planner must not take their claim
   * for somebody else's (a run queued behind another on the same device would be refused).
   */
  private admissionContext(admitting: string | null): AdmissionContext {
    const heldDevices = new Set<string>();
    for (const id of this.active.keys()) {
      if (id === admitting) continue;
      for (const name of this.store.get(id)?.roots ?? []) {
        const root = findRoot(this.roots, name);
        if (root?.kind === 'block_device') heldDevices.add(root.realPath);
      }
    }
    return { roots: this.roots, reserved: this.options.reserved, limits: this.limits, heldDevices };
  }

  /** A stored run admitted again from what it was submitted with, against the roots of now. */
  private admitStored(run: RunRow, held?: HeldTargets): Promise<AdmittedRun> {
    const defaultRoot = run.defaultRoot === null ? null : findRoot(this.roots, run.defaultRoot);
    if (run.defaultRoot !== null && defaultRoot === null) {
      // The root its ?target= named is no longer configured: never run it somewhere else.
      throw unknownTarget(run.defaultRoot, this.roots, true);
    }
    return admitRequest(storedRequest(run), defaultRoot, { ...this.admissionContext(run.id), ...(held ? { held } : {}) });
  }

  /**
   * The run is admitted once more as it starts: a queued run may wait for hours, and meanwhile
   * a directory inside a root may have become a symlink out of it. It is planned beneath the
   * directories held since its admission, and its targets must still be on the devices the
   * queue gave it.
   */
  private async admitAtStart(run: RunRow, entry: QueueEntry): Promise<AdmittedRun> {
    const admitted = await this.admitStored(run, this.held.get(run.id));
    const moved = admitted.queueKeys.filter((k) => !entry.queueKeys.includes(k));
    if (moved.length > 0) {
      admitted.plan.release();
      throw targetChanged(moved, entry.queueKeys);
    }
    return admitted;
  }

  private enqueue(id: string, admitted: AdmittedRun): void {
    this.queue.enqueue({ id, queueKeys: admitted.queueKeys, roots: admitted.roots, memoryBytes: planMemoryBytes(admitted.plan) });
  }

  private endInterrupted(run: RunRow, removal: Removal): void {
    this.endWithoutRunning(run, 'failed', interruptedProblem(`the server stopped while the run was running; ${removalDetail(removal)}`));
  }

  private endWithoutRunning(run: RunRow, status: RunStatus, error: Problem | null): void {
    const finishedAt = Date.now();
    const final = this.store.finish(run.id, { status, finishedAt, error, result: null, assertions: [], gate: null },
      { id: run.id, status, finished_at: new Date(finishedAt).toISOString(), error, gate: null, links: runLinks(run.id) });
    this.events.emit(run.id, final);
  }

  private start(entry: QueueEntry): Promise<void> {
    const run = this.store.get(entry.id);
    if (this.stopping || run === null || run.status !== 'queued') return Promise.resolve();
    const controller = new AbortController();
    const deps: ExecutorDeps = {
      closed: () => this.closed,
      store: this.store,
      events: this.events,
      metrics: this.metrics,
      roots: this.roots,
      logError: (err, runId) => this.options.logError(err, `run ${runId}`),
    };
    const { signal } = controller;
    const done = this.admitAtStart(run, entry)
      .then((admitted) => {
        if (!signal.aborted) {
          const active = this.active.get(run.id);
          // A size-based run's length is unknown until it reports progress: no estimate.
          const seconds = timeBasedSeconds(admitted.plan.spec);
          if (active && seconds > 0) active.endsAtMs = Date.now() + seconds * 1000;
          return executeRun(deps, run, admitted, signal);
        }
        admitted.plan.release();
        // Stopped before it started: cancelled, or on shutdown left queued for the next start-up.
        if (signal.reason === 'cancel') this.endWithoutRunning(run, 'cancelled', null);
        return undefined;
      })
      .catch((err: unknown) => {
        // Refused as it starts (admitted again, or its start could not be recorded), or a bug:
        // whatever it is, the run ends rather than stays queued or running with nothing behind it.
        const problem = knownProblem(err);
        if (problem === null) this.options.logError(err, `run ${run.id}`);
        if (this.closed) return;
        const now = this.store.get(run.id);
        if (now !== null && !isTerminal(now.status)) this.endWithoutRunning(now, 'failed', problem ?? INTERNAL_PROBLEM);
      })
      .finally(() => {
        this.active.delete(run.id);
        this.releaseHeld(run.id);
      });
    this.active.set(run.id, { controller, done });
    return done;
  }
}
