/**
 * Deleting a fleet: its stacks (waited on), then whatever of it outlived them, then its secrets
 * and its objects; and the check that nothing of it remains. What is deleted is found from the
 * fleet's id and its stacks (member-stacks.ts, fleet-resources.ts), each only while it carries
 * `volbench:fleet=<id>`: a state file (perhaps planted in the bucket) names nothing here.
 */
import { DeleteStackCommand, waitUntilStackDeleteComplete } from '@aws-sdk/client-cloudformation';
import { DeleteVolumeCommand, TerminateInstancesCommand, waitUntilInstanceTerminated, waitUntilVolumeAvailable } from '@aws-sdk/client-ec2';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { DeleteParameterCommand } from '@aws-sdk/client-ssm';

import { awsCall, type FleetClients } from './aws.js';
import { fleetLog, type OnFleetEvent } from './events.js';
import { existingVolumes, fleetInstances, fleetObjects, fleetParameters, liveInstances, volumesOn } from './fleet-resources.js';
import { fleetStacks } from './member-stacks.js';
import { deleteSchedules } from './schedules.js';
import { saveState, type FleetState } from './state.js';

export interface DownOptions {
  clients: FleetClients;
  /** Where the state is kept locally; none: in S3 only. */
  stateDir: string | undefined;
  maxWaitSec?: number;
  /** `tearing-down`, what AWS answered on the way (`log`), then `torn-down`. */
  onEvent?: OnFleetEvent;
}

export interface DownResult {
  /** What of the fleet is still there after the teardown (should be nothing). */
  remaining: string[];
  /** What carries the fleet's tag or one of its names but no stack of it made: not touched. */
  leftAlone: string[];
}

/** The fleet's SSM parameters and its objects (bundle, certificate) in its bucket. */
export async function deleteSecrets(state: FleetState, clients: FleetClients, log: (line: string) => void, leftAlone: string[]): Promise<void> {
  const params = await fleetParameters(state.fleetId, clients);
  for (const Name of params.ours) {
    await clients.ssm.send(new DeleteParameterCommand({ Name })).catch((err: Error) => {
      if (!/ParameterNotFound/.test(err.name)) log(`deleting ${Name}: ${err.message}`);
    });
  }
  leftAlone.push(...params.strangers);
  if (!state.bucket) return;
  const objects = await fleetObjects(state.fleetId, state.bucket, clients);
  for (const Key of objects.ours) {
    await clients.s3.send(new DeleteObjectCommand({ Bucket: state.bucket, Key })).catch((err: Error) => log(`deleting s3://${state.bucket}/${Key}: ${err.message}`));
  }
  leftAlone.push(...objects.strangers.map((k) => `s3://${state.bucket}/${k}`));
}

/** Terminates instances that outlived their stacks, then deletes volumes that outlived them. */
async function deleteLeftBehind(instances: string[], volumes: string[], clients: FleetClients, log: (line: string) => void): Promise<void> {
  const live = await liveInstances(instances, clients);
  if (live.length) {
    log(`terminating ${live.length} instance(s) left behind: ${live.join(', ')}`);
    await awsCall('ec2:TerminateInstances', () => clients.ec2.send(new TerminateInstancesCommand({ InstanceIds: live })));
    await waitUntilInstanceTerminated({ client: clients.ec2, maxWaitTime: 600, minDelay: 2, maxDelay: 10 }, { InstanceIds: live }).catch(() => {});
  }
  for (const v of await existingVolumes(volumes, clients)) {
    if (v.state === 'in-use') {
      await waitUntilVolumeAvailable({ client: clients.ec2, maxWaitTime: 300, minDelay: 2, maxDelay: 10 }, { VolumeIds: [v.id] }).catch(() => {});
    }
    log(`deleting volume ${v.id} left behind`);
    await awsCall('ec2:DeleteVolume', () => clients.ec2.send(new DeleteVolumeCommand({ VolumeId: v.id }))).catch((err) => log((err as Error).message));
  }
}

