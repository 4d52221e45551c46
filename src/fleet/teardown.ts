/**
 * The first step of a teardown on a signal: DeleteStack for every member at once, each call
 * given at most `withinMs`, and the state marked `deleting` (locally first, then its S3 copy).
 * Each stack is the one the member's label names (never a name the state holds), and is deleted
 * only once it shows the fleet's tag. Waiting for the deletion is the ordinary `fleetDown`'s, if
 * the process is let live that long.
 */
import { DeleteStackCommand, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';

import type { FleetClients } from './aws.js';
import { fleetLog, type OnFleetEvent } from './events.js';
import { strangerReason } from './member-stacks.js';
import { stackNameFor } from './names.js';
import { saveState, type FleetState } from './state.js';

export interface StacksDeleted {
  /** Stacks whose DeleteStack CloudFormation accepted. */
  requested: string[];
  /** Stacks whose call failed or did not answer in time, with why. */
  failed: Array<{ stack: string; reason: string }>;
}

export async function deleteStacksNow(state: FleetState, clients: FleetClients, stateDir: string, withinMs = 5000): Promise<StacksDeleted> {
  state.status = 'deleting';
  const out: StacksDeleted = { requested: [], failed: [] };
  await Promise.all(state.members.map(async (m) => {
    const name = stackNameFor(state.fleetId, m.label);
    const abortSignal = AbortSignal.timeout(withinMs);
    try {
      const stack = (await clients.cfn.send(new DescribeStacksCommand({ StackName: name }), { abortSignal })).Stacks?.[0];
      const why = stack ? strangerReason(stack, state.fleetId, name) : 'is not described';
      if (why) {
        out.failed.push({ stack: name, reason: `left alone: it ${why}` });
        return;
      }
      await clients.cfn.send(new DeleteStackCommand({ StackName: stack!.StackId ?? name }), { abortSignal });
      out.requested.push(name);
    } catch (err) {
      // A stack not made yet has nothing to delete.
      if (!/does not exist/i.test((err as Error).message)) out.failed.push({ stack: name, reason: (err as Error).message });
    }
  }));
  // The S3 copy is best effort within the same budget; the local file is written first.
  await Promise.race([saveState(state, stateDir, clients).catch(() => saveState(state, stateDir)), new Promise((r) => setTimeout(r, withinMs).unref())]).catch(() => {});
  return out;
}

/** States whose stacks were asked to go already: a signal's first step is taken once. */
const requested = new WeakSet<FleetState>();

export interface AbortTeardownOptions {
  clients: FleetClients;
  stateDir: string;
  onEvent?: OnFleetEvent;
}

/**
 * A signal's first step, on `signal`'s abort (at once if it has): DeleteStack for every member
 * of the fleet, once per fleet whoever asks; the caller's teardown waits for the deletion. Says
 * what was asked, as a log event. Returns what stops listening.
 */
export function deleteStacksOnAbort(signal: AbortSignal | undefined, state: FleetState, opts: AbortTeardownOptions): () => void {
  if (!signal) return () => {};
  const log = fleetLog(state.fleetId, opts.onEvent);
  const onAbort = () => {
    if (requested.has(state)) return;
    requested.add(state);
    void deleteStacksNow(state, opts.clients, opts.stateDir).then((done) => log(`fleet ${state.fleetId}: deletion requested for ${done.requested.length} stack(s)` +
      `${done.failed.length ? `; not for ${done.failed.map((f) => `${f.stack} (${f.reason})`).join(', ')}` : ''}`), (err: Error) => log(`fleet ${state.fleetId}: ${err.message}`));
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return () => signal.removeEventListener('abort', onAbort);
}
