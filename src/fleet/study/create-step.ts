/**
 * `planned` and `creating`: the study roles ready, a schedule per member (AWS deletes its stack
 * at the expiry, whatever happens to the driver), then a stack per member, each created once
 * (its ClientRequestToken the member's) and followed by its id until CloudFormation says it is
 * created or failed. Nothing here waits: a stack still being made is looked at again on the
 * next call.
 *
 * What the stacks are made with comes from the state (written by the study's first driver); a
 * stack of the fleet that exists already must agree with it on the bundle, the spec and the
 * subnet, or the state is refused (EFLEET_STATE): a state planted in the bucket makes no stack.
 */
import { DescribeStacksCommand, type Stack } from '@aws-sdk/client-cloudformation';

import { VolbenchError } from '../../errors.js';
import { awsCall } from '../aws.js';
import { failureReason, sendCreateStack } from '../member-stack.js';
import { instanceIdOf, strangerReason } from '../member-stacks.js';
import { memberVolumeId } from '../member-volume.js';
import { ensureSchedules } from '../schedules.js';
import { memberStackInput } from '../stacks.js';
import type { FleetStackSettings } from '../stack-parameters.js';
import type { FleetMemberState, FleetState, StudyStacks } from '../state.js';
import { studyRoles, type StudyRoles } from '../study-roles.js';
import { nowOf, type StudyContext } from './context.js';
import { failStudy, moveTo, studyOf } from './steps.js';

/** The roles, or a failed study when their stack cannot be made; undefined while it is. */
async function rolesOrFail(state: FleetState, ctx: StudyContext): Promise<StudyRoles | undefined> {
  try {
    return await studyRoles(ctx.clients);
  } catch (err) {
    if (!(err instanceof VolbenchError)) throw err;
    failStudy(state, err.message, ctx.onEvent, nowOf(ctx));
    return undefined;
  }
}

/** planned: on to creating once the stacks' settings are in the state and the roles are ready. */
export async function plannedStep(state: FleetState, ctx: StudyContext): Promise<void> {
  const study = studyOf(state);
  if (!study.stacks || !study.specSha256) {
    failStudy(state, 'its first driver stopped before the spec and the bundle were in S3: nothing was created', ctx.onEvent, nowOf(ctx));
    return;
  }
  if (await rolesOrFail(state, ctx)) moveTo(state, 'creating', ctx.onEvent, undefined, nowOf(ctx));
}

function settingsOf(state: FleetState, stacks: StudyStacks, specSha256: string): FleetStackSettings {
  return {
    plan: state.plan, architecture: stacks.architecture, expiresAt: state.expiresAt!, ttlSec: stacks.ttlSec, allowedCidr: stacks.allowedCidr,
    bucket: state.bucket!, bundleKey: stacks.bundleKey, bundleSha256: stacks.bundleSha256,
    where: { subnetId: stacks.subnetId, vpcId: stacks.vpcId, availabilityZone: stacks.availabilityZone, publicAddress: stacks.publicAddress,
      ...(stacks.kmsKeyArn ? { kmsKeyArn: stacks.kmsKeyArn } : {}) },
    ...(stacks.instanceProfile ? { instanceProfile: stacks.instanceProfile } : {}),
    ...(stacks.tags ? { tags: stacks.tags } : {}),
    mode: 'autonomous', studySpecSha256: specSha256,
  };
}

/** Refuses the state when a stack of the fleet was made with other settings than it says. */
function agrees(state: FleetState, stack: Stack, settings: FleetStackSettings): void {
  const param = (k: string) => stack.Parameters?.find((p) => p.ParameterKey === k)?.ParameterValue;
  const want: Record<string, string | undefined> = { PackageSha256: settings.bundleSha256, StudySpecSha256: settings.studySpecSha256, SubnetId: settings.where.subnetId };
  for (const [key, value] of Object.entries(want)) {
    if (param(key) !== value) {
      throw new VolbenchError('EFLEET_STATE', `s3://${state.bucket}/${state.fleetId}/fleet.json says ${key} ${value}, where stack ${stack.StackName} has ${param(key)}: ` +
        'it was not written by this study\'s driver; no stack is made on its word', { field: `study.stacks (${key})`, accepted: `the ${key} the fleet's stacks have` });
    }
  }
}

