/**
 * EventBridge Scheduler as moto serves it: it keeps schedules but never fires them. The rehearsal
 * lists them (a leftover kind like any other) and, where a study's expiry would have come, plays
 * the firing itself: it calls the schedule's target as AWS would. The universal target
 * `arn:aws:scheduler:::aws-sdk:cloudformation:deleteStack` is CloudFormation's DeleteStack with the
 * schedule's Input; a schedule with ActionAfterCompletion DELETE is then deleted, as AWS does after
 * its one run. Scheduler's REST API is spoken directly (moto reads the service from the scope).
 */
import { CloudFormationClient, DeleteStackCommand } from '@aws-sdk/client-cloudformation';

import type { SdkSettings } from '../sandbox/stack-member.js';

export interface Schedule {
  Name: string;
  GroupName: string;
  ScheduleExpression?: string;
  ActionAfterCompletion?: string;
  Target: { Arn: string; RoleArn?: string; Input?: string };
}

export interface Fired {
  schedule: string;
  target: string;
  /** What the target was called with (the Input), and what became of the call. */
  input?: unknown;
  outcome: string;
}

const DELETE_STACK = /^arn:aws[a-z-]*:scheduler:::aws-sdk:cloudformation:deleteStack$/;

async function call(endpoint: string, region: string, method: string, path: string): Promise<any> {
  const res = await fetch(new URL(path, endpoint), {
    method,
    headers: { authorization: `AWS4-HMAC-SHA256 Credential=testing/20260101/${region}/scheduler/aws4_request, SignedHeaders=host, Signature=0` },
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`scheduler ${method} ${path}: HTTP ${res.status}: ${text.slice(0, 200)}`);
  return text ? JSON.parse(text) : {};
}

/** Every schedule, in every group, described whole. */
export async function listSchedules({ endpoint, region }: { endpoint: string; region: string }): Promise<Schedule[]> {
  const names: Array<{ Name: string; GroupName: string }> = [];
  let token: string | undefined;
  do {
    const page = await call(endpoint, region, 'GET', `/schedules${token ? `?NextToken=${encodeURIComponent(token)}` : ''}`);
    names.push(...(page.Schedules ?? []));
    token = page.NextToken ?? undefined;
  } while (token);
  return Promise.all(names.map((s) => call(endpoint, region, 'GET', `/schedules/${encodeURIComponent(s.Name)}?groupName=${encodeURIComponent(s.GroupName)}`)));
}

/** Schedule groups other than the default one. */
export async function listScheduleGroups({ endpoint, region }: { endpoint: string; region: string }): Promise<string[]> {
  const page = await call(endpoint, region, 'GET', '/schedule-groups');
  return (page.ScheduleGroups ?? []).map((g: { Name: string }) => g.Name).filter((n: string) => n !== 'default');
}

/** Plays the firing of `schedule` as AWS would at its time. */
export async function fireSchedule(sdk: SdkSettings & { endpoint: string }, schedule: Schedule): Promise<Fired> {
  const fired: Fired = { schedule: `${schedule.GroupName}/${schedule.Name}`, target: schedule.Target.Arn, outcome: '' };
  if (!DELETE_STACK.test(schedule.Target.Arn)) {
    fired.outcome = 'not played: the rehearsal plays the universal cloudformation:deleteStack target only';
    return fired;
  }
  const input = JSON.parse(schedule.Target.Input ?? '{}') as { StackName?: string };
  fired.input = input;
  const cfn = new CloudFormationClient(sdk);
  try {
    await cfn.send(new DeleteStackCommand({ StackName: input.StackName }));
    fired.outcome = `DeleteStack ${input.StackName}: sent`;
  } catch (err) {
    fired.outcome = `DeleteStack ${input.StackName}: ${(err as Error).message}`;
  } finally {
    cfn.destroy();
  }
  if (schedule.ActionAfterCompletion === 'DELETE') {
    await call(sdk.endpoint, sdk.region, 'DELETE', `/schedules/${encodeURIComponent(schedule.Name)}?groupName=${encodeURIComponent(schedule.GroupName)}`);
    fired.outcome += '; the schedule deleted itself (ActionAfterCompletion DELETE)';
  }
  return fired;
}
