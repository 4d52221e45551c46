/**
 * A fleet's stacks: the truth about it, whatever its state file says. A stack is the fleet's
 * when its name is `volbench-<id>-<label>` for its own VolumeLabel and it carries
 * `volbench:fleet=<id>` (a tag only its creator, through CloudFormation, set). Its outputs say
 * where the member answers (PublicEndpoint, else PrivateEndpoint), the certificate it is pinned
 * to (TlsFingerprint) and its instance (InstanceId). A stack with the fleet's name but not its
 * tag is a stranger: never deleted, never reached.
 */
import { DescribeStackResourcesCommand, DescribeStacksCommand, ListStacksCommand, type Stack } from '@aws-sdk/client-cloudformation';

import { VolbenchError } from '../errors.js';
import { awsCall, type FleetClients } from './aws.js';
import { stackNameFor, stackPrefix, taggedWithFleet, VOLUME_LABEL } from './names.js';
import { normalizeFingerprint } from './pinned-fetch.js';

export interface MemberStack {
  label: string;
  stackName: string;
  stackId: string;
  status: string;
  /** The outputs as CloudFormation gives them (checked where used: memberEndpoint, memberFingerprint). */
  outputs: Record<string, string>;
  /** The stack's instance, from its InstanceId output when it is one. */
  instanceId?: string;
}

export interface FleetStacks {
  /** The fleet's live stacks, by label. */
  members: Map<string, MemberStack>;
  /** Stacks with one of the fleet's names that are not its, with why: left alone. */
  strangers: Array<{ stackName: string; reason: string }>;
}

function missing(err: unknown): boolean {
  return /does not exist/i.test((err as Error).message ?? '');
}

/** Names of live stacks that start with the fleet's prefix: the ones its state may not name. */
async function namesByPrefix(fleetId: string, clients: FleetClients): Promise<string[]> {
  const names: string[] = [];
  let NextToken: string | undefined;
  do {
    const page = await awsCall('cloudformation:ListStacks', () => clients.cfn.send(new ListStacksCommand({ NextToken })));
    for (const s of page.StackSummaries ?? []) {
      if (s.StackName?.startsWith(stackPrefix(fleetId)) && s.StackStatus !== 'DELETE_COMPLETE') names.push(s.StackName);
    }
    NextToken = page.NextToken;
  } while (NextToken);
  return names;
}

/** Why `stack` is not fleet `fleetId`'s member named `name`, or undefined when it is. */
export function strangerReason(stack: Stack, fleetId: string, name: string): string | undefined {
  if (!taggedWithFleet(stack.Tags, fleetId)) return `does not carry volbench:fleet=${fleetId}`;
  const label = stack.Parameters?.find((p) => p.ParameterKey === 'VolumeLabel')?.ParameterValue ?? '';
  if (!VOLUME_LABEL.test(label) || stackNameFor(fleetId, label) !== name) return `is not named for its VolumeLabel '${label.slice(0, 80)}'`;
  return undefined;
}

/**
 * The fleet's stacks: those named for `labels` (the plan's) and any other live stack whose name
 * starts with `volbench-<id>-`, each described and checked. A stack that does not exist is not
 * listed (it never was, or it is gone).
 */
export async function fleetStacks(fleetId: string, labels: readonly string[], clients: FleetClients): Promise<FleetStacks> {
  const names = new Set([...labels.map((l) => stackNameFor(fleetId, l)), ...(await namesByPrefix(fleetId, clients))]);
  const out: FleetStacks = { members: new Map(), strangers: [] };
  for (const name of names) {
    let stack: Stack | undefined;
    try {
      stack = (await awsCall('cloudformation:DescribeStacks', () => clients.cfn.send(new DescribeStacksCommand({ StackName: name })))).Stacks?.[0];
    } catch (err) {
      if (missing(err)) continue;
      throw err;
    }
    if (!stack || stack.StackStatus === 'DELETE_COMPLETE') continue;
    const why = strangerReason(stack, fleetId, name);
    if (why) {
      out.strangers.push({ stackName: name, reason: why });
      continue;
    }
    const label = stack.Parameters!.find((p) => p.ParameterKey === 'VolumeLabel')!.ParameterValue!;
    const outputs: Record<string, string> = {};
    for (const o of stack.Outputs ?? []) if (o.OutputKey && o.OutputValue !== undefined) outputs[o.OutputKey] = o.OutputValue;
    out.members.set(label, { label, stackName: name, stackId: stack.StackId ?? name, status: stack.StackStatus ?? '', outputs, instanceId: instanceIdOf(outputs.InstanceId) });
  }
  return out;
}

/**
 * An endpoint a stack's output gives: an https URL with a host and nothing but a port after it.
 * A template left unrendered (`${Instance.PublicIp}`), a clear-text scheme or a path is refused
 * naming the output.
 */
export function parseEndpoint(value: string, field: string): string {
  const refuse = (why: string): never => {
    throw new VolbenchError('EFLEET_STATE', `${field} is '${value.slice(0, 200)}': ${why}; nothing is sent to it`, { field, accepted: 'https://HOST:PORT' });
  };
  if (value.includes('${')) refuse('an unrendered template, not a URL');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return refuse('not a URL');
  }
  if (url.protocol !== 'https:') refuse('members answer over HTTPS only');
  if (!url.hostname || url.username || url.password || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) refuse('not a bare https://HOST:PORT');
  return url.origin;
}

/** Where a member answers, as its stack says it (PublicEndpoint, else PrivateEndpoint). */
export function memberEndpoint(stack: Pick<MemberStack, 'stackName' | 'outputs'>): string | undefined {
  for (const key of ['PublicEndpoint', 'PrivateEndpoint']) {
    const value = stack.outputs[key];
    if (value !== undefined) return parseEndpoint(value, `stack ${stack.stackName} output ${key}`);
  }
  return undefined;
}

/** An instance id as EC2 makes them, else undefined. */
export function instanceIdOf(value: string | undefined): string | undefined {
  return value !== undefined && /^i-[0-9a-f]{8,17}$/.test(value) ? value : undefined;
}

/** The certificate a member is pinned to, as its stack says it (TlsFingerprint). */
export function memberFingerprint(stack: MemberStack): string {
  const field = `stack ${stack.stackName} output TlsFingerprint`;
  const value = stack.outputs.TlsFingerprint;
  if (!value) {
    throw new VolbenchError('EFLEET_STATE', `${field} is missing: the member's certificate cannot be pinned, so no token is sent to it (a stack made before volbench pinned from its outputs: fleet down and up again)`, {
      field, accepted: 'a SHA-256 fingerprint',
    });
  }
  return normalizeFingerprint(value, field);
}

/** The instances a stack names (its AWS::EC2::Instance resources), by physical id. */
export async function stackInstances(stackId: string, clients: FleetClients): Promise<string[]> {
  try {
    const out = await awsCall('cloudformation:DescribeStackResources', () => clients.cfn.send(new DescribeStackResourcesCommand({ StackName: stackId })));
    return (out.StackResources ?? []).filter((r) => r.ResourceType === 'AWS::EC2::Instance' && r.PhysicalResourceId).map((r) => r.PhysicalResourceId!);
  } catch (err) {
    if (missing(err)) return [];
    throw err;
  }
}
