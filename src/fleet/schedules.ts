/**
 * A fleet's expiry, enforced by AWS: EventBridge Scheduler one-time schedules (`at(...)`), made
 * before the stacks, each calling CloudFormation's DeleteStack (the universal target
 * `aws-sdk:cloudformation:deleteStack`, which takes one stack) for one member's stack at the
 * fleet's expiry, whatever became of the machine that made it. One schedule group per fleet,
 * `volbench-<id>`, tagged with the fleet and its expiry, holds one schedule per member, named for
 * its label; each deletes itself once it has run (ActionAfterCompletion DELETE), and deleting
 * the group (`fleet down`, a study's teardown) deletes the schedules left in it.
 *
 * The schedules act with the study roles' ScheduleRole (study-roles.ts): DeleteStack on
 * volbench's fleet stacks only; each stack then acts with the service role it was created with.
 */
import {
  CreateScheduleCommand, CreateScheduleGroupCommand, DeleteScheduleGroupCommand, GetScheduleCommand, GetScheduleGroupCommand, ListSchedulesCommand,
  TagResourceCommand, UpdateScheduleCommand,
} from '@aws-sdk/client-scheduler';

import { awsCall, type FleetClients } from './aws.js';
import { FLEET_TAG, scheduleGroupName, scheduleName } from './names.js';
import { EXPIRES_TAG } from './ttl.js';

export interface ScheduledMember {
  label: string;
  stackName: string;
}

export interface ScheduleSettings {
  fleetId: string;
  /** ISO-8601 UTC to the second: when the stacks are deleted. */
  expiresAt: string;
  /** The ScheduleRole of the study roles. */
  roleArn: string;
  /** The roles' partition: the target's ARN is in it. */
  partition: string;
}

/** Scheduler's universal target for CloudFormation's DeleteStack. */
export function deleteStackTarget(partition: string): string {
  return `arn:${partition}:scheduler:::aws-sdk:cloudformation:deleteStack`;
}

/** `at(...)` of an ISO-8601 UTC time, in Scheduler's form (no zone: ScheduleExpressionTimezone says UTC). */
export function atExpression(expiresAt: string): string {
  return `at(${expiresAt.replace(/(\.\d+)?Z$/, '')})`;
}

const missing = (err: unknown) => /ResourceNotFound|does not exist/i.test(`${(err as Error).name} ${(err as Error).message}`);
const conflict = (err: unknown) => /Conflict|already exists/i.test(`${(err as Error).name} ${(err as Error).message}`);

/** What a member's schedule is made of (CreateSchedule and UpdateSchedule take the same). */
function schedule(s: ScheduleSettings, m: ScheduledMember) {
  return {
    Name: scheduleName(m.label),
    GroupName: scheduleGroupName(s.fleetId),
    Description: `volbench fleet ${s.fleetId}: deletes stack ${m.stackName} at the fleet's expiry`,
    ScheduleExpression: atExpression(s.expiresAt),
    ScheduleExpressionTimezone: 'UTC',
    FlexibleTimeWindow: { Mode: 'OFF' as const },
    ActionAfterCompletion: 'DELETE' as const,
    State: 'ENABLED' as const,
    Target: {
      Arn: deleteStackTarget(s.partition), RoleArn: s.roleArn, Input: JSON.stringify({ StackName: m.stackName }),
      // A throttled or failed DeleteStack is tried again for a day.
      RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86400 },
    },
  };
}

/** `call`'s answer, or `none` when what it asks for does not exist; ECLOUD naming `action` otherwise. */
function unlessMissing<T>(action: string, call: () => Promise<T>, none: T): Promise<T> {
  return awsCall(action, async () => {
    try {
      return await call();
    } catch (err) {
      if (missing(err)) return none;
      throw err;
    }
  });
}

/** `call`, where an answer that it exists already (a retry, another driver) is as good as made. */
function unlessExists(action: string, call: () => Promise<unknown>): Promise<unknown> {
  return awsCall(action, async () => {
    try {
      return await call();
    } catch (err) {
      if (conflict(err)) return undefined;
      throw err;
    }
  });
}

