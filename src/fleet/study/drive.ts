/**
 * A driver that stays with a study to its end: the CLI's `fleet compare` (a new study) and
 * `fleet attach` (one started anywhere, from its state in S3 alone). It holds the study's lease
 * (renewed as it goes, released at the end), calls the machine (advance.ts) until the study is
 * done or failed, and between calls waits a few seconds, longer while the members run.
 *
 * A signal stops driving the members: the study is cancelled (its members not yet done are
 * `cancelled`) and torn down, the call under way (a CreateStack among them) answered first, so
 * nothing it made is missed. An AWS call that keeps failing fails the study after a few tries in
 * a row, and it is torn down; failing in the teardown itself, the driver gives up and says so,
 * and the schedules delete the stacks at the expiry.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { VolbenchError } from '../../errors.js';
import type { Report } from '../../publish/index.js';
import type { FleetEvent } from '../events.js';
import { fleetLog } from '../events.js';
import type { MemberResult } from '../member-run.js';
import { fleetReport } from '../report.js';
import type { FleetState } from '../state.js';
import { advanceStudy, cancelStudy } from './advance.js';
import { collectedResults } from './collect-step.js';
import type { StudyContext } from './context.js';
import { HeldLease } from './lease.js';
import { prepareStudy, startStudy, type StudyInput } from './start.js';
import { isTerminal, studyOf } from './steps.js';

export interface DriveOptions extends StudyContext {
  /** Aborted: the study is cancelled and torn down. */
  signal?: AbortSignal;
  /** Why the signal came (e.g. SIGTERM), for the study's failure. */
  signalName?: () => string | undefined;
  /** The longest wait between calls, in milliseconds (default 5000), and while the members run (default 10000); after a step moved, 1 s, then twice as long each time. */
  pollMs?: number;
  runningPollMs?: number;
  /** The lease's length (default 60 s), who holds it, and whether to wait for another driver's. */
  leaseSec?: number;
  holder?: string;
  wait?: boolean;
  /** Failed calls in a row before the study is failed (default 5). */
  maxErrors?: number;
}

export interface StudyOutcome {
  state: FleetState;
  /** One per member, in the plan's order, with its result where it was collected. */
  results: MemberResult[];
  report: Report;
  /** The fleet was left up (`keep`). */
  kept: boolean;
  /** What of the fleet is still there after its teardown (should be nothing). */
  remaining: string[];
}

const FATAL = new Set(['ESTUDY_LEASED', 'EFLEET_STATE', 'EINVALID_ARGS']);

async function pause(ms: number, signal?: AbortSignal): Promise<void> {
  await sleep(ms, undefined, { signal }).catch(() => {});
}

async function drive(fleetId: string, lease: HeldLease, opts: DriveOptions): Promise<StudyOutcome> {
  let remaining: string[] = [];
  const listener = opts.onEvent;
  const ctx: StudyContext = { ...opts, onEvent: (e: FleetEvent) => {
    if (e.event === 'torn-down') remaining = e.remaining;
    listener?.(e);
  } };
  const log = fleetLog(fleetId, listener);
  let report: Report | undefined;
  let state: FleetState | undefined;
  let cancelled = false;
  let wait = 0;
  for (let errors = 0; ;) {
    if (opts.signal?.aborted && !cancelled) {
      cancelled = true;
      await cancelStudy(fleetId, ctx, `interrupted${opts.signalName?.() ? ` (${opts.signalName()})` : ''}`);
    }
    const was = state ? studyOf(state).step : undefined;
    try {
      await lease.renew();
      const advanced = await advanceStudy(fleetId, ctx);
      state = advanced.state;
      report ??= advanced.report;
      errors = 0;
    } catch (err) {
      if (err instanceof VolbenchError && FATAL.has(err.code)) throw err;
      errors++;
      log(`study ${fleetId}: ${(err as Error).message}`);
      if (errors >= (opts.maxErrors ?? 5)) {
        const step = state ? studyOf(state).step : 'planned';
        if (step === 'tearing-down' || isTerminal(step)) throw err;
        state = await cancelStudy(fleetId, ctx, `failed: ${(err as Error).message}`);
        errors = 0;
      }
    }
    if (state && isTerminal(studyOf(state).step)) break;
    const step = state ? studyOf(state).step : 'planned';
    // Soon after a step moved (a stack asked for, a deletion sent), then less and less often, up
    // to the step's longest wait: few calls while AWS or the members take their time.
    const longest = step === 'running' ? (opts.runningPollMs ?? 10_000) : (opts.pollMs ?? 5000);
    wait = step !== was ? Math.min(1000, longest) : Math.min(wait * 2, longest);
    if (!(opts.signal?.aborted && !cancelled)) await pause(wait, cancelled ? undefined : opts.signal);
  }
  const results = await collectedResults(state, ctx);
  if (!report) {
    // A study that ended before its report (it failed, or was cancelled), or a driver that came
    // after it (an attach to a finished study): each member's outcome and the report all the same.
    for (const { result: _doc, ...outcome } of results) listener?.({ event: 'result', fleetId, ...outcome });
    report = fleetReport(state, results);
    listener?.({ event: 'report', fleetId, report });
  }
  const study = studyOf(state);
  return { state, results, report, kept: study.step === 'done' && !!study.keep, remaining };
}

/** Holds the lease over `run`, released at the end whatever happens. */
async function leased<T>(fleetId: string, opts: DriveOptions, run: (lease: HeldLease) => Promise<T>): Promise<T> {
  const lease = await HeldLease.take({
    clients: opts.clients, bucket: opts.bucket, fleetId, holder: opts.holder, leaseSec: opts.leaseSec, wait: opts.wait, signal: opts.signal, now: opts.now,
    log: fleetLog(fleetId, opts.onEvent),
  });
  try {
    return await run(lease);
  } finally {
    await lease.release().catch(() => {});
  }
}

/**
 * A new study, whole: checked and placed (nothing made on a refusal), started under its lease
 * (state, spec, bundle), then driven to its end. `created` is said first.
 */
export async function compareStudy(input: StudyInput, opts: DriveOptions): Promise<StudyOutcome> {
  const prepared = await prepareStudy(input, opts);
  const { fleetId } = prepared.state;
  return leased(fleetId, opts, async (lease) => {
    try {
      await startStudy(prepared, opts);
    } catch (err) {
      // What it put up (its state, perhaps the spec and bundle) is taken down by the machine: a
      // study left planned without its settings fails, and its teardown runs.
      await drive(fleetId, lease, { ...opts, maxErrors: 1 }).catch(() => {});
      throw err;
    }
    return drive(fleetId, lease, opts);
  });
}

/** Drives the study `fleetId` from its state in S3 to its end, as any machine with the credentials can. */
export async function attachStudy(fleetId: string, opts: DriveOptions): Promise<StudyOutcome> {
  return leased(fleetId, opts, (lease) => drive(fleetId, lease, opts));
}