async function describe(ctx: StudyContext, name: string): Promise<Stack | undefined> {
  try {
    return (await awsCall('cloudformation:DescribeStacks', () => ctx.clients.cfn.send(new DescribeStacksCommand({ StackName: name })))).Stacks?.[0];
  } catch (err) {
    if (/does not exist/i.test((err as Error).message)) return undefined;
    throw err;
  }
}

/** The member's stack looked at once: created (said), failed (said), or still being made. */
async function followMember(state: FleetState, m: FleetMemberState, settings: FleetStackSettings, roles: StudyRoles, ctx: StudyContext): Promise<void> {
  const { fleetId } = state;
  const failed = (reason: string) => {
    Object.assign(m, { status: 'failed', reason });
    ctx.onEvent?.({ event: 'member-failed', fleetId, label: m.label, reason });
  };
  // By its id once known: a failed stack is deleted (OnFailure: DELETE), and its id still answers.
  const stack = await describe(ctx, m.stackId ?? m.stackName);
  if (!stack && m.stackId) return failed(`stack ${m.stackName} is gone: ${await failureReason(ctx.clients, m.stackId)}`);
  if (!stack) {
    const planned = state.plan.members.find((p) => p.label === m.label)!;
    try {
      m.stackId = await sendCreateStack(memberStackInput(planned, settings, roles.stackRoleArn), ctx.clients);
    } catch (err) {
      if (!/AlreadyExists/i.test((err as Error).message)) failed((err as Error).message);
    }
    return;
  }
  const stranger = strangerReason(stack, fleetId, m.stackName);
  if (stranger) return failed(`a stack named ${m.stackName} ${stranger}: left alone`);
  agrees(state, stack, settings);
  m.stackId = stack.StackId ?? m.stackId;
  const status = stack.StackStatus ?? '';
  if (status === 'CREATE_IN_PROGRESS') return;
  if (status !== 'CREATE_COMPLETE') return failed(`stack ${m.stackName} ${status}: ${await failureReason(ctx.clients, m.stackId ?? m.stackName)}`);
  const outputs = Object.fromEntries((stack.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
  const instanceId = instanceIdOf(outputs.InstanceId);
  const volumeId = await memberVolumeId(m.stackId!, state.plan.members.find((p) => p.label === m.label)!.volume.type, ctx.clients);
  Object.assign(m, { status: 'created', ...(instanceId ? { instanceId } : {}), ...(volumeId ? { volumeId } : {}) });
  ctx.onEvent?.({ event: 'member-up', fleetId, label: m.label, ...(instanceId ? { instanceId } : {}) });
}

/**
 * creating: the schedules first, then every member's stack asked for or looked at; on to
 * running once all are created, to the teardown once one failed (or the fleet expired).
 */
export async function creatingStep(state: FleetState, ctx: StudyContext): Promise<void> {
  const study = studyOf(state);
  const now = nowOf(ctx);
  if (Date.parse(state.expiresAt!) <= now.getTime()) return failStudy(state, `the fleet expired at ${state.expiresAt} before its members were up`, ctx.onEvent, now);
  const roles = await rolesOrFail(state, ctx);
  if (!roles) return;
  await ensureSchedules({ fleetId: state.fleetId, expiresAt: state.expiresAt!, roleArn: roles.scheduleRoleArn, partition: roles.partition }, state.plan.members, ctx.clients);
  const settings = settingsOf(state, study.stacks!, study.specSha256!);
  await Promise.all(state.members.filter((m) => m.status === 'creating').map((m) => followMember(state, m, settings, roles, ctx)));
  const failed = state.members.filter((m) => m.status === 'failed');
  if (failed.length) return failStudy(state, failed.map((m) => `${m.label}: ${m.reason}`).join('; '), ctx.onEvent, nowOf(ctx));
  if (state.members.every((m) => m.status === 'created')) moveTo(state, 'running', ctx.onEvent, undefined, nowOf(ctx));
}
