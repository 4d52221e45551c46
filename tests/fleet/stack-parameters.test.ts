/**
 * A member's stack parameters are spelled once (src/fleet/stack-parameters.ts): every one is a
 * parameter of infra/cloudformation/instance.yaml, every parameter the template needs (no
 * default) is given, and the optional ones only when there is something to say.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, type Tags } from 'yaml';

import { fleetVolumes, planFleet, stackParameters, type FleetStackSettings } from '../../src/fleet/index.js';
import { requires } from '../helpers/requires.js';

requires();

const template = parse(readFileSync(join(import.meta.dirname, '..', '..', 'infra', 'cloudformation', 'instance.yaml'), 'utf8'), {
  // CloudFormation's short forms (!Ref, !Sub, ...), taken as they are: the parameters use none.
  customTags: ['Ref', 'Sub', 'GetAtt', 'If', 'Equals', 'Not', 'And', 'Or', 'Select', 'Split', 'Join', 'Base64', 'FindInMap', 'GetAZs', 'Condition', 'ImportValue', 'Cidr']
    .flatMap((tag) => (['scalar', 'seq', 'map'] as const).map((c) => ({ tag: `!${tag}`, collection: c === 'scalar' ? undefined : c, resolve: (v: unknown) => v }))) as Tags,
}) as { Parameters: Record<string, { Default?: unknown }> };

const plan = planFleet({ volumes: fleetVolumes('gp3:500g:iops=6000:throughput=250,st1:2t', 'm6i.large'), instanceType: 'm6i.large', region: 'us-east-1' });

function settings(extra: Partial<FleetStackSettings> = {}): FleetStackSettings {
  return {
    plan, architecture: 'x86_64', expiresAt: '2030-01-01T00:00:00Z', ttlSec: 7200, allowedCidr: '203.0.113.7/32', bucket: 'results',
    bundleKey: `${plan.fleetId}/bundle/volbench-0.1.0-linux-x64.tar.gz`, bundleSha256: 'a'.repeat(64),
    tlsFingerprints: new Map(plan.members.map((m, i) => [m.label, `${i}`.repeat(64)])), where: { subnetId: 'subnet-1', vpcId: 'vpc-1', availabilityZone: 'us-east-1a', publicAddress: false }, ...extra,
  };
}

const asRecord = (params: ReturnType<typeof stackParameters>) => Object.fromEntries(params.map((p) => [p.ParameterKey, p.ParameterValue]));

describe('stackParameters', () => {
  it('names only parameters of the template, and every one it needs', () => {
    const given = asRecord(stackParameters(plan.members[0], settings()));
    expect(Object.keys(given).filter((k) => !(k in template.Parameters))).toEqual([]);
    const needed = Object.entries(template.Parameters).filter(([, p]) => p.Default === undefined).map(([k]) => k);
    expect(needed.filter((k) => !(k in given))).toEqual([]);
  });

  it("gives the member's volume, names and life", () => {
    const [gp3, st1] = plan.members.map((m) => asRecord(stackParameters(m, settings())));
    expect(gp3).toMatchObject({
      VolumeLabel: 'gp3-500g-6000iops-250mibs', VolumeType: 'gp3', VolumeSize: '500', VolumeIops: '6000', VolumeThroughput: '250',
      TokenParameterName: `/volbench/${plan.fleetId}/gp3-500g-6000iops-250mibs/token`, TlsKeyParameterName: `/volbench/${plan.fleetId}/gp3-500g-6000iops-250mibs/tls-key`,
      TlsCertKey: `${plan.fleetId}/tls/gp3-500g-6000iops-250mibs.crt`, TlsFingerprint: '0'.repeat(64),
      PublicAddress: 'false', MaxSizeBytes: '0', MaxRuntimeSeconds: '7200', ExpiresAt: '2030-01-01T00:00:00Z',
    });
    expect(st1).toMatchObject({ VolumeType: 'st1', VolumeSize: '2048', VolumeIops: '0', VolumeThroughput: '0', TlsFingerprint: '1'.repeat(64) });
  });

  it('makes autonomous members with the study spec\'s digest and no certificate to pin', () => {
    const given = asRecord(stackParameters(plan.members[0], settings({ mode: 'autonomous', studySpecSha256: 'c'.repeat(64), tlsFingerprints: undefined })));
    expect(given).toMatchObject({ MemberMode: 'autonomous', StudySpecSha256: 'c'.repeat(64) });
    expect(given).not.toHaveProperty('TlsFingerprint');
  });

  it('passes the bucket key and the instance profile only when there are some', () => {
    expect(asRecord(stackParameters(plan.members[0], settings()))).not.toHaveProperty('PackageKmsKeyArn');
    expect(asRecord(stackParameters(plan.members[0], settings()))).not.toHaveProperty('InstanceProfileName');
    const kms = 'arn:aws:kms:us-east-1:123456789012:key/0b7c5d9e-1111-4222-8333-944455556666';
    const given = asRecord(stackParameters(plan.members[0], settings({ instanceProfile: 'mine', where: { ...settings().where, kmsKeyArn: kms } })));
    expect(given).toMatchObject({ PackageKmsKeyArn: kms, InstanceProfileName: 'mine' });
  });
});
