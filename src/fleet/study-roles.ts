/**
 * The study roles (infra/cloudformation/study-roles.yaml): one stack per account and region,
 * `volbench-study-roles`, holding the CloudFormation service role every member's stack is created
 * with and the role a fleet's expiry schedules delete its stacks with. Asked for when missing (or
 * made by an older volbench) and never deleted by a fleet's teardown: every fleet of the region
 * uses it. An administrator may create it once; users then need only iam:PassRole on its roles.
 *
 * `studyRoles` does not wait: it answers the roles once the stack is ready and undefined while it
 * is being made, so a study's driver that may not wait (a Lambda) asks again on its next call.
 */
import { readFileSync } from 'node:fs';
import { CreateStackCommand, DescribeStacksCommand, UpdateStackCommand, type Stack } from '@aws-sdk/client-cloudformation';

import { VolbenchError } from '../errors.js';
import { awsCall, type FleetClients } from './aws.js';
import { failureReason } from './member-stack.js';

export const STUDY_ROLES_STACK = 'volbench-study-roles';

/** The template's version: a stack made from an older one is updated. */
export const STUDY_ROLES_VERSION = 1;

export interface StudyRoles {
  /** CreateStack's RoleARN for a member's stack. */
  stackRoleArn: string;
  /** The expiry schedules' role. */
  scheduleRoleArn: string;
  /** The partition the roles are in (aws, aws-cn, aws-us-gov): the schedules' target ARN is in it too. */
  partition: string;
}

export function studyRolesTemplate(): string {
  return readFileSync(new URL('../../infra/cloudformation/study-roles.yaml', import.meta.url), 'utf8');
}

const PENDING = new Set(['CREATE_IN_PROGRESS', 'UPDATE_IN_PROGRESS', 'UPDATE_COMPLETE_CLEANUP_IN_PROGRESS', 'UPDATE_ROLLBACK_IN_PROGRESS',
  'UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS', 'DELETE_IN_PROGRESS', 'REVIEW_IN_PROGRESS']);
const READY = new Set(['CREATE_COMPLETE', 'UPDATE_COMPLETE', 'UPDATE_ROLLBACK_COMPLETE']);

async function describe(clients: FleetClients): Promise<Stack | undefined> {
  try {
    const out = await awsCall('cloudformation:DescribeStacks', () => clients.cfn.send(new DescribeStacksCommand({ StackName: STUDY_ROLES_STACK })));
    const stack = out.Stacks?.[0];
    return stack?.StackStatus === 'DELETE_COMPLETE' ? undefined : stack;
  } catch (err) {
    if (/does not exist/i.test((err as Error).message)) return undefined;
    throw err;
  }
}

const request = (version: number) => ({
  StackName: STUDY_ROLES_STACK, TemplateBody: studyRolesTemplate(), Capabilities: ['CAPABILITY_IAM' as const],
  Parameters: [{ ParameterKey: 'Version', ParameterValue: String(version) }],
  Tags: [{ Key: 'volbench:study-roles', Value: String(version) }],
});

async function create(clients: FleetClients): Promise<void> {
  try {
    await awsCall('cloudformation:CreateStack', () => clients.cfn.send(new CreateStackCommand({
      ...request(STUDY_ROLES_VERSION), ClientRequestToken: `${STUDY_ROLES_STACK}-${STUDY_ROLES_VERSION}`,
    })));
  } catch (err) {
    // Another driver asked first: its stack is the one.
    if (!/AlreadyExists/i.test(`${(err as VolbenchError).message}`)) throw err;
  }
}

async function update(clients: FleetClients): Promise<void> {
  try {
    await awsCall('cloudformation:UpdateStack', () => clients.cfn.send(new UpdateStackCommand(request(STUDY_ROLES_VERSION))));
  } catch (err) {
    if (!/No updates are to be performed/i.test((err as Error).message)) throw err;
  }
}

/** The roles a ready stack gives, refused when they are not the study roles of this account. */
function rolesOf(stack: Stack): StudyRoles {
  const out = Object.fromEntries((stack.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
  const account = /^arn:(aws[a-z-]*):cloudformation:[a-z0-9-]+:(\d{12}):/.exec(stack.StackId ?? '');
  const role = (key: string): string => {
    const value = out[key] ?? '';
    if (account && new RegExp(`^arn:${account[1]}:iam::${account[2]}:role/${STUDY_ROLES_STACK}-[A-Za-z0-9+=,.@_-]{1,43}$`).test(value)) return value;
    throw new VolbenchError('EFLEET_STATE', `stack ${STUDY_ROLES_STACK} output ${key} is '${value.slice(0, 160)}', not a role that stack made in this account; ` +
      `nothing is created with it (delete the stack and let volbench make it again)`, { field: `${STUDY_ROLES_STACK}.${key}`, accepted: `arn:aws:iam::ACCOUNT:role/${STUDY_ROLES_STACK}-...` });
  };
  return { stackRoleArn: role('StackRoleArn'), scheduleRoleArn: role('ScheduleRoleArn'), partition: account?.[1] ?? 'aws' };
}

/**
 * The study roles when their stack is ready; undefined while it is being made or updated (it is
 * asked for here when missing, or when an older volbench made it). A stack that failed is named
 * with CloudFormation's reason (ECLOUD): it is not retried on its own.
 */
export async function studyRoles(clients: FleetClients): Promise<StudyRoles | undefined> {
  const stack = await describe(clients);
  if (!stack) {
    await create(clients);
    return undefined;
  }
  const status = stack.StackStatus ?? '';
  if (PENDING.has(status)) return undefined;
  if (!READY.has(status)) {
    throw new VolbenchError('ECLOUD', `stack ${STUDY_ROLES_STACK} is ${status}: ${await failureReason(clients, stack.StackId ?? STUDY_ROLES_STACK)}; ` +
      `delete it once the cause is fixed (aws cloudformation delete-stack --stack-name ${STUDY_ROLES_STACK}), and volbench makes it again`, {
      field: 'cloudformation:CreateStack', accepted: `the IAM rights to create ${STUDY_ROLES_STACK} (docs/first-real-run.md), or an administrator to create it once`,
    });
  }
  const version = Number(stack.Outputs?.find((o) => o.OutputKey === 'Version')?.OutputValue ?? 0);
  if (version < STUDY_ROLES_VERSION) {
    await update(clients);
    return undefined;
  }
  return rolesOf(stack);
}

/** The study roles, waited for (`fleet up`): polls `studyRoles` every few seconds until ready, or `maxWaitSec`. */
export async function readyStudyRoles(clients: FleetClients, opts: { maxWaitSec?: number; signal?: AbortSignal; pollMs?: number } = {}): Promise<StudyRoles> {
  const deadline = Date.now() + (opts.maxWaitSec ?? 600) * 1000;
  for (;;) {
    const roles = await studyRoles(clients);
    if (roles) return roles;
    if (opts.signal?.aborted) throw new VolbenchError('ECANCELLED', `interrupted while stack ${STUDY_ROLES_STACK} was being made; nothing of the fleet was created`);
    if (Date.now() > deadline) {
      throw new VolbenchError('ECLOUD', `stack ${STUDY_ROLES_STACK} was not ready within ${opts.maxWaitSec ?? 600} s`, { field: 'cloudformation:CreateStack' });
    }
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 3000));
  }
}
