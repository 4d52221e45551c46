/**
 * One member's stack, created and waited on: an outcome, never a throw, so one member's failure
 * is the fleet's to weigh while the others' waiters run on. A stack refused before it existed
 * fails with the call's reason; one that failed to create, with CloudFormation's reason on its
 * first failed resource (the member's failed boot step, signalled by its user data).
 *
 * A stack is created with `OnFailure: DELETE` (a failed member bills nothing while its fleet is
 * torn down, whoever is left to do it) and with the study roles' CloudFormation service role
 * (`RoleARN`), so the schedule that deletes it at the expiry needs nothing but DeleteStack. Its
 * reasons are read by its stack id, which DescribeStackEvents answers after the deletion too.
 */
import {
  CreateStackCommand, DescribeStackEventsCommand, DescribeStacksCommand, waitUntilStackCreateComplete, type Parameter, type Tag,
} from '@aws-sdk/client-cloudformation';

import { awsCall, type FleetClients } from './aws.js';
import { instanceIdOf, memberEndpoint } from './member-stacks.js';

export interface MemberStackInput {
  label: string;
  stackName: string;
  templateBody: string;
  parameters: Parameter[];
  tags: Tag[];
  /** The CloudFormation service role the stack acts with (study-roles.ts); none: the caller's credentials. */
  roleArn?: string;
}

export interface MemberStackOptions {
  clients: FleetClients;
  /** The longest wait, in seconds. */
  maxWaitSec: number;
  /** Stops the wait (or the create, before it is sent). */
  signal?: AbortSignal;
}

export type MemberStackOutcome =
  | {
    status: 'created';
    stackId: string;
    /** Where the member answers, when the stack gives a usable URL (`run` asks the stack again). */
    endpoint?: string;
    instanceId?: string;
    /** Why the endpoint output was not kept. */
    note?: string;
  }
  | { status: 'failed'; reason: string };

const failed = (reason: string): MemberStackOutcome => ({ status: 'failed', reason });

/** Why a stack failed: CloudFormation's reason on its first failed resource (by id: a deleted stack's too). */
export async function failureReason(clients: FleetClients, stackName: string): Promise<string> {
  try {
    const out = await clients.cfn.send(new DescribeStackEventsCommand({ StackName: stackName }));
    const failedEvents = (out.StackEvents ?? []).filter((e) => /FAILED/.test(e.ResourceStatus ?? '') && e.ResourceStatusReason);
    const first = failedEvents[failedEvents.length - 1] ?? failedEvents[0];
    if (first) return `${first.LogicalResourceId}: ${first.ResourceStatusReason}`;
    const stack = await clients.cfn.send(new DescribeStacksCommand({ StackName: stackName }));
    return stack.Stacks?.[0]?.StackStatusReason ?? stack.Stacks?.[0]?.StackStatus ?? 'unknown';
  } catch (err) {
    return (err as Error).message;
  }
}

/** The create's token: the same for a fleet's member whoever sends it, so a create sent twice is one. */
export function createToken(stackName: string): string {
  return `${stackName}-create`.slice(0, 128);
}

/** CreateStack for the member; its stack id. */
export async function sendCreateStack(input: MemberStackInput, clients: FleetClients): Promise<string> {
  const out = await awsCall('cloudformation:CreateStack', () => clients.cfn.send(new CreateStackCommand({
    // CAPABILITY_IAM always: the template holds the role and profile, if only under a
    // condition, and CloudFormation asks for it on what the template contains. The token
    // makes a retry of a create whose answer was lost (by the SDK, or by a driver resuming the
    // study) the same request.
    StackName: input.stackName, TemplateBody: input.templateBody, Parameters: input.parameters, Capabilities: ['CAPABILITY_IAM'],
    ClientRequestToken: createToken(input.stackName),
    OnFailure: 'DELETE', Tags: input.tags, ...(input.roleArn ? { RoleARN: input.roleArn } : {}),
  })));
  return out.StackId ?? input.stackName;
}

async function stackOutputs(stackName: string, clients: FleetClients): Promise<Record<string, string>> {
  const out = await awsCall('cloudformation:DescribeStacks', () => clients.cfn.send(new DescribeStacksCommand({ StackName: stackName })));
  return Object.fromEntries((out.Stacks?.[0]?.Outputs ?? []).filter((o) => o.OutputValue !== undefined).map((o) => [o.OutputKey, o.OutputValue!]));
}

/** What a created stack says of its member; an endpoint output that is no URL is kept as a note only. */
function created(stackName: string, stackId: string, outputs: Record<string, string>): MemberStackOutcome {
  const instanceId = instanceIdOf(outputs.InstanceId);
  try {
    // A member without a public address answers inside the VPC only (a VPN, an SSM port forward).
    return { status: 'created', stackId, endpoint: memberEndpoint({ stackName, outputs }), instanceId };
  } catch (err) {
    return { status: 'created', stackId, instanceId, note: (err as Error).message };
  }
}

export async function createMemberStack(input: MemberStackInput, opts: MemberStackOptions): Promise<MemberStackOutcome> {
  const { clients, signal } = opts;
  if (signal?.aborted) return failed('interrupted before its stack was created');
  let stackId: string;
  try {
    stackId = await sendCreateStack(input, clients);
  } catch (err) {
    // Refused before it existed (a bad subnet, a permission): the reason is the call's.
    return failed((err as Error).message);
  }
  try {
    await waitUntilStackCreateComplete({ client: clients.cfn, maxWaitTime: opts.maxWaitSec, minDelay: 2, maxDelay: 15, abortSignal: signal },
      { StackName: stackId });
  } catch {
    return failed(signal?.aborted ? 'interrupted' : `stack ${input.stackName} failed: ${await failureReason(clients, stackId)}`);
  }
  try {
    return created(input.stackName, stackId, await stackOutputs(stackId, clients));
  } catch (err) {
    return failed(`its outputs could not be read: ${(err as Error).message}`);
  }
}
