/**
 * A study found in a bucket (`attach`, `status`): its state read from S3 with clients of
 * --region (or AWS_REGION), then AWS clients of the study's own region, which the verified state
 * names.
 */
import { fleetClients, loadRemoteState, type FleetClients, type FleetState } from '../../fleet/index.js';
import type { FleetContext } from './context.js';
import { region } from './flags.js';

/** The study's state as it was read, and clients for its region. */
export async function studyFound(ctx: FleetContext, fleetId: string, bucket: string): Promise<{ state: FleetState; clients: FleetClients }> {
  const finder = fleetClients({ region: region(ctx.values), profile: ctx.values.profile });
  let state: FleetState;
  try {
    state = await loadRemoteState(fleetId, finder, bucket);
  } catch (err) {
    finder.destroy();
    throw err;
  }
  if (state.region === finder.region) return { state, clients: finder };
  finder.destroy();
  return { state, clients: fleetClients({ region: state.region, profile: ctx.values.profile }) };
}

export async function studyClients(ctx: FleetContext, fleetId: string, bucket: string): Promise<FleetClients> {
  return (await studyFound(ctx, fleetId, bucket)).clients;
}