/** A study's last step, once its fleet is down: failed when it was to fail or something remains. */
function endStudy(state: FleetState, remaining: string[]): void {
  if (!state.study || state.study.step !== 'tearing-down') return;
  if (remaining.length) state.study.failure ??= `still there after the teardown: ${remaining.join(', ')}`;
  Object.assign(state.study, { step: state.study.failure ? 'failed' : 'done', updatedAt: new Date().toISOString() });
}

/**
 * Deletes the fleet: its stacks (found by name and tag), then its instances and their volumes
 * (as the stacks named them) that outlived them, then its parameters and objects. Says what
 * remains, and what was left alone.
 */
export async function fleetDown(state: FleetState, opts: DownOptions): Promise<DownResult> {
  const { clients } = opts;
  const log = fleetLog(state.fleetId, opts.onEvent);
  const labels = state.members.map((m) => m.label);
  opts.onEvent?.({ event: 'tearing-down', fleetId: state.fleetId });
  state.status = 'deleting';
  // A study's driver reads this and stops driving it: the teardown is this one's.
  if (state.study && !['tearing-down', 'done', 'failed'].includes(state.study.step)) {
    Object.assign(state.study, { step: 'tearing-down', failure: state.study.failure ?? 'torn down by fleet down', updatedAt: new Date().toISOString() });
  }
  await saveState(state, opts.stateDir, clients).catch(() => {});
  const stacks = await fleetStacks(state.fleetId, labels, clients);
  const leftAlone: string[] = [];
  for (const s of stacks.strangers) log(`left alone: stack ${s.stackName} ${s.reason}`);
  // Found while the stacks still say so: what outlives them is deleted only if they named it.
  const instances = await fleetInstances(state.fleetId, stacks, clients);
  const volumes = await volumesOn(state.fleetId, instances.ours, clients);
  const waiter = { client: clients.cfn, maxWaitTime: opts.maxWaitSec ?? 1800, minDelay: 2, maxDelay: 15 };
  await Promise.all([...stacks.members.values()].map(async (s) => {
    try {
      // By its id: the stack checked above, not whatever takes its name meanwhile.
      await awsCall('cloudformation:DeleteStack', () => clients.cfn.send(new DeleteStackCommand({ StackName: s.stackId })));
      await waitUntilStackDeleteComplete(waiter, { StackName: s.stackId });
    } catch (err) {
      if (!/does not exist/i.test((err as Error).message)) log(`${s.label}: deleting ${s.stackName}: ${(err as Error).message}`);
    }
  }));
  await deleteLeftBehind(instances.ours, volumes, clients, log);
  await deleteSecrets(state, clients, log, leftAlone);
  const after = await fleetStacks(state.fleetId, labels, clients);
  for (const m of state.members) if (!after.members.has(m.label)) m.status = 'deleted';
  // The schedules go last: until the stacks are gone they are what deletes them at the expiry.
  const schedules = after.members.size ? [] : await deleteSchedules(state.fleetId, clients).catch((err: Error) => [`schedule group: ${err.message}`]);
  const remaining = [
    ...(await liveInstances(instances.ours, clients)), ...(await existingVolumes(volumes, clients)).map((v) => v.id),
    ...[...after.members.values()].map((s) => s.stackName), ...schedules,
  ];
  leftAlone.unshift(...stacks.strangers.map((s) => s.stackName), ...instances.strangers);
  if (leftAlone.length) log(`left alone, as no stack of fleet ${state.fleetId} made them (they lack its tag or no stack of it names them): ${leftAlone.join(', ')}`);
  state.status = remaining.length ? 'failed' : 'down';
  endStudy(state, remaining);
  await saveState(state, opts.stateDir, clients).catch(() => {});
  opts.onEvent?.({ event: 'torn-down', fleetId: state.fleetId, remaining, leftAlone });
  return { remaining, leftAlone };
}
