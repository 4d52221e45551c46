/**
 * A company account, played by moto (EC2, KMS, CloudFormation, S3, SSM, Scheduler) and, for the
 * quotas moto does not serve, a Service Quotas server on loopback that speaks its JSON protocol
 * (tests/harness/service-quotas.ts), both reached by the real SDK through AWS_ENDPOINT_URL and
 * AWS_ENDPOINT_URL_SERVICE_QUOTAS:
 *
 *   - a customer-managed default EBS key is named with the grants the stacks' role needs; a
 *     disabled one, or an --ebs-kms-key that does not exist, is refused;
 *   - the four-volume study on a 4-vCPU quota is refused (EPREFLIGHT, exit 2) with the numbers,
 *     the vCPUs already running counted; io2 IOPS over their quota too; a denied quota read is a
 *     warning and the plan goes on;
 *   - `--no-public-ip` on a default subnet: its internet gateway takes a member nowhere, so it
 *     needs a private subnet's endpoints (refused without them); with them, `fleet up --tag
 *     CostCenter=cc-42 --no-public-ip` makes stacks tagged CostCenter=cc-42 whose launch templates
 *     carry the tag at creation and ask for no public address;
 *   - `fleet plan --instance m4.large` and `--instance t2.micro`, and `--tag aws:x=1`, exit 2.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import {
  CreateVpcEndpointCommand, DescribeImagesCommand, DescribeLaunchTemplatesCommand, DescribeLaunchTemplateVersionsCommand, DescribeRouteTablesCommand,
  DescribeSubnetsCommand, DescribeVpcsCommand, EC2Client, ModifyEbsDefaultKmsKeyIdCommand, RunInstancesCommand, TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { CreateKeyCommand, DisableKeyCommand, EnableKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';

import { VolbenchError } from '../../src/errors.js';
import { fleetClients, fleetVolumes, planFleet, preflight, readAccount, type FleetPlan } from '../../src/fleet/index.js';
import { startServiceQuotas, type QuotaValue, type ServiceQuotasServer } from '../harness/service-quotas.js';
import { volbench } from '../helpers/cli.js';
import { awsDefaultVpc, freshMoto, type Moto } from '../helpers/moto.js';
import { requires } from '../helpers/requires.js';

const needs = requires('child', 'moto', 'dist');

const reason = needs.missing('moto', 'dist');
const REGION = 'us-east-1';
const BUCKET = 'volbench-company-test';
/** The study of docs/fleet.md: four volumes, one m6i.large (2 vCPUs) each. */
const STUDY = 'gp3:500g,gp3:500g:iops=6000:throughput=250,io2:500g:iops=16000,st1:2t';
const VCPUS = 'ec2/L-1216C47A';
const IO2 = 'ebs/L-8D977E7E';

