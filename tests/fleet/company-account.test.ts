/**
 * What a company account asks of a fleet, before any AWS call: tags (no aws: or volbench: key,
 * each on the stacks and at each place the template takes them), no public address and a volume
 * key as stack parameters, a type no member can boot on refused with the nearest Nitro one, and
 * a state file that plants a reserved tag refused.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

import { instancePlatforms } from '../../src/cloud/index.js';
import {
  checkInstancePlatform, checkStackTags, fleetVolumes, formatPlan, memberStackInput, nearestNitro, parseFleetState, parseTagFlags, planFleet, standardFamily,
  stackParameters, tagList, templateBody, withUserTags, type FleetStackSettings,
} from '../../src/fleet/index.js';
import { VolbenchError } from '../../src/errors.js';
import { requires } from '../helpers/requires.js';

requires();

const KEY = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';

function refused(fn: () => unknown): VolbenchError {
  try {
    fn();
  } catch (err) {
    if (err instanceof VolbenchError) return err;
    throw err;
  }
  throw new Error('not refused');
}

const plan = (account: Parameters<typeof planFleet>[0]['account']) => planFleet({
  volumes: fleetVolumes('gp3:100g,io2:100g:iops=4000', 'm6i.large'), instanceType: 'm6i.large', region: 'us-east-1', fleetId: 'vb0123456789', account,
});

function settings(p: ReturnType<typeof plan>): FleetStackSettings {
  return {
    plan: p, architecture: 'x86_64', expiresAt: '2026-12-01T00:00:00Z', ttlSec: 3600, allowedCidr: '10.0.0.1/32', bucket: 'bucket-a', bundleKey: 'vb0123456789/bundle/b.tar.gz',
    bundleSha256: 'a'.repeat(64),
    where: { subnetId: 'subnet-0123456789abcdef0', vpcId: 'vpc-0123456789abcdef0', availabilityZone: 'us-east-1a', publicAddress: true },
  } as FleetStackSettings;
}

describe('--tag', () => {
  it('takes KEY=VALUE, repeatable, the value split at the first =', () => {
    expect(parseTagFlags(['CostCenter=cc-42', 'Owner=storage team', 'Expr=a=b', 'Empty='])).toEqual([
      { Key: 'CostCenter', Value: 'cc-42' }, { Key: 'Owner', Value: 'storage team' }, { Key: 'Expr', Value: 'a=b' }, { Key: 'Empty', Value: '' },
    ]);
  });

  it('refuses an aws: or volbench: key naming it, a key twice, and what a tag cannot hold', () => {
    const aws = refused(() => parseTagFlags(['aws:x=1']));
    expect(aws.code).toBe('EINVALID_ARGS');
    expect(aws.message).toContain("tag key 'aws:x' cannot be given (AWS reserves aws: keys)");
    expect(aws.field).toBe('--tag[0]');
    expect(refused(() => parseTagFlags(['Owner=a', 'VolBench:fleet=vb0000000000'])).message).toContain("tag key 'VolBench:fleet' cannot be given");
    expect(refused(() => parseTagFlags(['A=1', 'A=2'])).message).toContain("tag 'A' is given twice");
    expect(refused(() => parseTagFlags(['novalue'])).message).toContain("has no '='");
    expect(refused(() => parseTagFlags(['=x'])).field).toBe('--tag[0]');
    expect(refused(() => parseTagFlags(['K=a"b'])).message).toContain("the value of tag 'K' is not a tag value");
    expect(refused(() => parseTagFlags(['K=a\u2028b'])).message).toContain('is not a tag value');
    expect(refused(() => parseTagFlags(Array.from({ length: 41 }, (_, i) => `k${i}=v`))).message).toContain('41 tags');
  });

  it("a study body's tags (kept in its state) join the plan's, each key once, on the stack and in the template", () => {
    const p = plan({ tags: [{ Key: 'CostCenter', Value: 'cc-42' }] });
    const input = memberStackInput(p.members[0], { ...settings(p), tags: { Owner: 'storage', CostCenter: 'other' } }, 'arn:aws:iam::123456789012:role/r');
    expect(input.tags.filter((t) => !t.Key.startsWith('volbench:'))).toEqual([{ Key: 'CostCenter', Value: 'cc-42' }, { Key: 'Owner', Value: 'storage' }]);
    expect(input.templateBody.match(/- \{ Key: "Owner", Value: "storage" \}/g)).toHaveLength(3);
  });

  it('in a JSON body, a record: checked the same way, each named by its key', () => {
    expect(tagList(checkStackTags({ CostCenter: 'cc-42' }, 'tags'))).toEqual([{ Key: 'CostCenter', Value: 'cc-42' }]);
    const err = refused(() => checkStackTags({ Owner: 'a', 'aws:createdBy': 'me' }, 'tags'));
    expect(err.field).toBe('tags.aws:createdBy');
    expect(err.message).toContain("tag key 'aws:createdBy' cannot be given");
    expect(refused(() => checkStackTags({ K: 7 as unknown as string }, 'tags')).field).toBe('tags.K');
  });

  it('goes on every stack and at each of the template\'s marks, as YAML that reads back as the tags', () => {
    const p = plan({ tags: parseTagFlags(['CostCenter=cc-42', 'Owner=storage: team']) });
    const input = memberStackInput(p.members[0], settings(p), 'arn:aws:iam::123456789012:role/volbench-study-roles-StackRole-x');
    expect(input.tags).toEqual(expect.arrayContaining([{ Key: 'CostCenter', Value: 'cc-42' }, { Key: 'Owner', Value: 'storage: team' }, { Key: 'volbench:fleet', Value: 'vb0123456789' }]));
    // CloudFormation's short forms do not matter here: read as what they tag.
    const text = input.templateBody.replace(/!\w+(?=[ \n])/g, '');
    const r = parse(text).Resources;
    const want = [{ Key: 'CostCenter', Value: 'cc-42' }, { Key: 'Owner', Value: 'storage: team' }];
    const ltData = r.LaunchTemplate.Properties.LaunchTemplateData;
    expect(ltData.TagSpecifications.find((t: { ResourceType: string }) => t.ResourceType === 'volume').Tags).toEqual(expect.arrayContaining(want));
    expect(r.LaunchTemplate.Properties.TagSpecifications[0].Tags).toEqual(expect.arrayContaining(want));
    expect(r.Instance.Properties.Tags).toEqual(expect.arrayContaining(want));
    // Without tags the template is the file itself.
    expect(withUserTags(templateBody(), [])).toBe(templateBody());
    expect(templateBody().match(/# volbench:user-tags/g)).toHaveLength(3);
  });
});

describe('--no-public-ip and --ebs-kms-key', () => {
  it('are stack parameters: no public address (and no public endpoint), the volumes\' key', () => {
    const p = plan({ noPublicIp: true, ebsKmsKeyArn: KEY });
    const params = Object.fromEntries(stackParameters(p.members[0], settings(p)).map((x) => [x.ParameterKey, x.ParameterValue]));
    expect(params).toMatchObject({ NoPublicAddress: 'true', PublicAddress: 'false', VolumeKmsKeyArn: KEY });
    const plain = plan(undefined);
    const none = Object.fromEntries(stackParameters(plain.members[0], settings(plain)).map((x) => [x.ParameterKey, x.ParameterValue]));
    expect(none).not.toHaveProperty('NoPublicAddress');
    expect(none).not.toHaveProperty('VolumeKmsKeyArn');
    expect(none.PublicAddress).toBe('true');
  });

  it('the plan prints them, and leaves the public address out of the estimate', () => {
    const with_ = plan({ noPublicIp: true, ebsKmsKeyArn: KEY, tags: [{ Key: 'CostCenter', Value: 'cc-42' }] });
    const without = plan(undefined);
    expect(with_.publicIpv4Hourly).toBeUndefined();
    expect(without.publicIpv4Hourly?.usd).toBeGreaterThan(0);
    expect(with_.estimatedUsd!).toBeLessThan(without.estimatedUsd!);
    const text = formatPlan(with_);
    expect(text).toContain('tags: CostCenter=cc-42 on every stack');
    expect(text).toContain('no public IPv4 address on any member (--no-public-ip)');
    expect(text).toContain(`volumes encrypted with ${KEY} (--ebs-kms-key)`);
  });

  it('refuses a key that is no key ARN, or of another region', () => {
    expect(refused(() => plan({ ebsKmsKeyArn: 'alias/company-ebs' })).field).toBe('--ebs-kms-key');
    expect(refused(() => plan({ ebsKmsKeyArn: KEY.replace('us-east-1', 'eu-west-1') })).message).toContain('the key is in eu-west-1');
  });
});

describe('the instance platform', () => {
  it('refuses Xen, non-NVMe and non-EBS-optimized types, naming the catalog\'s field and the nearest Nitro type', () => {
    const m4 = refused(() => checkInstancePlatform('m4.large'));
    expect(m4.code).toBe('EVOLUME_PLACEMENT');
    expect(m4.field).toBe('--instance');
    expect(m4.message).toContain('hypervisor xen');
    expect(m4.message).toContain('m5.large is the nearest type built on Nitro of the same size');
    const t2 = refused(() => checkInstancePlatform('t2.micro'));
    expect(t2.message).toContain('ebs_optimized_support unsupported');
    expect(t2.message).toContain('t3.micro is the nearest');
    expect(refused(() => checkInstancePlatform('i3.large')).accepted).toContain('i3en.large');
    expect(refused(() => checkInstancePlatform('c4.xlarge')).message).toContain('c5.xlarge is the nearest');
    // A plan on one is never made.
    expect(refused(() => planFleet({ volumes: fleetVolumes('gp3:100g', 'r4.large'), instanceType: 'r4.large', region: 'us-east-1' })).code).toBe('EVOLUME_PLACEMENT');
  });

  it('passes Nitro types and bare metal, and a type the catalog does not know', () => {
    for (const t of ['m6i.large', 'm5.metal', 'c7g.large', 'x9z.large']) expect(() => checkInstancePlatform(t)).not.toThrow();
  });

  it('offers a type of the same architecture', () => {
    const all = instancePlatforms();
    const a1 = all.find((p) => p.type === 'm4.large')!;
    const near = all.find((p) => p.type === nearestNitro(a1, all))!;
    expect(near.architectures).toContain('x86_64');
  });
});

describe('quotas', () => {
  it('count the Standard families only', () => {
    for (const t of ['m6i.large', 'c7g.xlarge', 'r5.large', 't3.micro', 'i4i.large', 'im4gn.large', 'z1d.large', 'd3.xlarge', 'a1.large']) expect(standardFamily(t), t).toBe(true);
    for (const t of ['p4d.24xlarge', 'g5.xlarge', 'inf1.xlarge', 'hpc6a.48xlarge', 'dl1.24xlarge', 'trn1.2xlarge', 'x2idn.16xlarge', 'mac1.metal', 'f1.2xlarge']) {
      expect(standardFamily(t), t).toBe(false);
    }
  });
});

describe('a state file', () => {
  const state = (account: unknown) => JSON.parse(JSON.stringify({
    fleetId: 'vb0123456789', region: 'us-east-1', createdAt: '2026-11-29T00:00:00.000Z', status: 'up', bucket: 'bucket-a',
    plan: { ...plan(undefined), account }, members: plan(undefined).members.map((m) => ({ label: m.label, stackName: m.stackName, status: 'creating' })),
  }));

  it('keeps the account\'s asks', () => {
    const s = parseFleetState(state({ tags: [{ Key: 'CostCenter', Value: 'cc-42' }], noPublicIp: true, ebsKmsKeyArn: KEY }), 'vb0123456789', 'test', 'bucket-a');
    expect(s.plan.account?.tags).toEqual([{ Key: 'CostCenter', Value: 'cc-42' }]);
  });

  it('refuses a planted volbench: or aws: tag, and a key that is no key ARN', () => {
    for (const account of [{ tags: [{ Key: 'volbench:fleet', Value: 'vb9999999999' }] }, { tags: [{ Key: 'aws:x', Value: '1' }] }, { ebsKmsKeyArn: 'alias/x' }]) {
      const err = refused(() => parseFleetState(state(account), 'vb0123456789', 'test', 'bucket-a'));
      expect(err.code).toBe('EFLEET_STATE');
      expect(err.message).toMatch(/plan\.account\.(tags\[0\]|ebsKmsKeyArn)/);
    }
  });
});

describe('the template', () => {
  it('asks for no public address through the launch template\'s interface, and names the key on both volumes', () => {
    const text = readFileSync(join(import.meta.dirname, '..', '..', 'infra', 'cloudformation', 'instance.yaml'), 'utf8');
    expect(text).toMatch(/NetworkInterfaces: !If\n\s+- RefusePublicAddress\n\s+- - DeviceIndex: 0\n\s+AssociatePublicIpAddress: false/);
    expect(text.match(/KmsKeyId: !If \[HasVolumeKey, !Ref VolumeKmsKeyArn, !Ref AWS::NoValue\]/g)).toHaveLength(2);
    expect(text).toContain('SubnetId: !If [RefusePublicAddress, !Ref AWS::NoValue,');
    expect(text).toContain('SecurityGroupIds: !If [RefusePublicAddress, !Ref AWS::NoValue,');
  });
});
