/**
 * `volbench fleet reap`: finds everything of any fleet whose `volbench:expires` has passed, in one
 * region, with no state file (the machine that made the fleet may be gone), and deletes it once
 * asked to. An expiry tag proves nothing (whoever may tag may set it), so a resource is reaped
 * only when it is volbench's:
 *
 * - a stack: named `volbench-<id>-<label>` for its own VolumeLabel, with `volbench:fleet=<id>`
 *   (`<id>` as `^vb[0-9a-f]{10}$`);
 * - an instance or a loose volume: `volbench:fleet=<id>`, and its `aws:cloudformation:stack-name`
 *   (which only CloudFormation sets) a stack of that fleet whose resources list it. AWS does not
 *   give a volume made from a launch template's mapping that tag, so such a volume is never
 *   reaped loose: attached, it goes with its instance (DeleteOnTermination);
 * - an SSM parameter or an object: `volbench:fleet=<id>`, under `/volbench/<id>/` or `<id>/`, and
 *   named by a stack of that fleet (TokenParameterName, TlsKeyParameterName; PackageKey or
 *   TlsCertKey in that bucket), live or deleted (CloudFormation keeps a deleted stack 90 days);
 *   a study's seal, `/volbench/<id>/study`, when a stack of that fleet is a study's
 *   (MemberMode autonomous).
 *
 * - a schedule group: named `volbench-<id>` and tagged `volbench:fleet=<id>` (its schedules
 *   delete the fleet's stacks at the expiry, then themselves: what is left past it is the group).
 *
 * And a tag proves no expiry either: while a fleet has a live stack that is not past its own
 * (the stack's tag, which only its creator set, or its instance's, moved by `fleet run --ttl`),
 * nothing of that fleet is reaped, whatever `volbench:expires` its instance, volumes,
 * parameters, objects or schedule group carry: they go with that stack.
 *
 * Anything else past its expiry is listed as spared, with why.
 */
