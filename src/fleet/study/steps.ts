/**
 * A study's whole life, as one state machine over the fleet's state (`FLEET/fleet.json`):
 *
 *   planned ──> creating ──> running ──> collecting ──> reporting ──> tearing-down ──> done
 *      │           │            │                           │               │
 *      └───────────┴────────────┴──> tearing-down ──────────┘(keep: done)   └──> failed
 *
 * - planned: the spec and the bundle are in S3, the stacks' shared settings in the state; the
 *   study roles' stack is ready. Only the driver that started the study holds the bundle: a
 *   driver that finds a study planned without its settings fails it.
 * - creating: a schedule per member (its expiry, AWS's own), then a stack per member (one
 *   CreateStack each, its token the member's), each followed until created or failed. A member
 *   that fails takes the study to its teardown.
 * - running: each member's progress.json and done.json are read, until every member is done (or
 *   failed: objects refused, its instance ended without done.json, the fleet's expiry passed).
 * - collecting: each member's result is fetched, checked and saved beside the state (and beneath
 *   --out where the driver has one).
 * - reporting: the report of the collected results; then the teardown, or done with `keep`.
 * - tearing-down: DeleteStack for every stack, followed until they are gone; then the schedules,
 *   secrets and objects; done, or failed when the study was to fail or something remains.
 *
 * Every step does what is due and returns: none waits on a member or a stack, so one call (the
 * Lambda form's, once a minute) advances the study as far as it can, and a driver's loop calls it
 * again. Every step is idempotent: a driver that died anywhere is replaced by one that reads the
 * state from S3 and calls the same step again.
 */
import type { OnFleetEvent } from '../events.js';
import type { FleetMemberState, FleetState, FleetStatus, StudyState, StudyStep } from '../state.js';

export const STUDY_STEPS: readonly StudyStep[] = ['planned', 'creating', 'running', 'collecting', 'reporting', 'tearing-down', 'done', 'failed'];

/** Where each step may go. */
const NEXT: Readonly<Record<StudyStep, readonly StudyStep[]>> = {
  planned: ['creating', 'tearing-down'],
  creating: ['running', 'tearing-down'],
  running: ['collecting', 'tearing-down'],
  collecting: ['reporting', 'tearing-down'],
  reporting: ['tearing-down', 'done'],
  'tearing-down': ['done', 'failed'],
  done: [],
  failed: [],
};

/** What the fleet's status says at each step (`fleet list`). */
const STATUS: Readonly<Record<StudyStep, FleetStatus>> = {
  planned: 'creating', creating: 'creating', running: 'running', collecting: 'running', reporting: 'running', 'tearing-down': 'deleting', done: 'down', failed: 'down',
};

export function isTerminal(step: StudyStep): boolean {
  return NEXT[step].length === 0;
}

/** The study of a state, refused when the fleet is none (made by `fleet up`: driven by `fleet run`). */
export function studyOf(state: FleetState): StudyState {
  if (!state.study) throw new Error(`fleet ${state.fleetId} is not a study`);
  return state.study;
}

/**
 * Moves the study to `step`, says so (`step` event), and keeps the fleet's status in line. A move
 * the machine does not have is a bug, thrown as such.
 */
export function moveTo(state: FleetState, step: StudyStep, onEvent?: OnFleetEvent, reason?: string, now = new Date()): void {
  const study = studyOf(state);
  const from = study.step;
  if (from === step) return;
  if (!NEXT[from].includes(step)) throw new Error(`study ${state.fleetId}: no step from ${from} to ${step}`);
  study.step = step;
  study.updatedAt = now.toISOString();
  state.status = step === 'done' && study.keep ? 'up' : STATUS[step];
  onEvent?.({ event: 'step', fleetId: state.fleetId, step, from, ...(reason ? { reason } : {}) });
}

/** Whether a member needs no more looking at: its stack failed, it is done, or it failed or was cancelled. */
export function settled(m: FleetMemberState): boolean {
  return m.status === 'failed' || m.done !== undefined || m.error !== undefined;
}

/**
 * The study is to fail (why), and goes to its teardown (from any step before it): its members
 * not yet settled are cancelled.
 */
export function failStudy(state: FleetState, reason: string, onEvent?: OnFleetEvent, now = new Date()): void {
  const study = studyOf(state);
  if (isTerminal(study.step) || study.step === 'tearing-down') return;
  for (const m of state.members) if (!settled(m)) m.error = 'cancelled';
  study.failure ??= reason;
  moveTo(state, 'tearing-down', onEvent, reason, now);
}
