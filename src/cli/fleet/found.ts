/**
 * A fleet that exists (`run`, `report`, `down`): its id as typed, its state from this machine's
 * file, else (with --bucket) its copy in S3, read through the library's verifier; AWS clients for
 * its region.
 */
import { VolbenchError } from '../../errors.js';
import { checkFleetId, fleetClients, listStates, loadState, type FleetClients, type FleetState } from '../../fleet/index.js';
import type { FleetContext } from './context.js';
import { region } from './flags.js';

function fleetId({ sub, positionals }: FleetContext): string {
  const id = positionals[0];
  if (!id) throw new VolbenchError('EINVALID_ARGS', `fleet ${sub}: which fleet? give its id (volbench fleet list shows them)`, { field: 'FLEET_ID', accepted: 'a fleet id' });
  return checkFleetId(id);
}

export interface FoundFleet {
  state: FleetState;
  clients: FleetClients;
}

export async function foundFleet(ctx: FleetContext): Promise<FoundFleet> {
  const { values, stateDir } = ctx;
  const id = fleetId(ctx);
  const local = listStates(stateDir).find((s) => s.fleetId === id);
  if (local) return { state: local, clients: fleetClients({ region: local.region, profile: values.profile }) };
  // Without a bucket there is nowhere else to look: say so before asking for a region.
  if (!values.bucket) await loadState(id, stateDir);
  const finder = fleetClients({ region: region(values), profile: values.profile });
  let state: FleetState;
  try {
    state = await loadState(id, stateDir, finder, values.bucket);
  } catch (err) {
    finder.destroy();
    throw err;
  }
  if (state.region === finder.region) return { state, clients: finder };
  finder.destroy();
  return { state, clients: fleetClients({ region: state.region, profile: values.profile }) };
}
