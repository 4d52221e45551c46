/**
 * Creating and deleting a fleet's stacks (infra/cloudformation/instance.yaml, one per volume),
 * in parallel, waiting on CloudFormation; and the check after deletion that nothing of the
 * fleet remains, by its tag.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import {
  CreateStackCommand, DeleteStackCommand, DescribeStackEventsCommand, DescribeStacksCommand,
  waitUntilStackCreateComplete, waitUntilStackDeleteComplete, type Parameter,
} from '@aws-sdk/client-cloudformation';
import {
  DeleteVolumeCommand, DescribeInstancesCommand, DescribeVolumesCommand, TerminateInstancesCommand,
  waitUntilInstanceTerminated, waitUntilVolumeAvailable,
} from '@aws-sdk/client-ec2';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { DeleteParameterCommand, PutParameterCommand } from '@aws-sdk/client-ssm';
import { GetCallerIdentityCommand } from '@aws-sdk/client-sts';

import { VolbenchError } from '../errors.js';
import { awsCall, type FleetClients } from './aws.js';
import type { FleetPlan } from './plan.js';
import { saveState, type FleetState } from './state.js';

export interface UpOptions {
  clients: FleetClients;
  stateDir: string;
  /** Bucket for results, the fleet's state and the package tarball. */
  bucket: string;
  /** The network allowed to reach the services (CIDR). */
  allowedCidr: string;
  /** An `npm pack` tarball to install on the instances; else `packageVersion` from npm. */
  packageFile?: string;
  packageVersion?: string;
  subnetId?: string;
  vpcId?: string;
  /** The longest wait for a stack, in seconds (default 40 min). */
  maxWaitSec?: number;
  /** Stops waiting for the stacks: the fleet is then torn down. */
  signal?: AbortSignal;
  log?: (line: string) => void;
}

export function templateBody(): string {
  return readFileSync(new URL('../../infra/cloudformation/instance.yaml', import.meta.url), 'utf8');
}

export function tokenParameterName(fleetId: string): string {
  return `/volbench/${fleetId}/token`;
}

const p = (ParameterKey: string, ParameterValue: string): Parameter => ({ ParameterKey, ParameterValue });

