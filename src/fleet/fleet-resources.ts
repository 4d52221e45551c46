/**
 * What a fleet made besides its stacks, found from its id and its stacks, never from a state
 * file: the instances its stacks name (DescribeStackResources), the volumes attached to them,
 * its SSM parameters under `/volbench/<id>/` and its objects under `<id>/` in its bucket, each
 * only while it carries `volbench:fleet=<id>`. What carries the fleet's tag or name but none of
 * this is named apart, to be left alone.
 */
import { DescribeInstancesCommand, DescribeVolumesCommand } from '@aws-sdk/client-ec2';
import { GetObjectTaggingCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { GetParametersByPathCommand, ListTagsForResourceCommand } from '@aws-sdk/client-ssm';

import { awsCall, type FleetClients } from './aws.js';
import { stackInstances, type FleetStacks } from './member-stacks.js';
import { FLEET_TAG, objectPrefix, parameterPath, taggedWithFleet } from './names.js';

export const LIVE_INSTANCE_STATES = ['pending', 'running', 'stopping', 'stopped', 'shutting-down'];

/** Found, and found but not provably the fleet's (left alone). */
export interface Found {
  ours: string[];
  strangers: string[];
}

/** The fleet's instances: those its stacks name; instances that only carry its tag are strangers. */
export async function fleetInstances(fleetId: string, stacks: FleetStacks, clients: FleetClients): Promise<Found> {
  const named = new Set<string>();
  for (const s of stacks.members.values()) for (const id of await stackInstances(s.stackId, clients)) named.add(id);
  const tagged = await awsCall('ec2:DescribeInstances', () => clients.ec2.send(new DescribeInstancesCommand({
    Filters: [{ Name: `tag:${FLEET_TAG}`, Values: [fleetId] }, { Name: 'instance-state-name', Values: LIVE_INSTANCE_STATES }],
  })));
  const strangers = (tagged.Reservations ?? []).flatMap((r) => r.Instances ?? []).map((i) => i.InstanceId!).filter((id) => id && !named.has(id));
  return { ours: [...named], strangers };
}

/** Of `ids`, the instances not yet terminated. */
export async function liveInstances(ids: readonly string[], clients: FleetClients): Promise<string[]> {
  if (ids.length === 0) return [];
  const out = await awsCall('ec2:DescribeInstances', () => clients.ec2.send(new DescribeInstancesCommand({
    Filters: [{ Name: 'instance-id', Values: [...ids] }, { Name: 'instance-state-name', Values: LIVE_INSTANCE_STATES }],
  })));
  return (out.Reservations ?? []).flatMap((r) => r.Instances ?? []).map((i) => i.InstanceId!).filter(Boolean);
}

/** Volumes attached to `instances` that carry the fleet's tag (its launch template tags them). */
export async function volumesOn(fleetId: string, instances: readonly string[], clients: FleetClients): Promise<string[]> {
  if (instances.length === 0) return [];
  const out = await awsCall('ec2:DescribeVolumes', () => clients.ec2.send(new DescribeVolumesCommand({
    Filters: [{ Name: 'attachment.instance-id', Values: [...instances] }, { Name: `tag:${FLEET_TAG}`, Values: [fleetId] }],
  })));
  return (out.Volumes ?? []).map((v) => v.VolumeId!).filter(Boolean);
}

/** Of `ids`, the volumes that still exist, with their state. */
export async function existingVolumes(ids: readonly string[], clients: FleetClients): Promise<Array<{ id: string; state: string }>> {
  if (ids.length === 0) return [];
  const out = await awsCall('ec2:DescribeVolumes', () => clients.ec2.send(new DescribeVolumesCommand({ Filters: [{ Name: 'volume-id', Values: [...ids] }] })));
  return (out.Volumes ?? []).filter((v) => v.VolumeId && v.State !== 'deleted' && v.State !== 'deleting').map((v) => ({ id: v.VolumeId!, state: v.State ?? '' }));
}

/** The fleet's SSM parameters: under `/volbench/<id>/` and tagged with it. */
export async function fleetParameters(fleetId: string, clients: FleetClients): Promise<Found> {
  const found: Found = { ours: [], strangers: [] };
  let NextToken: string | undefined;
  do {
    const page = await awsCall('ssm:GetParametersByPath', () => clients.ssm.send(new GetParametersByPathCommand({ Path: parameterPath(fleetId), Recursive: true, NextToken })));
    for (const p of page.Parameters ?? []) {
      if (!p.Name) continue;
      const tags = await awsCall('ssm:ListTagsForResource', () => clients.ssm.send(new ListTagsForResourceCommand({ ResourceType: 'Parameter', ResourceId: p.Name })));
      (taggedWithFleet(tags.TagList, fleetId) ? found.ours : found.strangers).push(p.Name);
    }
    NextToken = page.NextToken;
  } while (NextToken);
  return found;
}

/**
 * Whether a key is a fleet's record, kept by down and reap: its results and its state, and a
 * study's spec and lease and what each member wrote under its prefix (its progress, result,
 * done and log: src/api/study-objects.ts).
 */
export function isRecord(key: string): boolean {
  return key.includes('/results/') || key.endsWith('/fleet.json') || /^vb[0-9a-f]{10}\/study\/(spec|lease)\.json$/.test(key) ||
    /^vb[0-9a-f]{10}\/[^/]+\/(progress\.json|result\.json|done\.json|member\.log)$/.test(key);
}

/** The fleet's objects in `bucket` besides its record: under `<id>/` and tagged with it. */
export async function fleetObjects(fleetId: string, bucket: string, clients: FleetClients): Promise<Found> {
  const found: Found = { ours: [], strangers: [] };
  let ContinuationToken: string | undefined;
  do {
    const page = await awsCall('s3:ListBucket', () => clients.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: objectPrefix(fleetId), ContinuationToken })));
    for (const obj of page.Contents ?? []) {
      if (!obj.Key || isRecord(obj.Key)) continue;
      const tags = await awsCall('s3:GetObjectTagging', () => clients.s3.send(new GetObjectTaggingCommand({ Bucket: bucket, Key: obj.Key })));
      (taggedWithFleet(tags.TagSet, fleetId) ? found.ours : found.strangers).push(obj.Key);
    }
    ContinuationToken = page.NextContinuationToken;
  } while (ContinuationToken);
  return found;
}
