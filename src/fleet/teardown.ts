/**
 * The first step of a teardown on a signal: DeleteStack for every member at once, each call
 * given at most `withinMs`, and the state marked `deleting` (locally first, then its S3 copy).
 * Each stack is the one the member's label names (never a name the state holds), and is deleted
 * only once it shows the fleet's tag. Waiting for the deletion is the ordinary `fleetDown`'s, if
 * the process is let live that long.
 */
import { DeleteStackCommand, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';

import type { FleetClients } from './aws.js';
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