import { DeleteStackCommand, DescribeStackResourcesCommand, DescribeStacksCommand, ListStacksCommand, type Stack } from '@aws-sdk/client-cloudformation';
import {
  DeleteVolumeCommand, DescribeInstancesCommand, DescribeVolumesCommand, TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { DeleteObjectCommand, GetObjectTaggingCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { DeleteParameterCommand, GetParametersByPathCommand, ListTagsForResourceCommand } from '@aws-sdk/client-ssm';

import { ListScheduleGroupsCommand, ListTagsForResourceCommand as ListScheduleTagsCommand } from '@aws-sdk/client-scheduler';

import { awsCall, type FleetClients } from './aws.js';
import { isRecord } from './fleet-resources.js';
import { strangerReason } from './member-stacks.js';
import { FLEET_ID, FLEET_TAG, objectPrefix, parameterPath, scheduleGroupName, stackPrefix, studySealParameterName } from './names.js';
import { deleteSchedules } from './schedules.js';
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
  /** Schedule groups (`volbench-<id>`), with any schedule still in them. */
  schedules: string[];
}

/** What reap would delete, and what is past its expiry but not provably volbench's. */
export interface ReapPlan extends Reaped {
  spared: string[];
}

type Tag = { Key?: string; Value?: string };

const tagOf = (tags: readonly Tag[] | undefined, key: string) => tags?.find((t) => t.Key === key)?.Value;

/** Whether tags say expired at `now`; an unreadable expiry is not taken as one. */
export function expired(tags: readonly Tag[] | undefined, now: Date): boolean {
  const value = tagOf(tags, EXPIRES_TAG);
  const at = value ? Date.parse(value) : NaN;
  return Number.isFinite(at) && at <= now.getTime();
}

/** The region's volbench stacks, live and deleted, described once each and checked to be their fleet's. */
class VolbenchStacks {
  private readonly byFleet = new Map<string, Array<{ name: string; id: string; live: boolean }>>();
  private readonly described = new Map<string, Stack | null>();
  private readonly resources = new Map<string, string[]>();

  constructor(private readonly clients: FleetClients) {}

  fleets(): string[] {
    return [...this.byFleet.keys()];
  }

  async load(): Promise<void> {
    let NextToken: string | undefined;
    do {
      const page = await awsCall('cloudformation:ListStacks', () => this.clients.cfn.send(new ListStacksCommand({ NextToken })));
      for (const s of page.StackSummaries ?? []) {
        const fleet = /^volbench-(vb[0-9a-f]{10})-/.exec(s.StackName ?? '')?.[1];
        if (!fleet || !s.StackId) continue;
        this.byFleet.set(fleet, [...(this.byFleet.get(fleet) ?? []), { name: s.StackName!, id: s.StackId, live: s.StackStatus !== 'DELETE_COMPLETE' }]);
      }
      NextToken = page.NextToken;
    } while (NextToken);
  }

  /** The stack by id, when it is its fleet's (its name, its tag, its label). */
  private async stack(fleetId: string, name: string, id: string): Promise<Stack | undefined> {
    if (!this.described.has(id)) {
      const out = await awsCall('cloudformation:DescribeStacks', () => this.clients.cfn.send(new DescribeStacksCommand({ StackName: id })));
      const s = out.Stacks?.[0];
      this.described.set(id, s && !strangerReason(s, fleetId, name) ? s : null);
    }
    return this.described.get(id) ?? undefined;
  }

  /** Every stack of the fleet that proves to be its: live ones, or with `deleted` those CloudFormation still keeps too. */
  async ofFleet(fleetId: string, deleted = true): Promise<Stack[]> {
    const out: Stack[] = [];
    for (const { name, id, live } of this.byFleet.get(fleetId) ?? []) {
      if (!live && !deleted) continue;
      const s = await this.stack(fleetId, name, id);
      if (s) out.push(s);
    }
    return out;
  }

  /** Why `resource` (its tags, its id) is not one a stack of its fleet made, or undefined when it is. */
  async unproven(tags: readonly Tag[] | undefined, physicalId: string): Promise<string | undefined> {
    const fleet = tagOf(tags, FLEET_TAG) ?? '';
    if (!FLEET_ID.test(fleet)) return `no ${FLEET_TAG} tag of a fleet id`;
    const stackName = tagOf(tags, 'aws:cloudformation:stack-name') ?? '';
    if (!stackName.startsWith(stackPrefix(fleet))) return `no stack of fleet ${fleet} made it (aws:cloudformation:stack-name)`;
    for (const s of await this.ofFleet(fleet, false)) {
      if (s.StackName !== stackName) continue;
      if ((await this.resourcesOf(s.StackId!)).includes(physicalId)) return undefined;
    }
    return `stack ${stackName} of fleet ${fleet} does not list it`;
  }

  private async resourcesOf(stackId: string): Promise<string[]> {
    if (!this.resources.has(stackId)) {
      const out = await awsCall('cloudformation:DescribeStackResources', () => this.clients.cfn.send(new DescribeStackResourcesCommand({ StackName: stackId })));
      this.resources.set(stackId, (out.StackResources ?? []).map((r) => r.PhysicalResourceId ?? '').filter(Boolean));
    }
    return this.resources.get(stackId)!;
  }

  /** Whether a stack of `fleetId` names `value` as one of `keys` (and, with `bucket`, that bucket as `bucketKey`). */
  async names(fleetId: string, value: string, keys: Array<[string, string?]>, bucket?: string): Promise<boolean> {
    for (const s of await this.ofFleet(fleetId)) {
      const param = (k: string) => s.Parameters?.find((p) => p.ParameterKey === k)?.ParameterValue;
      if (keys.some(([k, bucketKey]) => param(k) === value && (bucketKey === undefined || param(bucketKey) === bucket))) return true;
    }
    return false;
  }
}

/** Whether a stack's instance carries a later expiry (`fleet run --ttl` moved it there). */
async function extended(o: ReapOptions, stackName: string): Promise<boolean> {
  const out = await awsCall('ec2:DescribeInstances', () => o.clients.ec2.send(new DescribeInstancesCommand({
    Filters: [{ Name: 'tag:aws:cloudformation:stack-name', Values: [stackName] }],
  })));
  return (out.Reservations ?? []).flatMap((r) => r.Instances ?? [])
    .some((i) => i.State?.Name !== 'terminated' && i.Tags?.some((t) => t.Key === EXPIRES_TAG) && !expired(i.Tags, o.now));
}

/**
 * The expired stacks of every fleet; and, by fleet, a live stack that is not (its own tag, or its
 * instance's, says later): everything that fleet made is kept with it, whatever its own tag says.
 */
async function findStacks(o: ReapOptions, index: VolbenchStacks, fleets: Iterable<string>, plan: ReapPlan): Promise<Map<string, string>> {
  const living = new Map<string, string>();
  for (const fleet of fleets) {
    for (const s of await index.ofFleet(fleet, false)) {
      if (s.StackStatus === 'DELETE_COMPLETE') continue;
      if (!expired(s.Tags, o.now) || await extended(o, s.StackName!)) living.set(fleet, s.StackName!);
      else plan.stacks.push(s.StackName!);
    }
  }
  return living;
}

/** Why a resource of `fleet` is kept while its fleet lives, or undefined when the fleet has no live stack left unexpired. */
function heldBy(living: Map<string, string>, fleet: string): string | undefined {
  const stack = living.get(fleet);
  return stack === undefined ? undefined : `stack ${stack} of fleet ${fleet} is live and not expired: it goes with it`;
}

async function findEc2(o: ReapOptions, index: VolbenchStacks, living: Map<string, string>, plan: ReapPlan): Promise<void> {
  const Filters = [{ Name: 'tag-key', Values: [EXPIRES_TAG] }];
  const inst = await awsCall('ec2:DescribeInstances', () => o.clients.ec2.send(new DescribeInstancesCommand({ Filters })));
  for (const i of (inst.Reservations ?? []).flatMap((r) => r.Instances ?? [])) {
    if (!i.InstanceId || i.State?.Name === 'terminated' || i.State?.Name === 'shutting-down' || !expired(i.Tags, o.now)) continue;
    const why = await index.unproven(i.Tags, i.InstanceId) ?? heldBy(living, tagOf(i.Tags, FLEET_TAG)!);
    if (why) plan.spared.push(`instance ${i.InstanceId}: ${why}`);
    else plan.instances.push(i.InstanceId);
  }
  const vols = await awsCall('ec2:DescribeVolumes', () => o.clients.ec2.send(new DescribeVolumesCommand({ Filters })));
  for (const v of vols.Volumes ?? []) {
    // An attached volume goes with its instance (DeleteOnTermination), if that is reaped.
    if (!v.VolumeId || v.State !== 'available' || !expired(v.Tags, o.now)) continue;
    const why = await index.unproven(v.Tags, v.VolumeId) ?? heldBy(living, tagOf(v.Tags, FLEET_TAG)!);
    if (why) plan.spared.push(`volume ${v.VolumeId}: ${why}`);
    else plan.volumes.push(v.VolumeId);
  }
}

async function findParameters(o: ReapOptions, index: VolbenchStacks, living: Map<string, string>, plan: ReapPlan): Promise<void> {
  let NextToken: string | undefined;
  do {
    const page = await awsCall('ssm:GetParametersByPath', () => o.clients.ssm.send(new GetParametersByPathCommand({ Path: '/volbench/', Recursive: true, NextToken })));
    for (const p of page.Parameters ?? []) {
      if (!p.Name) continue;
      const tags = (await awsCall('ssm:ListTagsForResource', () => o.clients.ssm.send(new ListTagsForResourceCommand({ ResourceType: 'Parameter', ResourceId: p.Name })))).TagList;
      if (!expired(tags, o.now)) continue;
      const fleet = tagOf(tags, FLEET_TAG) ?? '';
      // A study's seal is named by none: an autonomous stack of its fleet vouches for it.
      const ours = FLEET_ID.test(fleet) && p.Name.startsWith(parameterPath(fleet))
        && (await index.names(fleet, p.Name, [['TokenParameterName'], ['TlsKeyParameterName']])
          || (p.Name === studySealParameterName(fleet) && await index.names(fleet, 'autonomous', [['MemberMode']])));
      const held = ours ? heldBy(living, fleet) : undefined;
      if (ours && !held) plan.parameters.push(p.Name);
      else plan.spared.push(`parameter ${p.Name}: ${held ?? 'no stack of a fleet it is tagged with names it'}`);
    }
    NextToken = page.NextToken;
  } while (NextToken);
}

async function findObjects(o: ReapOptions, index: VolbenchStacks, living: Map<string, string>, bucket: string, plan: ReapPlan): Promise<void> {
  let ContinuationToken: string | undefined;
  do {
    const page = await awsCall('s3:ListBucket', () => o.clients.s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken })));
    for (const obj of page.Contents ?? []) {
      // Results are kept: they are what the study was for. The bundle and certificate go.
      if (!obj.Key || isRecord(obj.Key)) continue;
      const tags = (await awsCall('s3:GetObjectTagging', () => o.clients.s3.send(new GetObjectTaggingCommand({ Bucket: bucket, Key: obj.Key })))).TagSet;
      if (!expired(tags, o.now)) continue;
      const fleet = tagOf(tags, FLEET_TAG) ?? '';
      const ours = FLEET_ID.test(fleet) && obj.Key.startsWith(objectPrefix(fleet))
        && await index.names(fleet, obj.Key, [['PackageKey', 'PackageBucket'], ['TlsCertKey', 'ResultsBucket']], bucket);
      const held = ours ? heldBy(living, fleet) : undefined;
      if (ours && !held) plan.objects.push(obj.Key);
      else plan.spared.push(`object s3://${bucket}/${obj.Key}: ${held ?? 'no stack of a fleet it is tagged with names it'}`);
    }
    ContinuationToken = page.NextContinuationToken;
  } while (ContinuationToken);
}