/** Why a stack failed: CloudFormation's reason on its first failed resource. */
async function failureReason(clients: FleetClients, stackName: string): Promise<string> {
  try {
    const out = await clients.cfn.send(new DescribeStackEventsCommand({ StackName: stackName }));
    const failed = (out.StackEvents ?? []).filter((e) => /FAILED/.test(e.ResourceStatus ?? '') && e.ResourceStatusReason);
    const first = failed[failed.length - 1] ?? failed[0];
    if (first) return `${first.LogicalResourceId}: ${first.ResourceStatusReason}`;
    const stack = await clients.cfn.send(new DescribeStacksCommand({ StackName: stackName }));
    return stack.Stacks?.[0]?.StackStatusReason ?? stack.Stacks?.[0]?.StackStatus ?? 'unknown';
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * Creates the fleet: the token in SSM, the package in S3, one stack per volume. A stack that
 * fails takes the whole fleet down (with CloudFormation's reason in the error).
 */
export async function fleetUp(plan: FleetPlan, opts: UpOptions): Promise<FleetState> {
  const { clients } = opts;
  const log = opts.log ?? (() => {});
  await awsCall('sts:GetCallerIdentity', () => clients.sts.send(new GetCallerIdentityCommand({})));
  const state: FleetState = {
    fleetId: plan.fleetId,
    region: plan.region,
    createdAt: new Date().toISOString(),
    status: 'creating',
    plan,
    bucket: opts.bucket,
    tokenParameter: tokenParameterName(plan.fleetId),
    members: plan.members.map((m) => ({ label: m.label, stackName: m.stackName, status: 'creating' })),
  };
  await saveState(state, opts.stateDir, clients);
  try {
    await awsCall('ssm:PutParameter', () => clients.ssm.send(new PutParameterCommand({
      Name: state.tokenParameter, Type: 'SecureString', Value: randomBytes(32).toString('base64url'),
      Description: `volbench fleet ${plan.fleetId}: the services' bearer token`, Overwrite: false,
      Tags: [{ Key: 'volbench:fleet', Value: plan.fleetId }],
    })));
    let packageKey = '';
    if (opts.packageFile) {
      packageKey = `${plan.fleetId}/package/${basename(opts.packageFile)}`;
      const body = readFileSync(opts.packageFile);
      await awsCall('s3:PutObject', () => clients.s3.send(new PutObjectCommand({ Bucket: opts.bucket, Key: packageKey, Body: body })));
    }
    const body = templateBody();
    log(`creating ${plan.members.length} stacks`);
    await Promise.all(plan.members.map(async (m, i) => {
      const v = m.volume;
      const parameters = [
        p('FleetId', plan.fleetId), p('VolumeLabel', m.label), p('InstanceType', plan.instanceType),
        p('AllowedCidr', opts.allowedCidr), p('VolumeType', v.type), p('VolumeSize', String(v.sizeGiB || 1)),
        p('VolumeIops', String(v.iops ?? 0)), p('VolumeThroughput', String(v.throughputMiBps ?? 0)),
        p('TokenParameterName', state.tokenParameter), p('ResultsBucket', opts.bucket), p('ResultsPrefix', `${plan.fleetId}/`),
        ...(packageKey ? [p('PackageBucket', opts.bucket), p('PackageKey', packageKey)] : []),
        ...(opts.packageVersion ? [p('PackageVersion', opts.packageVersion)] : []),
        ...(opts.subnetId ? [p('SubnetId', opts.subnetId), p('VpcId', opts.vpcId ?? '')] : []),
      ];
      const member = state.members[i];
      try {
        await awsCall('cloudformation:CreateStack', () => clients.cfn.send(new CreateStackCommand({
          StackName: m.stackName, TemplateBody: body, Parameters: parameters, Capabilities: ['CAPABILITY_IAM'],
          OnFailure: 'DO_NOTHING', Tags: [{ Key: 'volbench:fleet', Value: plan.fleetId }, { Key: 'volbench:volume', Value: m.label }],
        })));
      } catch (err) {
        // Refused before it existed (a bad subnet, a permission): the reason is the call's.
        member.status = 'failed';
        member.reason = (err as Error).message;
        log(`${m.label}: ${member.reason}`);
        return;
      }
      try {
        await waitUntilStackCreateComplete({
          client: clients.cfn, maxWaitTime: opts.maxWaitSec ?? 2400, minDelay: 2, maxDelay: 15, abortSignal: opts.signal,
        }, { StackName: m.stackName });
      } catch {
        member.status = 'failed';
        member.reason = opts.signal?.aborted ? 'interrupted' : await failureReason(clients, m.stackName);
        log(`${m.label}: stack ${m.stackName} failed: ${member.reason}`);
        return;
      }
      const out = await awsCall('cloudformation:DescribeStacks', () => clients.cfn.send(new DescribeStacksCommand({ StackName: m.stackName })));
      const outputs = Object.fromEntries((out.Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
      Object.assign(member, { status: 'created', endpoint: outputs.Endpoint, instanceId: outputs.InstanceId, volumeId: outputs.VolumeId });
      log(`${m.label}: up at ${member.endpoint}`);
    }));
  } catch (err) {
    state.status = 'failed';
    await saveState(state, opts.stateDir, clients).catch(() => {});
    await fleetDown(state, { clients, stateDir: opts.stateDir, log }).catch(() => {});
    throw err;
  }
  const failed = state.members.filter((m) => m.status === 'failed');
  if (failed.length) {
    state.status = 'failed';
    await saveState(state, opts.stateDir, clients);
    log(`tearing the fleet down: ${failed.length} stack(s) failed`);
    await fleetDown(state, { clients, stateDir: opts.stateDir, log });
    throw new VolbenchError('ECLOUD', `fleet ${plan.fleetId} could not be created: ${failed.map((m) => `${m.label}: ${m.reason}`).join('; ')}; ` +
      'everything it created was deleted', { field: 'cloudformation:CreateStack' });
  }
  state.status = 'up';
  await saveState(state, opts.stateDir, clients);
  return state;
}

export interface DownOptions {
  clients: FleetClients;
  stateDir: string;
  maxWaitSec?: number;
  log?: (line: string) => void;
}

export interface DownResult {
  /** Instances and volumes of the fleet still there after the teardown (should be none). */
  remaining: string[];
}

const LIVE_INSTANCE_STATES = ['pending', 'running', 'stopping', 'stopped', 'shutting-down'];

async function fleetInstances(clients: FleetClients, fleetId: string): Promise<string[]> {
  const out = await awsCall('ec2:DescribeInstances', () => clients.ec2.send(new DescribeInstancesCommand({
    Filters: [{ Name: 'tag:volbench:fleet', Values: [fleetId] }, { Name: 'instance-state-name', Values: LIVE_INSTANCE_STATES }],
  })));
  return (out.Reservations ?? []).flatMap((r) => r.Instances ?? []).map((i) => i.InstanceId!).filter(Boolean);
}

/** Volumes tagged with the fleet, or with one of its stacks (CloudFormation tags what it creates). */
async function fleetVolumes(clients: FleetClients, state: FleetState): Promise<Array<{ id: string; state: string }>> {
  const filters = [
    [{ Name: 'tag:volbench:fleet', Values: [state.fleetId] }],
    [{ Name: 'tag:aws:cloudformation:stack-name', Values: state.members.map((m) => m.stackName) }],
  ];
  const found = new Map<string, string>();
  for (const Filters of filters) {
    const out = await awsCall('ec2:DescribeVolumes', () => clients.ec2.send(new DescribeVolumesCommand({ Filters })));
    for (const v of out.Volumes ?? []) if (v.VolumeId && v.State !== 'deleted' && v.State !== 'deleting') found.set(v.VolumeId, v.State ?? '');
  }
  return [...found].map(([id, s]) => ({ id, state: s }));
}

/**
 * Deletes the fleet: its stacks (waited on), then whatever of it outlived them (an instance or a
 * volume found by tag is terminated or deleted), then its token. Says what remains, if anything.
 */
export async function fleetDown(state: FleetState, opts: DownOptions): Promise<DownResult> {
  const { clients } = opts;
  const log = opts.log ?? (() => {});
  state.status = 'deleting';
  await saveState(state, opts.stateDir, clients).catch(() => {});
  const waiter = { client: clients.cfn, maxWaitTime: opts.maxWaitSec ?? 1800, minDelay: 2, maxDelay: 15 };
  await Promise.all(state.members.map(async (m) => {
    try {
      await awsCall('cloudformation:DeleteStack', () => clients.cfn.send(new DeleteStackCommand({ StackName: m.stackName })));
      await waitUntilStackDeleteComplete(waiter, { StackName: m.stackName });
      m.status = 'deleted';
    } catch (err) {
      // A stack that never existed is already gone.
      if (/does not exist/i.test((err as Error).message)) m.status = 'deleted';
      else log(`${m.label}: deleting ${m.stackName}: ${(err as Error).message}`);
    }
  }));
  const instances = await fleetInstances(clients, state.fleetId);
  if (instances.length) {
    log(`terminating ${instances.length} instance(s) left behind: ${instances.join(', ')}`);
    await awsCall('ec2:TerminateInstances', () => clients.ec2.send(new TerminateInstancesCommand({ InstanceIds: instances })));
    await waitUntilInstanceTerminated({ client: clients.ec2, maxWaitTime: 600, minDelay: 2, maxDelay: 10 }, { InstanceIds: instances }).catch(() => {});
  }
  for (const v of await fleetVolumes(clients, state)) {
    if (v.state === 'in-use') {
      await waitUntilVolumeAvailable({ client: clients.ec2, maxWaitTime: 300, minDelay: 2, maxDelay: 10 }, { VolumeIds: [v.id] }).catch(() => {});
    }
    log(`deleting volume ${v.id} left behind`);
    await awsCall('ec2:DeleteVolume', () => clients.ec2.send(new DeleteVolumeCommand({ VolumeId: v.id }))).catch((err) => log((err as Error).message));
  }
  try {
    await clients.ssm.send(new DeleteParameterCommand({ Name: state.tokenParameter }));
  } catch (err) {
    if (!/ParameterNotFound/.test((err as Error).name)) log(`deleting ${state.tokenParameter}: ${(err as Error).message}`);
  }
  const remaining = [...(await fleetInstances(clients, state.fleetId)), ...(await fleetVolumes(clients, state)).map((v) => v.id)];
  const stacksLeft = state.members.filter((m) => m.status !== 'deleted').map((m) => m.stackName);
  remaining.push(...stacksLeft);
  state.status = remaining.length ? 'failed' : 'down';
  await saveState(state, opts.stateDir, clients).catch(() => {});
  return { remaining };
}
