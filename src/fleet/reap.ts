/**
 * `volbench fleet reap`: deletes everything of any fleet whose `volbench:expires` has passed, in
 * one region, found by that tag alone (no state file needed: the machine that made the fleet
 * may be gone). Stacks first (they own most of it), then what outlived them: instances,
 * volumes, SSM parameters, and with a bucket the fleet's objects in it.
 */
import { DeleteStackCommand, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import {
  DeleteVolumeCommand, DescribeInstancesCommand, DescribeVolumesCommand, TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { DeleteObjectCommand, GetObjectTaggingCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { DeleteParameterCommand, GetParametersByPathCommand, ListTagsForResourceCommand } from '@aws-sdk/client-ssm';

import { awsCall, type FleetClients } from './aws.js';
import { EXPIRES_TAG } from './ttl.js';

export interface ReapOptions {
  clients: FleetClients;
  now: Date;
  /** Also the expired fleets' objects in this bucket. */
  bucket?: string;
  log?: (line: string) => void;
}

export interface Reaped {
  stacks: string[];
  instances: string[];
  volumes: string[];
  parameters: string[];
  objects: string[];
}

type Tag = { Key?: string; Value?: string };

/** Whether tags say expired at `now`; an unreadable expiry is not taken as one. */
export function expired(tags: readonly Tag[] | undefined, now: Date): boolean {
  const value = tags?.find((t) => t.Key === EXPIRES_TAG)?.Value;
  const at = value ? Date.parse(value) : NaN;
  return Number.isFinite(at) && at <= now.getTime();
}

/** Whether a stack's instance carries a later expiry (`fleet run --ttl` moved it there). */
async function extended(o: ReapOptions, stackName: string): Promise<boolean> {
  const out = await awsCall('ec2:DescribeInstances', () => o.clients.ec2.send(new DescribeInstancesCommand({
    Filters: [{ Name: 'tag:aws:cloudformation:stack-name', Values: [stackName] }],
  })));
  return (out.Reservations ?? []).flatMap((r) => r.Instances ?? [])
    .some((i) => i.State?.Name !== 'terminated' && i.Tags?.some((t) => t.Key === EXPIRES_TAG) && !expired(i.Tags, o.now));
}

async function reapStacks(o: ReapOptions, out: Reaped): Promise<void> {
  let NextToken: string | undefined;
  do {
    const page = await awsCall('cloudformation:DescribeStacks', () => o.clients.cfn.send(new DescribeStacksCommand({ NextToken })));
    for (const s of page.Stacks ?? []) {
      if (s.StackStatus === 'DELETE_COMPLETE' || !expired(s.Tags, o.now) || await extended(o, s.StackName!)) continue;
      await awsCall('cloudformation:DeleteStack', () => o.clients.cfn.send(new DeleteStackCommand({ StackName: s.StackName })));
      out.stacks.push(s.StackName!);
    }
    NextToken = page.NextToken;
  } while (NextToken);
}

async function reapEc2(o: ReapOptions, out: Reaped): Promise<void> {
  const Filters = [{ Name: 'tag-key', Values: [EXPIRES_TAG] }];
  const inst = await awsCall('ec2:DescribeInstances', () => o.clients.ec2.send(new DescribeInstancesCommand({ Filters })));
  const ids = (inst.Reservations ?? []).flatMap((r) => r.Instances ?? [])
    .filter((i) => i.State?.Name !== 'terminated' && i.State?.Name !== 'shutting-down' && expired(i.Tags, o.now)).map((i) => i.InstanceId!);
  if (ids.length) {
    await awsCall('ec2:TerminateInstances', () => o.clients.ec2.send(new TerminateInstancesCommand({ InstanceIds: ids })));
    out.instances.push(...ids);
  }
  const vols = await awsCall('ec2:DescribeVolumes', () => o.clients.ec2.send(new DescribeVolumesCommand({ Filters })));
  for (const v of vols.Volumes ?? []) {
    // An attached volume goes with its instance (DeleteOnTermination); a loose one is deleted.
    if (v.State !== 'available' || !expired(v.Tags, o.now)) continue;
    await awsCall('ec2:DeleteVolume', () => o.clients.ec2.send(new DeleteVolumeCommand({ VolumeId: v.VolumeId })));
    out.volumes.push(v.VolumeId!);
  }
}

async function reapParameters(o: ReapOptions, out: Reaped): Promise<void> {
  let NextToken: string | undefined;
  do {
    const page = await awsCall('ssm:GetParametersByPath', () => o.clients.ssm.send(new GetParametersByPathCommand({ Path: '/volbench/', Recursive: true, NextToken })));
    for (const p of page.Parameters ?? []) {
      const tags = await awsCall('ssm:ListTagsForResource', () => o.clients.ssm.send(new ListTagsForResourceCommand({ ResourceType: 'Parameter', ResourceId: p.Name })));
      if (!expired(tags.TagList, o.now)) continue;
      await awsCall('ssm:DeleteParameter', () => o.clients.ssm.send(new DeleteParameterCommand({ Name: p.Name })));
      out.parameters.push(p.Name!);
    }
    NextToken = page.NextToken;
  } while (NextToken);
}

async function reapObjects(o: ReapOptions, bucket: string, out: Reaped): Promise<void> {
  let ContinuationToken: string | undefined;
  do {
    const page = await awsCall('s3:ListObjectsV2', () => o.clients.s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken })));
    for (const obj of page.Contents ?? []) {
      // Results are kept: they are what the study was for. The bundle and certificate go.
      if (!obj.Key || obj.Key.includes('/results/') || obj.Key.endsWith('/fleet.json')) continue;
      const tags = await awsCall('s3:GetObjectTagging', () => o.clients.s3.send(new GetObjectTaggingCommand({ Bucket: bucket, Key: obj.Key })));
      if (!expired(tags.TagSet, o.now)) continue;
      await awsCall('s3:DeleteObject', () => o.clients.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: obj.Key })));
      out.objects.push(obj.Key);
    }
    ContinuationToken = page.NextContinuationToken;
  } while (ContinuationToken);
}

export async function reapFleets(o: ReapOptions): Promise<Reaped> {
  const out: Reaped = { stacks: [], instances: [], volumes: [], parameters: [], objects: [] };
  const log = o.log ?? (() => {});
  await reapStacks(o, out);
  await reapEc2(o, out);
  await reapParameters(o, out);
  if (o.bucket) await reapObjects(o, o.bucket, out);
  for (const [kind, names] of Object.entries(out)) if (names.length) log(`reaped ${names.length} ${kind}: ${names.join(', ')}`);
  return out;
}