async function findScheduleGroups(o: ReapOptions, living: Map<string, string>, plan: ReapPlan): Promise<void> {
  let NextToken: string | undefined;
  do {
    const page = await awsCall('scheduler:ListScheduleGroups', () => o.clients.scheduler.send(new ListScheduleGroupsCommand({ NamePrefix: 'volbench-vb', NextToken })));
    for (const g of page.ScheduleGroups ?? []) {
      if (!g.Name || !g.Arn || g.State === 'DELETING') continue;
      const fleet = g.Name.slice('volbench-'.length);
      if (!FLEET_ID.test(fleet)) continue;
      const tags = (await awsCall('scheduler:ListTagsForResource', () => o.clients.scheduler.send(new ListScheduleTagsCommand({ ResourceArn: g.Arn })))).Tags;
      if (!expired(tags, o.now)) continue;
      const why = tagOf(tags, FLEET_TAG) === fleet && g.Name === scheduleGroupName(fleet) ? heldBy(living, fleet) : `not tagged ${FLEET_TAG}=${fleet}`;
      if (why) plan.spared.push(`schedule group ${g.Name}: ${why}`);
      else plan.schedules.push(g.Name);
    }
    NextToken = page.NextToken;
  } while (NextToken);
}

/** What reap would delete at `o.now`, and what it spares; deletes nothing. */
export async function findExpired(o: ReapOptions): Promise<ReapPlan> {
  const plan: ReapPlan = { stacks: [], instances: [], volumes: [], parameters: [], objects: [], schedules: [], spared: [] };
  const index = new VolbenchStacks(o.clients);
  await index.load();
  const living = await findStacks(o, index, index.fleets(), plan);
  await findEc2(o, index, living, plan);
  await findParameters(o, index, living, plan);
  if (o.bucket) await findObjects(o, index, living, o.bucket, plan);
  await findScheduleGroups(o, living, plan);
  return plan;
}