describe.skipIf(reason !== undefined)(`a company account against moto${reason ? ` [skipped: ${reason}]` : ''}`, () => {
  let moto: Moto;
  let work: string;
  let servers: ServiceQuotasServer[] = [];
  const config = () => ({ region: REGION, endpoint: moto.endpoint, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });

  async function quotas(values: Record<string, QuotaValue>, denied = false): Promise<ServiceQuotasServer> {
    const s = await startServiceQuotas({ quotas: values, denied });
    servers.push(s);
    return s;
  }

  const envWith = (sq: ServiceQuotasServer): NodeJS.ProcessEnv => ({ ...process.env, ...moto.env, AWS_ENDPOINT_URL_SERVICE_QUOTAS: sq.endpoint, AWS_PROFILE: '' });

  /** The library's reading, in this process, with the clients pointed at moto and the quota server. */
  async function read(plan: FleetPlan, sq: ServiceQuotasServer) {
    const saved = { ...process.env };
    Object.assign(process.env, moto.env, { AWS_ENDPOINT_URL_SERVICE_QUOTAS: sq.endpoint });
    const clients = fleetClients({ region: REGION });
    try {
      return await readAccount(plan, clients);
    } finally {
      clients.destroy();
      process.env = saved;
    }
  }

  const planOf = (volumes: string, account?: Parameters<typeof planFleet>[0]['account']) =>
    planFleet({ volumes: fleetVolumes(volumes, 'm6i.large'), instanceType: 'm6i.large', region: REGION, ...(account ? { account } : {}) });

  async function customerKey(): Promise<string> {
    const kms = new KMSClient(config());
    const key = (await kms.send(new CreateKeyCommand({ Description: 'landing zone EBS key' }))).KeyMetadata!.Arn!;
    kms.destroy();
    return key;
  }

  beforeAll(async () => {
    moto = await freshMoto(REGION);
    work = mkdtempSync(join(tmpdir(), 'volbench-company-'));
    const s3 = new S3Client({ ...config(), forcePathStyle: true });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    s3.destroy();
    writeFileSync(join(work, 'volbench-0.0.0-linux-x64.tar.gz'), 'a stand-in for the bundle');
  }, 60_000);

  afterAll(async () => {
    for (const s of servers) await s.close();
    servers = [];
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('fleet plan --check-account: the four-volume study with a customer-managed default key, a required tag and a 4-vCPU quota is refused with the numbers', async () => {
    const key = await customerKey();
    const ec2 = new EC2Client(config());
    await ec2.send(new ModifyEbsDefaultKmsKeyIdCommand({ KmsKeyId: key }));
    ec2.destroy();
    const sq = await quotas({ [VCPUS]: { applied: 4, default: 5 }, [IO2]: { default: 100_000 } });
    const out = await volbench(['fleet', 'plan', '--volumes', STUDY, '--instance', 'm6i.large', '--region', REGION, '--tag', 'CostCenter=cc-42',
      '--check-account', '--state-dir', join(work, 'state')], undefined, envWith(sq));
    console.log(`fleet plan --check-account, exit ${out.code}:\n${out.stdout}${out.stderr}`);
    expect(out.code).toBe(2);
    expect(out.stdout).toContain('tags: CostCenter=cc-42 on every stack');
    expect(out.stdout).toContain(`the account's default EBS key ${key} is customer-managed: the members' stacks act with volbench-study-roles's StackRole, ` +
      'which needs kms:CreateGrant, kms:GenerateDataKeyWithoutPlaintext, kms:Decrypt, kms:DescribeKey on it');
    expect(out.stdout).toMatch(/the account 123456789012 in us-east-1, read now:/);
    expect(out.stdout).toContain('IOPS for Provisioned IOPS SSD (io2) volumes (L-8D977E7E): the plan needs 16,000 (io2-500g-16000iops); quota 100,000, 0 in use, 100,000 left');
    expect(out.stderr).toContain('the plan needs 8 On-Demand Standard (A, C, D, H, I, M, R, T, Z) vCPUs (4 × m6i.large, 2 each), and quota L-1216C47A leaves 4 ' +
      '(quota 4, 0 in use, 4 left): ask for 8 or more in Service Quotas, or plan less; nothing was created [--instance]');
    expect(out.stderr).toContain('at most 2 × m6i.large in an empty account');
    // Asked as the SDK asks, signed for Service Quotas; the applied value answered, so no default was asked for the vCPUs.
    expect(sq.requests.map((r) => `${r.operation} ${r.body.QuotaCode}`)).toEqual(['GetServiceQuota L-1216C47A', 'GetServiceQuota L-8D977E7E', 'GetAWSDefaultServiceQuota L-8D977E7E']);
    expect(sq.requests.every((r) => r.signedFor === 'servicequotas')).toBe(true);
  }, 60_000);

  it('counts the vCPUs the account runs already', async () => {
    const ec2 = new EC2Client(config());
    const image = (await ec2.send(new DescribeImagesCommand({}))).Images!.find((i) => i.Architecture === 'x86_64')!.ImageId!;
    const run = await ec2.send(new RunInstancesCommand({ ImageId: image, InstanceType: 'm5.xlarge', MinCount: 1, MaxCount: 1 }));
    const sq = await quotas({ [VCPUS]: { applied: 12, default: 5 } });
    try {
      const fits = await read(planOf('gp3:100g,gp3:200g'), sq);
      expect(fits.refusals).toEqual([]);
      expect(fits.lines).toContain('On-Demand Standard (A, C, D, H, I, M, R, T, Z) vCPUs (L-1216C47A): the plan needs 4 (2 × m6i.large, 2 each); quota 12, 4 in use, 8 left');
      const over = await read(planOf('gp3:100g,gp3:200g,gp3:300g,gp3:400g,gp3:500g'), sq);
      expect(over.refusals.map((r) => r.message)).toEqual([expect.stringContaining('the plan needs 10 On-Demand Standard (A, C, D, H, I, M, R, T, Z) vCPUs (5 × m6i.large, 2 each), and quota L-1216C47A leaves 8 (quota 12, 4 in use, 8 left): ask for 14')]);
    } finally {
      await ec2.send(new TerminateInstancesCommand({ InstanceIds: [run.Instances![0].InstanceId!] }));
      ec2.destroy();
    }
  }, 60_000);

  it('refuses io2 IOPS over their quota, and a denied quota read is a warning', async () => {
    const low = await read(planOf('io2:500g:iops=16000'), await quotas({ [VCPUS]: { applied: 100, default: 5 }, [IO2]: { applied: 10_000, default: 100_000 } }));
    expect(low.refusals).toEqual([expect.objectContaining({ field: '--volumes', message: expect.stringContaining('the plan needs 16,000 IOPS for Provisioned IOPS SSD (io2) volumes (io2-500g-16000iops), and quota L-8D977E7E leaves 10,000') })]);
    const denied = await read(planOf('io2:500g:iops=16000'), await quotas({}, true));
    expect(denied.refusals).toEqual([]);
    expect(denied.warnings).toEqual([
      expect.stringMatching(/^servicequotas:GetServiceQuota was refused \(User: .* is not authorized to perform: servicequotas:GetServiceQuota .*\): the plan's 2 On-Demand Standard .* are not checked against quota L-1216C47A$/),
      expect.stringMatching(/^servicequotas:GetServiceQuota was refused .*: the plan's 16,000 io2 IOPS are not checked against quota L-8D977E7E$/),
    ]);
  }, 60_000);

  it('--ebs-kms-key: a customer key named with its grants, a disabled one and a missing one refused; AWS\'s own default key needs nothing', async () => {
    const sq = await quotas({ [VCPUS]: { applied: 100, default: 5 } });
    const key = await customerKey();
    const ok = await read(planOf('gp3:100g', { ebsKmsKeyArn: key }), sq);
    expect(ok.lines[0]).toBe(`the volumes' key (--ebs-kms-key) ${key} is customer-managed: the members' stacks act with volbench-study-roles's StackRole, which needs ` +
      'kms:CreateGrant, kms:GenerateDataKeyWithoutPlaintext, kms:Decrypt, kms:DescribeKey on it (its EbsKey statement asks for them through EC2; the key\'s policy must allow that role, or allow the account and so IAM)');
    const kms = new KMSClient(config());
    // By its id: moto takes no ARN here, where AWS takes either.
    const keyId = key.split('/').pop()!;
    await kms.send(new DisableKeyCommand({ KeyId: keyId }));
    const disabled = await read(planOf('gp3:100g', { ebsKmsKeyArn: key }), sq);
    expect(disabled.refusals).toEqual([{ message: `the volumes' key (--ebs-kms-key) ${key} is Disabled: EC2 cannot encrypt the members' volumes with it`, field: '--ebs-kms-key', accepted: 'an enabled symmetric KMS key' }]);
    await kms.send(new EnableKeyCommand({ KeyId: keyId }));
    kms.destroy();
    const missing = key.replace(/key\/.*/, 'key/00000000-0000-0000-0000-000000000000');
    expect((await read(planOf('gp3:100g', { ebsKmsKeyArn: missing }), sq)).refusals[0].message).toBe(`the volumes' key (--ebs-kms-key) ${missing} does not exist in this region`);
    await freshMoto(REGION);
    const fresh = await read(planOf('gp3:100g'), sq);
    expect(fresh.lines[0]).toBe('the account\'s default EBS key: aws/ebs, AWS managed: nothing to grant');
    const s3 = new S3Client({ ...config(), forcePathStyle: true });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    s3.destroy();
  }, 60_000);

  /** The default VPC's own route table and a subnet of it. */
  async function defaultVpc(): Promise<{ vpc: string; table: string; subnet: string }> {
    const ec2 = new EC2Client(config());
    try {
      const vpc = (await ec2.send(new DescribeVpcsCommand({ Filters: [{ Name: 'is-default', Values: ['true'] }] }))).Vpcs![0].VpcId!;
      const table = (await ec2.send(new DescribeRouteTablesCommand({ Filters: [{ Name: 'vpc-id', Values: [vpc] }, { Name: 'association.main', Values: ['true'] }] }))).RouteTables![0].RouteTableId!;
      const subnet = (await ec2.send(new DescribeSubnetsCommand({ Filters: [{ Name: 'vpc-id', Values: [vpc] }] }))).Subnets![0].SubnetId!;
      return { vpc, table, subnet };
    } finally {
      ec2.destroy();
    }
  }

  it('--no-public-ip: an internet gateway takes a member nowhere, so a default subnet needs the endpoints of a private one', async () => {
    await awsDefaultVpc(moto, REGION);
    const saved = { ...process.env };
    Object.assign(process.env, moto.env);
    const clients = fleetClients({ region: REGION });
    try {
      const withIp = await preflight({ clients, region: REGION, instanceType: 'm6i.large', bucket: BUCKET });
      expect(withIp).toMatchObject({ publicAddress: true, routeOut: true });
      const err = await preflight({ clients, region: REGION, instanceType: 'm6i.large', bucket: BUCKET, noPublicIp: true }).then(() => undefined, (e: VolbenchError) => e);
      expect(err?.code).toBe('EPREFLIGHT');
      expect(err?.message).toMatch(/has no route out .* lacks what interactive members call: com\.amazonaws\.us-east-1\.s3 .*cloudformation.*ssm/);
    } finally {
      clients.destroy();
      process.env = saved;
    }
  }, 60_000);

  it('fleet up --tag CostCenter=cc-42 --no-public-ip: stacks tagged, and launch templates that tag at creation and ask for no public address', async () => {
    const sq = await quotas({ [VCPUS]: { applied: 100, default: 5 } });
    // The endpoints a member without a public address calls (the test before: none, refused).
    const { vpc, table, subnet } = await defaultVpc();
    const ec2e = new EC2Client(config());
    await ec2e.send(new CreateVpcEndpointCommand({ VpcId: vpc, ServiceName: `com.amazonaws.${REGION}.s3`, VpcEndpointType: 'Gateway', RouteTableIds: [table] }));
    for (const service of ['cloudformation', 'ssm']) {
      await ec2e.send(new CreateVpcEndpointCommand({ VpcId: vpc, ServiceName: `com.amazonaws.${REGION}.${service}`, VpcEndpointType: 'Interface', SubnetIds: [subnet], PrivateDnsEnabled: true }));
    }
    ec2e.destroy();
    const out = await volbench(['fleet', 'up', '--volumes', 'gp3:1g,io2:4g:iops=400', '--instance', 'm6i.large', '--region', REGION, '--bucket', BUCKET,
      '--allowed-cidr', '10.0.0.1/32', '--package', join(work, 'volbench-0.0.0-linux-x64.tar.gz'), '--tag', 'CostCenter=cc-42', '--tag', 'Owner=storage',
      '--no-public-ip', '--state-dir', join(work, 'state')], undefined, envWith(sq));
    expect(out.code, out.stderr).toBe(0);
    const fleetId = out.stdout.trim().split('\n').pop()!;
    expect(fleetId).toMatch(/^vb[0-9a-f]{10}$/);
    expect(out.stderr).toContain('no public address (--no-public-ip): interactive members (up, compare --interactive) answer inside the VPC only: give --endpoint-map');
    expect(out.stderr).toContain('com.amazonaws.us-east-1.ssmmessages and com.amazonaws.us-east-1.ec2messages');
    // The subnet now reaches S3, CloudFormation and SSM through its endpoints; a port forward would still need Session Manager's.
    expect(out.stderr).toMatch(/has no route out: its members answer inside the VPC only .*ssmmessages .*ec2messages/);
    const cfn = new CloudFormationClient(config());
    const ec2 = new EC2Client(config());
    try {
      for (const label of ['gp3-1g', 'io2-4g-400iops']) {
        const stack = (await cfn.send(new DescribeStacksCommand({ StackName: `volbench-${fleetId}-${label}` }))).Stacks![0];
        expect(stack.StackStatus).toBe('CREATE_COMPLETE');
        expect(stack.Tags).toEqual(expect.arrayContaining([{ Key: 'CostCenter', Value: 'cc-42' }, { Key: 'Owner', Value: 'storage' }, { Key: 'volbench:fleet', Value: fleetId }]));
        const params = Object.fromEntries(stack.Parameters!.map((p) => [p.ParameterKey, p.ParameterValue]));
        expect(params).toMatchObject({ NoPublicAddress: 'true', PublicAddress: 'false' });
        expect(stack.Outputs!.find((o) => o.OutputKey === 'PublicEndpoint')).toBeUndefined();
        const lt = (await ec2.send(new DescribeLaunchTemplatesCommand({ Filters: [{ Name: 'tag:volbench:fleet', Values: [fleetId] }, { Name: 'tag:volbench:volume', Values: [label] }] }))).LaunchTemplates!;
        expect(lt).toHaveLength(1);
        expect(lt[0].Tags).toEqual(expect.arrayContaining([{ Key: 'CostCenter', Value: 'cc-42' }]));
        const data = (await ec2.send(new DescribeLaunchTemplateVersionsCommand({ LaunchTemplateId: lt[0].LaunchTemplateId, Versions: ['$Latest'] }))).LaunchTemplateVersions![0].LaunchTemplateData!;
        expect(data.NetworkInterfaces).toEqual([expect.objectContaining({ DeviceIndex: 0, AssociatePublicIpAddress: false, SubnetId: params.SubnetId })]);
        expect(data.TagSpecifications!.find((t) => t.ResourceType === 'volume')!.Tags).toEqual(expect.arrayContaining([{ Key: 'CostCenter', Value: 'cc-42' }, { Key: 'Owner', Value: 'storage' }]));
      }
    } finally {
      cfn.destroy();
      ec2.destroy();
    }
    const down = await volbench(['fleet', 'down', fleetId, '--region', REGION, '--state-dir', join(work, 'state')], undefined, envWith(sq));
    expect(down.code, down.stderr).toBe(0);
  }, 180_000);

  it('fleet plan refuses m4.large and t2.micro, naming why, --tag aws:x=1, naming the key, and an interactive compare without public addresses or a map: exit 2', async () => {
    const offline = ['--region', REGION, '--state-dir', join(work, 'state')];
    const m4 = await volbench(['fleet', 'plan', '--volumes', 'gp3:100g', '--instance', 'm4.large', ...offline]);
    expect(m4.code).toBe(2);
    expect(m4.stderr).toMatch(/--instance m4\.large: the instance catalog says hypervisor xen \(its EBS volumes are \/dev\/xvd\* devices.*m5\.large is the nearest type built on Nitro of the same size/);
    const t2 = await volbench(['fleet', 'plan', '--volumes', 'gp3:100g', '--instance', 't2.micro', ...offline]);
    expect(t2.code).toBe(2);
    expect(t2.stderr).toContain('ebs_optimized_support unsupported (it cannot be launched EBS-optimized, as every member is); t3.micro is the nearest');
    const tag = await volbench(['fleet', 'up', '--volumes', 'gp3:100g', '--bucket', BUCKET, '--tag', 'aws:x=1', ...offline]);
    expect(tag.code).toBe(2);
    expect(tag.stderr).toContain("tag key 'aws:x' cannot be given (AWS reserves aws: keys)");
    // Members without a public address are reached inside the VPC only: interactive, through a map.
    const noIp = await volbench(['fleet', 'compare', '--interactive', '--no-public-ip', '--volumes', 'gp3:100g', '--bucket', BUCKET, '--out', join(work, 'out'), ...offline]);
    expect(noIp.code).toBe(2);
    expect(noIp.stderr).toContain('members without a public address are reached inside the VPC only: give --endpoint-map');
    expect(noIp.stderr).toContain('[--endpoint-map]');
  }, 60_000);
});
