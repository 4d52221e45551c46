/** `volbench fleet list`: the live fleets of this machine, and with --bucket those saved there, with their cost so far. */
import { fleetUsdPerHour } from '../../cloud/index.js';
import { fleetClients, listRemoteStates, listStates, type FleetState } from '../../fleet/index.js';
import type { FleetSubcommand } from './context.js';
import { region, type FleetValues } from './flags.js';
import { print } from './print.js';

function listed(states: FleetState[]) {
  const now = Date.now();
  return states.map((s) => {
    const hours = (now - Date.parse(s.createdAt)) / 3.6e6;
    const hourly = fleetUsdPerHour(s.plan.instanceHourly, s.plan.members.map((m) => m.volumeMonthly), s.plan).usd;
    return { fleetId: s.fleetId, region: s.region, status: s.status, ...(s.study ? { step: s.study.step } : {}), members: s.members.length, createdAt: s.createdAt, expiresAt: s.expiresAt,
      costSoFarUsd: s.status === 'down' ? undefined : Math.round(hours * hourly * 100) / 100 };
  }).filter((f) => f.status !== 'down');
}

/** This machine's states, and those in --bucket that it lacks. */
async function states(values: FleetValues, stateDir: string): Promise<FleetState[]> {
  const local = listStates(stateDir);
  if (!values.bucket) return local;
  const clients = fleetClients({ region: region(values), profile: values.profile });
  try {
    const mine = new Set(local.map((s) => s.fleetId));
    return [...local, ...(await listRemoteStates(clients, values.bucket)).filter((s) => !mine.has(s.fleetId))];
  } finally {
    clients.destroy();
  }
}

export const list: FleetSubcommand = {
  flags: ['bucket'],
  async run({ values, io, stateDir }) {
    const live = listed(await states(values, stateDir));
    const text = live.length === 0 ? 'no live fleets\n' : live.map((f) =>
      `${f.fleetId}  ${f.region}  ${f.status}${f.step ? ` (study: ${f.step})` : ''}  ${f.members} instance(s)  since ${f.createdAt}${f.expiresAt ? `  expires ${f.expiresAt}` : ''}  ~$${(f.costSoFarUsd ?? 0).toFixed(2)} so far\n`).join('');
    print(io, values, { fleets: live }, text);
    return 0;
  },
};
