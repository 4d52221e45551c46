/**
 * The parameters of infra/cloudformation/instance.yaml for one member, spelled once: every key
 * here is a parameter of the template (tests/infra checks the template's side), and a value left
 * undefined takes the template's default.
 */
import type { Parameter } from '@aws-sdk/client-cloudformation';

import type { Architecture } from './architecture.js';
import { tlsCertKey, tlsKeyParameterName, tokenParameterName } from './names.js';
import type { FleetMember, FleetPlan } from './plan.js';
import type { Preflight } from './preflight.js';

/** What every member of a fleet shares: where it runs, what it fetches, how long it lives. */
export interface FleetStackSettings {
  plan: FleetPlan;
  architecture: Architecture;
  /** ISO-8601 UTC, the fleet's `volbench:expires`. */
  expiresAt: string;
  ttlSec: number;
  allowedCidr: string;
  bucket: string;
  bundleKey: string;
  bundleSha256: string;
  /** Interactive: each member's own certificate's fingerprint, by label (none: autonomous members serve nothing). */
  tlsFingerprints?: ReadonlyMap<string, string>;
  where: Preflight;
  instanceProfile?: string;
  /** interactive (default): the member serves HTTPS for `fleet run`; autonomous: it runs the study's spec itself. */
  mode?: 'interactive' | 'autonomous';
  /** Autonomous: the SHA-256 of FLEET/study/spec.json, which the member checks. */
  studySpecSha256?: string;
  /** The user's own tags on every stack, beside volbench's (tags.ts). */
  tags?: Record<string, string>;
}

/**
 * Seconds serve may run one workload: the fleet's life. The expiry is the real bound, and
 * `fleet run --suite/--job/--ttl` may give a member a longer workload than the plan's: a
 * runtime cap set from the plan would refuse it after --ttl had extended the fleet.
 */
function maxRuntimeSeconds(ttlSec: number): number {
  return Math.max(600, ttlSec);
}

/** What a company account asked for (member-account.ts): the volumes' key, no public address. */
function accountParameters(plan: FleetPlan): Record<string, string | undefined> {
  const a = plan.account;
  return {
    ...(a?.ebsKmsKeyArn ? { VolumeKmsKeyArn: a.ebsKmsKeyArn } : {}),
    // Asked for none, a member has none: no public endpoint either, whatever the subnet maps.
    ...(a?.noPublicIp ? { NoPublicAddress: 'true', PublicAddress: 'false' } : {}),
  };
}

export function stackParameters(member: FleetMember, fleet: FleetStackSettings): Parameter[] {
  const { plan, where } = fleet;
  const v = member.volume;
  const values: Record<string, string | undefined> = {
    FleetId: plan.fleetId,
    VolumeLabel: member.label,
    InstanceType: plan.instanceType,
    Architecture: fleet.architecture,
    ExpiresAt: fleet.expiresAt,
    AllowedCidr: fleet.allowedCidr,
    VolumeType: v.type,
    VolumeSize: String(v.sizeGiB || 1),
    VolumeIops: String(v.iops ?? 0),
    VolumeThroughput: String(v.throughputMiBps ?? 0),
    // Derived names, passed in either mode (the template requires them); an autonomous member reads none.
    TokenParameterName: tokenParameterName(plan.fleetId, member.label),
    TlsKeyParameterName: tlsKeyParameterName(plan.fleetId, member.label),
    TlsCertKey: tlsCertKey(plan.fleetId, member.label),
    TlsFingerprint: fleet.tlsFingerprints?.get(member.label),
    ResultsBucket: fleet.bucket,
    PackageBucket: fleet.bucket,
    PackageKey: fleet.bundleKey,
    PackageSha256: fleet.bundleSha256,
    SubnetId: where.subnetId,
    VpcId: where.vpcId,
    PublicAddress: String(where.publicAddress),
    // The whole device: the member measures its own volume and nothing else.
    MaxSizeBytes: '0',
    MaxRuntimeSeconds: String(maxRuntimeSeconds(fleet.ttlSec)),
    PackageKmsKeyArn: where.kmsKeyArn,
    InstanceProfileName: fleet.instanceProfile,
    MemberMode: fleet.mode,
    StudySpecSha256: fleet.studySpecSha256,
    ...accountParameters(plan),
  };
  return Object.entries(values).flatMap(([ParameterKey, ParameterValue]) => (ParameterValue === undefined ? [] : [{ ParameterKey, ParameterValue }]));
}
