/**
 * The first step of a teardown on a signal: DeleteStack for every member at once, each call
 * given at most `withinMs`, and the state marked `deleting` (locally first, then its S3 copy).
 * Waiting for the deletion is the ordinary `fleetDown`'s, if the process is let live that long.
 */
import { DeleteStackCommand } from '@aws-sdk/client-cloudformation';

import type { FleetClients } from './aws.js';
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
    try {
      await clients.cfn.send(new DeleteStackCommand({ StackName: m.stackName }), { abortSignal: AbortSignal.timeout(withinMs) });
      out.requested.push(m.stackName);
    } catch (err) {
      out.failed.push({ stack: m.stackName, reason: (err as Error).message });
    }
  }));
  // The S3 copy is best effort within the same budget; the local file is written first.
  await Promise.race([saveState(state, stateDir, clients).catch(() => saveState(state, stateDir)), new Promise((r) => setTimeout(r, withinMs).unref())]).catch(() => {});
  return out;
}
