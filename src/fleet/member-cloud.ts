/**
 * What a fleet knows of a member's volume, as a result's `volbench.cloud` says it: the provider,
 * region and instance type, the volume's figures (as the plan made them), its id once created,
 * its monthly price, and the fleet and label. Facts the member's service wrote stay as they are.
 */
import { costBasis } from '../cloud/cost.js';
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
