/**
 * `volbench fleet compare`: the whole study in one command. By default a study of autonomous
 * members (the library's compareStudy): each member runs its workload on its own and writes to
 * its S3 prefix, and this command drives the study's machine to its end, holding its lease; any
 * machine can take over with `fleet attach`. `--interactive` keeps the members' HTTPS service
 * driven from here (compareFleet), as `fleet up` + `fleet run` do. `--fleet-id ID` names the
 * study: one that exists in the bucket is resumed, not made again.
 *
 * Exits 0 when every member finished and no gate failed, 1 otherwise, 2 when another driver
 * holds the study (naming it), the signal's status after a signal (the study is torn down).
 */
import { hostname } from 'node:os';

import { VolbenchError } from '../../errors.js';
import { compareFleet, compareStudy, fleetClients, formatPlan, loadRemoteState, type FleetPlan, type FleetState } from '../../fleet/index.js';
import { attachTo } from './attach.js';
import type { FleetContext, FleetSubcommand } from './context.js';
import { studySettings, upSettings } from './create.js';
import { driveToEnd } from './drive.js';
import { RUN_FLAGS, UP_FLAGS } from './flags.js';
import { planFrom } from './plan.js';
import { fleetPrinter } from './fleet-table.js';
import { workloadFrom } from './run.js';
import { interruptible } from './signals.js';

/** Today's study: members driven over HTTPS from here. */
async function interactive({ values, io, stateDir }: FleetContext, plan: FleetPlan): Promise<number> {
  if (plan.account?.noPublicIp && !values['endpoint-map']) {
    throw new VolbenchError('EINVALID_ARGS', 'fleet compare --interactive --no-public-ip: members without a public address are reached inside the VPC only: give --endpoint-map ' +
      '(through a VPN, or SSM port forwards, which need the ssm, ssmmessages and ec2messages endpoints)', { field: '--endpoint-map', accepted: 'a JSON file {label: url}' });
  }
  const settings = await upSettings(values, plan);
  // The members run the suites the plan gave them (auto, suite=): --suite made the plan.
  const { suite: _planned, ...workload } = workloadFrom(values);
  const clients = fleetClients({ region: plan.region, profile: values.profile });
  const printer = fleetPrinter(io, { json: values.format === 'json' });
  const stop = interruptible(io, `tearing fleet ${plan.fleetId} down`, undefined, printer.say);
  return driveToEnd(stop, printer, clients, () => compareFleet(plan, {
    ...settings, ...workload, clients, stateDir, keep: values.keep, signal: stop.signal, onEvent: printer.onEvent,
  }));
}

/** The study `--fleet-id` names, when its state is in the bucket already; refused when it is another plan's. */
async function existing(ctx: FleetContext, plan: FleetPlan, bucket: string): Promise<FleetState | undefined> {
  if (!ctx.values['fleet-id']) return undefined;
  const clients = fleetClients({ region: plan.region, profile: ctx.values.profile });
  let state: FleetState;
  try {
    state = await loadRemoteState(plan.fleetId, clients, bucket);
  } catch (err) {
    if (/NoSuchKey|NotFound|does not exist/i.test(`${((err as VolbenchError).cause as Error)?.name} ${(err as Error).message}`)) return undefined;
    throw err;
  } finally {
    clients.destroy();
  }
  const same = state.region === plan.region && state.plan.instanceType === plan.instanceType &&
    state.plan.members.map((m) => m.label).join(',') === plan.members.map((m) => m.label).join(',');
  if (!same) {
    throw new VolbenchError('EINVALID_ARGS', `fleet ${plan.fleetId} exists in s3://${bucket} with another plan (${state.plan.members.length} × ${state.plan.instanceType} in ${state.region}: ` +
      `${state.plan.members.map((m) => m.label).join(', ')}); nothing was done`, { field: '--fleet-id', accepted: 'the id of this plan\'s study, or a new one' });
  }
  return state;
}

async function autonomous(ctx: FleetContext, plan: FleetPlan): Promise<number> {
  const { values, io, stateDir } = ctx;
  if (values['endpoint-map']) {
    throw new VolbenchError('EINVALID_ARGS', 'fleet compare: --endpoint-map reaches members over HTTPS: give --interactive with it (autonomous members need no inbound path)', {
      field: '--endpoint-map', accepted: '--interactive --endpoint-map FILE, or neither',
    });
  }
  const settings = studySettings(values, plan);
  if (await existing(ctx, plan, settings.bucket)) return attachTo(ctx, plan.fleetId, settings.bucket);
  const { suite: _planned, outDir, endpointMap: _map, ...workload } = workloadFrom(values);
  const clients = fleetClients({ region: plan.region, profile: values.profile });
  const printer = fleetPrinter(io, { json: values.format === 'json', autonomous: true });
  const stop = interruptible(io, `tearing fleet ${plan.fleetId} down`, undefined, printer.say);
  // Another driver's lease is what to say, signal or not.
  const leased = (err: unknown) => err instanceof VolbenchError && err.code === 'ESTUDY_LEASED';
  return driveToEnd(stop, printer, clients, () => compareStudy({ plan, workload, keep: values.keep, ...settings }, {
    clients, bucket: settings.bucket, stateDir, outDir, wait: values.wait, signal: stop.signal, signalName: stop.received,
    holder: `volbench fleet compare on ${hostname()} pid ${process.pid}`, onEvent: printer.onEvent,
  }), leased);
}

export const compare: FleetSubcommand = {
  flags: [...UP_FLAGS, ...RUN_FLAGS, 'keep', 'interactive', 'wait', 'fleet-id'],
  async run(ctx) {
    const plan = planFrom(ctx.values);
    ctx.io.stderr.write(formatPlan(plan));
    return ctx.values.interactive ? interactive(ctx, plan) : autonomous(ctx, plan);
  },
};
