/**
 * What a fleet knows of a member's volume, as a result's `volbench.cloud` says it: the provider,
 * region and instance type, the volume's figures (as the plan made them), its id once created,
 * its monthly price, and the fleet and label. Facts the member's service wrote stay as they are.
 */
import { DescribeInstancesCommand } from '@aws-sdk/client-ec2';

import { costBasis } from '../cloud/cost.js';
import { awsCatalogDates } from '../cloud/index.js';
import { ownTable } from '../own-key.js';
import type { FioResult } from '../fio-output/fio-result.js';
import { awsCall, type FleetClients } from './aws.js';
import type { FleetState } from './state.js';

export function memberCloud(state: FleetState, label: string, known: Record<string, unknown> = {}): Record<string, unknown> {
  const member = state.plan.members.find((m) => m.label === label);
  const ms = state.members.find((m) => m.label === label);
  const cloud = { ...known };
  cloud.provider ??= 'aws';
  cloud.region ??= state.region;
  cloud.instance_type ??= state.plan.instanceType;
  if (member && cloud.volume === undefined) {
    const v = member.volume;
    cloud.volume = {
      ...(ms?.volumeId && ms.volumeId !== 'instance-store' ? { id: ms.volumeId } : {}),
      // A plan saved before it kept the figures as results write them: the figures as given.
      ...(member.cloudVolume ?? { type: v.type, size_gib: v.sizeGiB, ...(v.iops ? { iops: v.iops } : {}), ...(v.throughputMiBps ? { throughput_mibps: v.throughputMiBps } : {}) }),
    };
  }
  const price = member?.volumeMonthly;
  if (price && cloud.price === undefined) {
    cloud.price = {
      usd_per_month: price.usd, as_of: price.as_of, source: price.source, ...(price.region_used ? { region_used: price.region_used } : {}),
      ...(price.confidence ? { confidence: price.confidence } : {}), cost_scope: 'volume', basis: costBasis('730h'),
    };
  }
  cloud.fleet = { id: state.fleetId, label };
  return cloud;
}

/** A member's instance as EC2 describes it. */
export interface MemberHost {
  instanceId: string;
  imageId?: string;
  availabilityZone?: string;
}

/**
 * Each member's instance (id, AMI, zone) from one DescribeInstances: what a later comparison of
 * results needs to know they ran alike. `instances` is {label: instance id}, as the members'
 * stacks name them. A member whose instance EC2 does not describe has none.
 */
export async function memberHosts(instances: Record<string, string>, clients: FleetClients): Promise<Record<string, MemberHost>> {
  const ids = Object.values(instances).filter((id) => id.startsWith('i-'));
  const hosts = ownTable<MemberHost>();
  if (ids.length === 0) return hosts;
  let out;
  try {
    out = await awsCall('ec2:DescribeInstances', () => clients.ec2.send(new DescribeInstancesCommand({ InstanceIds: ids })));
  } catch {
    return hosts; // It describes the results; the run does not need it.
  }
  const byId = new Map((out.Reservations ?? []).flatMap((r) => r.Instances ?? []).map((i) => [i.InstanceId, i]));
  for (const [label, id] of Object.entries(instances)) {
    const i = byId.get(id);
    if (!i?.InstanceId) continue;
    hosts[label] = { instanceId: i.InstanceId, ...(i.ImageId ? { imageId: i.ImageId } : {}), ...(i.Placement?.AvailabilityZone ? { availabilityZone: i.Placement.AvailabilityZone } : {}) };
  }
  return hosts;
}

/** fio's JSON with what the fleet knows of the member's volume and host, where the member did not say already. */
export function withFleetFacts(doc: FioResult, state: FleetState, label: string, host: MemberHost | undefined): FioResult {
  const known = (doc.volbench as { cloud?: Record<string, unknown> } | undefined)?.cloud;
  const cloud = { ...memberCloud(state, label, known ?? {}), ...hostFacts(host, known) };
  return { ...doc, volbench: { ...doc.volbench, cloud } } as FioResult;
}

/** The host's facts and the catalog's dates as `volbench.cloud` keeps them; what the member said stays. */
export function hostFacts(host: MemberHost | undefined, known: unknown): Record<string, unknown> {
  const k = (known ?? {}) as Record<string, unknown>;
  return {
    ...(host ? { instance_id: k.instance_id ?? host.instanceId } : {}),
    ...(host?.imageId ? { image_id: k.image_id ?? host.imageId } : {}),
    ...(host?.availabilityZone || k.availability_zone ? { availability_zone: k.availability_zone ?? host?.availabilityZone } : {}),
    catalog_as_of: k.catalog_as_of ?? awsCatalogDates(),
  };
}
