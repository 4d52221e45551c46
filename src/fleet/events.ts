/**
 * What a fleet's life says as it goes, in the order it happens: the fleet's id is known
 * (`created`, always first), each member's stack is up or failed, each member's run moves and
 * ends with its result, the report is made, the fleet is torn down or kept. The CLI prints them:
 * as lines of text on stderr, and with `--format json` (`fleet up`, `fleet compare`) as one JSON
 * object a line on stdout, `event` and `fleetId` its first two keys.
 *
 * The union is closed and told apart by `event`: a driver of the fleet (the CLI today; later a
 * study's service or its Lambda form) switches on it, and a later step adds a member of the
 * union, never a field whose meaning depends on another's.
 */
import type { MemberDone, MemberProgress as MemberProgressObject } from '../api/study-objects.js';
import type { Report } from '../publish/index.js';

/** The fleet's id exists; nothing in AWS is made yet (preflight comes next). */
export interface FleetCreated {
  event: 'created';
  fleetId: string;
  region: string;
  instanceType: string;
  /** Its members' labels, in the plan's order. */
  members: string[];
  /** ISO-8601 UTC: when everything of it may be deleted and its members shut down. */
  expiresAt: string;
}

/**
 * A study moved to its next step (study/steps.ts): planned, creating, running, collecting,
 * reporting, tearing-down, then done or failed. `reason` says why, where the step is a failure's
 * (a member's stack failed, a signal, the expiry).
 */
export interface StudyStepEvent {
  event: 'step';
  fleetId: string;
  step: StudyStepName;
  /** The step it left. */
  from: StudyStepName;
  reason?: string;
}

export type StudyStepName = 'planned' | 'creating' | 'running' | 'collecting' | 'reporting' | 'tearing-down' | 'done' | 'failed';

/** A member's stack is created: its instance runs, its service answered its boot signal. */
export interface MemberUp {
  event: 'member-up';
  fleetId: string;
  label: string;
  /** Where it answers, as its stack says (none: reach it through --endpoint-map). */
  endpoint?: string;
  instanceId?: string;
}

/**
 * A member failed: its stack could not be made (the fleet is then torn down), or what it wrote
 * to its prefix was refused (not what a member writes: the reason names the object and field).
 */
export interface MemberFailed {
  event: 'member-failed';
  fleetId: string;
  label: string;
  reason: string;
}

/**
 * A member's run moved: a line for a person (the test it started, its rates, the precondition),
 * and for an autonomous member its progress object as it wrote it (schema-checked), from which a
 * live table is drawn.
 */
export interface MemberProgress {
  event: 'progress';
  fleetId: string;
  label: string;
  line: string;
  progress?: MemberProgressObject;
}

/**
 * An autonomous member wrote its `done.json` (schema-checked): it ran its workload (`ok`) or
 * could not (`failed`, with why), and shuts itself down.
 */
export interface MemberDoneEvent {
  event: 'member-done';
  fleetId: string;
  label: string;
  status: MemberDone['status'];
  finishedAt: string;
  reason?: string;
  /** The member's local CLI's exit status. */
  exitCode?: number;
}

/**
 * An autonomous member's result was fetched from its prefix, checked (size, SHA-256, schema) and
 * saved: `key` the controller's copy in the bucket, `file` beneath --out where the driver has one.
 */
export interface MemberCollected {
  event: 'collected';
  fleetId: string;
  label: string;
  key: string;
  file?: string;
}

/** How a member's run ended, as a fleet's run returns it (run.ts adds the document itself). */
export interface MemberOutcome {
  label: string;
  /** `unreachable`: never submitted, or lost before its end (`error` says why). */
  status: 'finished' | 'failed' | 'cancelled' | 'unreachable';
  /** The gate's verdict, where the run had assertions. */
  gate?: string;
  /** Where its fio JSON was saved. */
  file?: string;
  error?: string;
}

/** A member's run ended (or never started): its outcome, and where its fio JSON was saved. */
export interface MemberResultEvent extends MemberOutcome {
  event: 'result';
  fleetId: string;
}

/** The price/performance report of every member's result (publish's model). */
export interface FleetReportEvent {
  event: 'report';
  fleetId: string;
  report: Report;
}

/** The teardown started: stacks, what outlived them, secrets and objects are being deleted. */
export interface FleetTearingDown {
  event: 'tearing-down';
  fleetId: string;
}

/** The teardown ended: what is still there (should be nothing), and what was not the fleet's to delete. */
export interface FleetTornDown {
  event: 'torn-down';
  fleetId: string;
  remaining: string[];
  leftAlone: string[];
}

/** `keep`: the fleet stays up after its run, until `fleet down` or its expiry. */
export interface FleetKept {
  event: 'kept';
  fleetId: string;
  expiresAt?: string;
}

/** Anything else worth a line: AWS's answers during a teardown, stacks left alone, a signal's first step. */
export interface FleetLog {
  event: 'log';
  fleetId: string;
  line: string;
}

export type FleetEvent =
  | FleetCreated | StudyStepEvent | MemberUp | MemberFailed | MemberProgress | MemberDoneEvent | MemberCollected | MemberResultEvent | FleetReportEvent
  | FleetTearingDown | FleetTornDown | FleetKept | FleetLog;

export type FleetEventName = FleetEvent['event'];

/** Every event, in the order a study meets them (docs/fleet.md lists each: a test holds them together). */
export const FLEET_EVENT_NAMES = [
  'created', 'step', 'member-up', 'member-failed', 'progress', 'member-done', 'collected', 'result', 'report', 'tearing-down', 'torn-down', 'kept', 'log',
] as const satisfies readonly FleetEventName[];

// Every member of the union is in the list: a new event that is not fails to compile here.
const listsEvery: Exclude<FleetEventName, (typeof FLEET_EVENT_NAMES)[number]> extends never ? true : never = true;
void listsEvery;

export type OnFleetEvent = (event: FleetEvent) => void;

/** A `log` event's sender for one fleet; nothing is sent without a listener. */
export function fleetLog(fleetId: string, onEvent?: OnFleetEvent): (line: string) => void {
  return (line) => onEvent?.({ event: 'log', fleetId, line });
}