/** The group's schedules' names; none when there is no group. */
export async function fleetSchedules(fleetId: string, clients: FleetClients): Promise<string[]> {
  const names: string[] = [];
  let NextToken: string | undefined;
  do {
    const page = await unlessMissing('scheduler:ListSchedules', () => clients.scheduler.send(new ListSchedulesCommand({ GroupName: scheduleGroupName(fleetId), NextToken })),
      undefined);
    names.push(...(page?.Schedules ?? []).flatMap((x) => (x.Name ? [x.Name] : [])));
    NextToken = page?.NextToken;
  } while (NextToken);
  return names;
}

/** Whether the fleet's group exists (and is not being deleted). */
async function groupExists(fleetId: string, clients: FleetClients): Promise<boolean> {
  const out = await unlessMissing('scheduler:GetScheduleGroup', () => clients.scheduler.send(new GetScheduleGroupCommand({ Name: scheduleGroupName(fleetId) })), undefined);
  return out !== undefined && out.State !== 'DELETING';
}

/**
 * The fleet's group and one schedule per member, each made once whoever asks (a schedule or
 * group that exists is kept): before any of its stacks is created.
 */
export async function ensureSchedules(s: ScheduleSettings, members: readonly ScheduledMember[], clients: FleetClients): Promise<void> {
  if (!(await groupExists(s.fleetId, clients))) {
    await unlessExists('scheduler:CreateScheduleGroup', () => clients.scheduler.send(new CreateScheduleGroupCommand({
      Name: scheduleGroupName(s.fleetId), ClientToken: `${scheduleGroupName(s.fleetId)}-group`,
      Tags: [{ Key: FLEET_TAG, Value: s.fleetId }, { Key: EXPIRES_TAG, Value: s.expiresAt }],
    })));
  }
  const have = new Set(await fleetSchedules(s.fleetId, clients));
  await Promise.all(members.filter((m) => !have.has(scheduleName(m.label))).map((m) => unlessExists('scheduler:CreateSchedule', () => clients.scheduler.send(
    new CreateScheduleCommand({ ...schedule(s, m), ClientToken: `${s.fleetId}-${m.label}`.slice(0, 64) }),
  ))));
}

/** `fleet run --ttl`: every schedule of the fleet moves to the new expiry, as it was made otherwise, and the group's tag with it (reap reads it). */
export async function moveSchedules(fleetId: string, expiresAt: string, clients: FleetClients): Promise<number> {
  const group = await unlessMissing('scheduler:GetScheduleGroup', () => clients.scheduler.send(new GetScheduleGroupCommand({ Name: scheduleGroupName(fleetId) })), undefined);
  if (group?.Arn) {
    await awsCall('scheduler:TagResource', () => clients.scheduler.send(new TagResourceCommand({ ResourceArn: group.Arn, Tags: [{ Key: EXPIRES_TAG, Value: expiresAt }] })));
  }
  let moved = 0;
  for (const Name of await fleetSchedules(fleetId, clients)) {
    const GroupName = scheduleGroupName(fleetId);
    const was = await awsCall('scheduler:GetSchedule', () => clients.scheduler.send(new GetScheduleCommand({ Name, GroupName })));
    if (!was.Target || !was.FlexibleTimeWindow) continue;
    await awsCall('scheduler:UpdateSchedule', () => clients.scheduler.send(new UpdateScheduleCommand({
      Name, GroupName, Description: was.Description, ScheduleExpression: atExpression(expiresAt), ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: was.FlexibleTimeWindow, ActionAfterCompletion: was.ActionAfterCompletion ?? 'DELETE', State: 'ENABLED', Target: was.Target,
    })));
    moved++;
  }
  return moved;
}

/** Deletes the fleet's group and the schedules in it; what is still there after (should be nothing). */
export async function deleteSchedules(fleetId: string, clients: FleetClients): Promise<string[]> {
  if (await groupExists(fleetId, clients)) {
    await unlessMissing('scheduler:DeleteScheduleGroup', () => clients.scheduler.send(new DeleteScheduleGroupCommand({
      Name: scheduleGroupName(fleetId), ClientToken: `${scheduleGroupName(fleetId)}-delete`,
    })), undefined);
  }
  // AWS deletes the group's schedules with it, as it deletes the group (DELETING, then gone).
  return (await groupExists(fleetId, clients)) ? [`schedule group ${scheduleGroupName(fleetId)}`] : [];
}
