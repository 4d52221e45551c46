/**
 * `tearing-down`, without waiting: DeleteStack for every stack of the fleet (found by name and
 * tag, never by the state), looked at again on each call until they are gone. A stack whose
 * deletion failed has the instances it names terminated and is asked again, a few times. Once
 * no stack is left: the fleet's schedule group (its schedules with it), its SSM parameters and its
 * objects besides its record go, and the study is done, or failed when it was to fail or
 * something remains (the schedules stay then: they still delete the stacks at the expiry).
 */
import { DeleteStackCommand } from '@aws-sdk/client-cloudformation';
import { TerminateInstancesCommand } from '@aws-sdk/client-ec2';

import { awsCall } from '../aws.js';
import { deleteSecrets } from '../down.js';
import { fleetLog } from '../events.js';
import { liveInstances } from '../fleet-resources.js';
import { fleetStacks, stackInstances, type MemberStack } from '../member-stacks.js';
import { deleteSchedules } from '../schedules.js';
import type { FleetState } from '../state.js';
import { nowOf, type StudyContext } from './context.js';
import { moveTo, studyOf } from './steps.js';

/** Times the teardown asks again for a stack whose deletion failed, before it says the stack remains. */
const DELETE_RETRIES = 3;

async function deleteStack(s: MemberStack, ctx: StudyContext): Promise<void> {
  await awsCall('cloudformation:DeleteStack', () => ctx.clients.cfn.send(new DeleteStackCommand({ StackName: s.stackId }))).catch((err: Error) => {
    if (!/does not exist/i.test(err.message)) throw err;
  });
}

/** A stack whose deletion failed: the instances it names terminated (their volumes go with them), and its deletion asked again. */
async function retryFailed(state: FleetState, s: MemberStack, ctx: StudyContext, log: (line: string) => void): Promise<boolean> {
  const study = studyOf(state);
  study.deleteAttempts = (study.deleteAttempts ?? 0) + 1;
  if (study.deleteAttempts > DELETE_RETRIES * state.members.length) return false;
  const live = await liveInstances(await stackInstances(s.stackId, ctx.clients), ctx.clients);
  if (live.length) {
    log(`${s.label}: ${s.stackName} failed to delete; terminating ${live.join(', ')}`);
    await awsCall('ec2:TerminateInstances', () => ctx.clients.ec2.send(new TerminateInstancesCommand({ InstanceIds: live })));
  }
  await deleteStack(s, ctx);
  return true;
}

export async function tearingDownStep(state: FleetState, ctx: StudyContext): Promise<void> {
  const study = studyOf(state);
  const log = fleetLog(state.fleetId, ctx.onEvent);
  const stacks = await fleetStacks(state.fleetId, state.members.map((m) => m.label), ctx.clients);
  const remaining: string[] = [];
  let pending = false;
  for (const s of stacks.members.values()) {
    if (s.status === 'DELETE_IN_PROGRESS') pending = true;
    else if (s.status === 'DELETE_FAILED') {
      if (await retryFailed(state, s, ctx, log)) pending = true;
      else remaining.push(s.stackName);
    } else {
      await deleteStack(s, ctx);
      pending = true;
    }
  }
  if (pending) return;
  // A member whose stack failed stays failed (its reason is its outcome's); the others' are deleted.
  for (const m of state.members) if (!stacks.members.has(m.label) && m.status !== 'failed') m.status = 'deleted';
  const leftAlone = stacks.strangers.map((s) => s.stackName);
  for (const s of stacks.strangers) log(`left alone: stack ${s.stackName} ${s.reason}`);
  await deleteSecrets(state, ctx.clients, log, leftAlone);
  if (!remaining.length) remaining.push(...(await deleteSchedules(state.fleetId, ctx.clients)));
  ctx.onEvent?.({ event: 'torn-down', fleetId: state.fleetId, remaining, leftAlone });
  if (remaining.length) study.failure ??= `still there after the teardown: ${remaining.join(', ')}`;
  moveTo(state, study.failure ? 'failed' : 'done', ctx.onEvent, study.failure, nowOf(ctx));
  if (remaining.length) state.status = 'failed';
}
