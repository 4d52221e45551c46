/**
 * A study of volume types, whole: the fleet up (stacks.ts), the workload on every member
 * (run.ts), the report, and the fleet down, or kept with `keep`. Every step says what it does
 * through `onEvent` (events.ts), `created` first.
 *
 * A signal (`signal` aborted) at any step asks every stack to go at once (teardown.ts), stops
 * the waits and the runs, and ends in the teardown, `keep` or not: nothing of the fleet is left
 * running because its driver was interrupted. The outcome says what the runs gave; a refusal
 * before anything was created, or a fleet that could not be made (torn down already), throws.
 */
import type { Report } from '../publish/index.js';
import { fleetDown } from './down.js';
import type { MemberOutcome } from './events.js';
import type { FleetPlan } from './plan.js';
import { fleetReport } from './report.js';
import { runFleet, type FleetRunOptions, type MemberResult } from './run.js';
import { fleetUp, type UpOptions } from './stacks.js';
import type { FleetState } from './state.js';
import { deleteStacksOnAbort } from './teardown.js';

export interface CompareOptions extends UpOptions, Omit<FleetRunOptions, 'clients' | 'signal' | 'onEvent' | 'suite'> {
  /** Leave the fleet up after the report (until `fleet down` or its expiry); a signal tears it down all the same. */
  keep?: boolean;
}

export interface CompareOutcome {
  state: FleetState;
  /** One per member, in the plan's order (none when a signal came before the runs started). */
  results: MemberResult[];
  report: Report;
  /** The fleet was left up (`keep`). */
  kept: boolean;
  /** What of the fleet is still there after its teardown (should be nothing; nothing to say when kept). */
  remaining: string[];
}

/** Whether a study's runs all held: every member finished, and no gate failed. */
export function studyPassed(results: readonly MemberOutcome[]): boolean {
  return results.length > 0 && results.every((r) => r.status === 'finished' && r.gate !== 'failed');
}

/** The end of a study: its teardown, or (`keep`, and no signal) the fleet left up. */
async function end(state: FleetState, opts: CompareOptions): Promise<Pick<CompareOutcome, 'kept' | 'remaining'>> {
  if (opts.keep && !opts.signal?.aborted) {
    opts.onEvent?.({ event: 'kept', fleetId: state.fleetId, expiresAt: state.expiresAt });
    return { kept: true, remaining: [] };
  }
  const { remaining } = await fleetDown(state, { clients: opts.clients, stateDir: opts.stateDir, onEvent: opts.onEvent });
  return { kept: false, remaining };
}

/** Up, run, report, down: the members run the suites the plan gave them (or `jobFile`). */
export async function compareFleet(plan: FleetPlan, opts: CompareOptions): Promise<CompareOutcome> {
  const state = await fleetUp(plan, opts);
  const stopListening = deleteStacksOnAbort(opts.signal, state, opts);
  let results: MemberResult[] = [];
  let report: Report;
  let ending: Pick<CompareOutcome, 'kept' | 'remaining'>;
  try {
    if (!opts.signal?.aborted) results = await runFleet(state, { ...opts, suite: undefined });
    report = fleetReport(state, results);
    opts.onEvent?.({ event: 'report', fleetId: state.fleetId, report });
  } finally {
    stopListening();
    ending = await end(state, opts);
  }
  return { state, results, report, ...ending };
}