/** Deletes what `plan` lists (findExpired's), stacks first: they own most of it. */
export async function reapFleets(o: ReapOptions, plan?: Reaped): Promise<Reaped> {
  const found = plan ?? await findExpired(o);
  const out: Reaped = { stacks: [], instances: [], volumes: [], parameters: [], objects: [], schedules: [] };
  const log = o.log ?? (() => {});
  const { cfn, ec2, ssm, s3 } = o.clients;
  for (const StackName of found.stacks) {
    await awsCall('cloudformation:DeleteStack', () => cfn.send(new DeleteStackCommand({ StackName })));
    out.stacks.push(StackName);
  }
  if (found.instances.length) {
    await awsCall('ec2:TerminateInstances', () => ec2.send(new TerminateInstancesCommand({ InstanceIds: found.instances })));
    out.instances.push(...found.instances);
  }
  for (const VolumeId of found.volumes) {
    await awsCall('ec2:DeleteVolume', () => ec2.send(new DeleteVolumeCommand({ VolumeId })));
    out.volumes.push(VolumeId);
  }
  for (const Name of found.parameters) {
    await awsCall('ssm:DeleteParameter', () => ssm.send(new DeleteParameterCommand({ Name })));
    out.parameters.push(Name);
  }
  for (const Key of o.bucket ? found.objects : []) {
    await awsCall('s3:DeleteObject', () => s3.send(new DeleteObjectCommand({ Bucket: o.bucket, Key })));
    out.objects.push(Key);
  }
  for (const name of found.schedules) {
    await deleteSchedules(name.slice('volbench-'.length), o.clients);
    out.schedules.push(name);
  }
  for (const [kind, names] of Object.entries(out)) if (names.length) log(`reaped ${names.length} ${kind}: ${names.join(', ')}`);
  return out;
}
