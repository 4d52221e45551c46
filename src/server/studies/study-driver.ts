/**
 * The service's driver of its studies: one loop for all of them, each study advanced by the
 * library's machine (advanceStudy, the call the CLI's driver makes) under its lease, soon after a
 * step moved and less often after, as the CLI's driver does. Nothing waits on a member: a call
 * does what is due and the loop comes back later.
 *
 * A study whose lease another driver holds is not advanced: the loop asks again later and takes
 * it once released or expired. A lease held by this very service in an earlier life (killed with
 * kill -9, then started again on the same data directory, whose lock proves the earlier process
 * gone) is taken at once: a restart resumes every open study it owned. A graceful stop releases
 * every lease, so any driver may go on at once.
 */
import { VolbenchError } from '../../errors.js';
import { advanceStudy, cancelStudy, HeldLease, isTerminal, type FleetState, type StudyContext } from '../../fleet/index.js';
import type { StudyIndex, StudyIndexEntry } from './study-index.js';

export interface DriverDeps {
  index: StudyIndex;
  contextOf(entry: StudyIndexEntry): StudyContext;
  holder: string;
  mine(holder: string): boolean;
  log(line: string): void;
  pollMs: number;
  runningPollMs: number;
  leaseSec: number;
}

interface Driven {
  entry: StudyIndexEntry;
  lease?: HeldLease;
  dueAt: number;
  waitMs: number;
  errors: number;
  step?: string;
  busy: boolean;
  cancels: Array<{ reason: string; done: (state: FleetState | undefined, err?: unknown) => void }>;
}

/** Failed calls in a row before the study is failed, as the CLI's driver. */
const MAX_ERRORS = 5;
const FATAL = new Set(['EFLEET_STATE', 'EINVALID_ARGS']);
const TICK_MS = 200;

export class StudyDriver {
  private readonly driven = new Map<string, Driven>();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly deps: DriverDeps) {}

  /** Every open study of the index (after a restart: those it was driving). */
  async resume(): Promise<number> {
    const open = await this.deps.index.open();
    for (const entry of open) this.adopt(entry);
    return open.length;
  }

  /** Drives `entry` from now on; `lease` when the caller took it already (a study it just started). */
  adopt(entry: StudyIndexEntry, lease?: HeldLease): void {
    if (this.closed || this.driven.has(entry.id)) return;
    this.driven.set(entry.id, { entry, ...(lease ? { lease } : {}), dueAt: Date.now(), waitMs: 0, errors: 0, busy: false, cancels: [] });
    this.schedule();
  }

  /** Whether this loop drives `id` and holds its lease now. */
  holds(id: string): boolean {
    return this.driven.get(id)?.lease !== undefined;
  }

  /** Cancels a study this loop drives, between two of its calls; the state after. */
  cancel(id: string, reason: string): Promise<FleetState | undefined> {
    const d = this.driven.get(id);
    if (!d) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      d.cancels.push({ reason, done: (state, err) => (err ? reject(err) : resolve(state)) });
      d.dueAt = Date.now();
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.turnAll();
      if (this.driven.size) this.schedule();
    }, TICK_MS);
    this.timer.unref?.();
  }

  private turnAll(): void {
    const now = Date.now();
    for (const d of this.driven.values()) {
      if (d.busy || d.dueAt > now) continue;
      d.busy = true;
      void this.turn(d).finally(() => {
        d.busy = false;
      });
    }
  }

  private async takeLease(d: Driven): Promise<boolean> {
    if (d.lease) return true;
    try {
      const { clients, bucket } = this.deps.contextOf(d.entry);
      d.lease = await HeldLease.take({ clients, bucket, fleetId: d.entry.id, holder: this.deps.holder, leaseSec: this.deps.leaseSec, mine: this.deps.mine });
      return true;
    } catch (err) {
      if (!(err instanceof VolbenchError && err.code === 'ESTUDY_LEASED')) throw err;
      // Another driver has it: not advanced; asked again later, taken once free.
      d.dueAt = Date.now() + Math.max(1000, (this.deps.leaseSec * 1000) / 4);
      return false;
    }
  }

  private async turn(d: Driven): Promise<void> {
    const { id } = d.entry;
    const ctx = this.deps.contextOf(d.entry);
    let state: FleetState | undefined;
    try {
      if (!(await this.takeLease(d))) return;
      await d.lease!.renew();
      for (const c of d.cancels.splice(0)) {
        try {
          c.done(await cancelStudy(id, ctx, c.reason));
        } catch (err) {
          c.done(undefined, err);
        }
      }
      state = (await advanceStudy(id, ctx)).state;
      d.errors = 0;
    } catch (err) {
      this.failed(d, err);
      if (!this.driven.has(id)) return;
    }
    const step = state?.study?.step;
    if (state && step) {
      await this.deps.index.setStep(id, step, state.study!.updatedAt).catch((err: Error) => this.deps.log(`study ${id}: the index: ${err.message}`));
      if (isTerminal(step)) return this.drop(d);
    }
    // Soon after a step moved, then less and less often, up to the step's longest wait.
    const longest = step === 'running' ? this.deps.runningPollMs : this.deps.pollMs;
    d.waitMs = step !== d.step ? Math.min(1000, longest) : Math.min(Math.max(d.waitMs, 250) * 2, longest);
    d.step = step ?? d.step;
    d.dueAt = Date.now() + d.waitMs;
  }

  /** A call that failed: a lost lease is let go (taken again once free); a state volbench did not write stops the driving; others are tried again, and fail the study after a few in a row. */
  private failed(d: Driven, err: unknown): void {
    const { id } = d.entry;
    const code = err instanceof VolbenchError ? err.code : undefined;
    this.deps.log(`study ${id}: ${(err as Error).message}`);
    if (code === 'ESTUDY_LEASED') {
      d.lease = undefined;
      return;
    }
    if (code && FATAL.has(code)) {
      this.drop(d);
      return;
    }
    if (++d.errors < MAX_ERRORS) return;
    d.errors = 0;
    if (d.step === 'tearing-down') {
      this.deps.log(`study ${id}: its teardown keeps failing; this service stops driving it (its schedules delete its stacks at its expiry)`);
      this.drop(d);
      return;
    }
    d.cancels.push({ reason: `failed: ${(err as Error).message}`, done: () => {} });
  }

  private drop(d: Driven): void {
    this.driven.delete(d.entry.id);
    for (const c of d.cancels.splice(0)) c.done(undefined);
    void d.lease?.release().catch(() => {});
  }

  /** Stops the loop once the calls under way have answered, and releases every lease. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (let i = 0; i < 100 && [...this.driven.values()].some((d) => d.busy); i++) await new Promise((r) => setTimeout(r, 100));
    await Promise.all([...this.driven.values()].map((d) => d.lease?.release().catch(() => {})));
    this.driven.clear();
  }
}
