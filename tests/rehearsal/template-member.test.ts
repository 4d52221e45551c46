/**
 * instance.yaml's own user data, as moto renders it from a stack's parameters, boots a member in
 * the sandbox. Interactive: the expiry watch started, the member's token and its own TLS key from
 * SSM, its certificate and the sha256-checked bundle from S3, the device found with no EC2 call
 * (the one EBS device nothing is mounted from), `volbench serve` over HTTPS with the plan's
 * limits, SUCCESS signalled with the instance id; the certificate (made here, in DER) is what
 * the pinned client meets. Autonomous: no secret read, the member agent runs the study's spec on
 * the device, writes its objects under its own prefix and shuts the instance down. A bundle whose
 * SHA-256 is not the stack's signals FAILURE naming the step, at once; a boot that fails in its
 * first second fails its stack at once too (the creation policy is on the instance).
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { CloudFormationClient, CreateStackCommand, DescribeStacksCommand, SignalResourceCommand } from '@aws-sdk/client-cloudformation';
import { AttachVolumeCommand, CreateVolumeCommand, EC2Client } from '@aws-sdk/client-ec2';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { BlkioGroup } from '../harness/blkio.js';
import { createLoopVolume, rehearsalDir, sweepStale, type LoopVolume } from '../harness/loop-volume.js';
import { startMember, type Member } from '../harness/sandbox/member-sandbox.js';
import { SignalStandIn } from '../harness/sandbox/signal-standin.js';
import { memberOfStack } from '../harness/sandbox/stack-member.js';
import { memberDoneSchema, memberProgressSchema, type StudySpec } from '../../src/api/study-objects.js';
import { fleetCertificate } from '../../src/fleet/certificate.js';
import { PinnedTls } from '../../src/fleet/pinned-fetch.js';
import { ROOT } from '../helpers/cli.js';
import { freshMoto, type Moto } from '../helpers/moto.js';
import { requires } from '../helpers/requires.js';

const needs = requires('loop', 'blkio', 'netns', 'moto', 'awscli', 'dist');

const REGION = 'us-east-1';
const BUCKET = 'volbench-template-member';
const FLEET = 'vb0000000042';
const GiB = 1024 ** 3;

const skip = needs.missing();

describe.skipIf(skip)('instance.yaml\'s user data in the member sandbox', () => {
  let moto: Moto;
  let aws: SignalStandIn;
  let dir: string;
  let volume: LoopVolume;
  let group: BlkioGroup;
  let sdk: { region: string; endpoint: string; credentials: { accessKeyId: string; secretAccessKey: string } };
  const cert = fleetCertificate({ commonName: `volbench ${FLEET}`, notAfter: new Date(Date.now() + 86_400_000) });
  const members: Member[] = [];
  let bundleSha = '';

  /** The bundle's shape (volbench-V-linux-A/bin/volbench) around a launcher for this checkout's dist and Node. */
  function bundle(): Buffer {
    const tree = join(dir, 'bundle', 'volbench-0.0.0-linux-x64');
    mkdirSync(join(tree, 'bin'), { recursive: true });
    writeFileSync(join(tree, 'bin', 'volbench'), '#!/bin/sh\nexec /opt/node/bin/node /opt/volbench-src/dist/cli/main.js "$@"\n', { mode: 0o755 });
    execFileSync('tar', ['-czf', join(dir, 'bundle.tar.gz'), '-C', join(dir, 'bundle'), 'volbench-0.0.0-linux-x64']);
    return readFileSync(join(dir, 'bundle.tar.gz'));
  }

  async function member(label: string, sha: string, extra: Record<string, string> = {}): Promise<{ member: Member; stack: string; instanceId: string; volumeId: string }> {
    const stack = `volbench-${FLEET}-${label}`;
    const cfn = new CloudFormationClient(sdk);
    const ec2 = new EC2Client(sdk);
    const params: Record<string, string> = {
      FleetId: FLEET, VolumeLabel: label, AllowedCidr: '10.0.0.0/8', VolumeType: 'gp3', VolumeSize: '8', ExpiresAt: new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z'),
      TokenParameterName: `/volbench/${FLEET}/${label}/token`, TlsKeyParameterName: `/volbench/${FLEET}/${label}/tls-key`, TlsCertKey: `${FLEET}/tls/${label}.crt`,
      ResultsBucket: BUCKET, PackageBucket: BUCKET, PackageKey: `${FLEET}/bundle/volbench-0.0.0-linux-x64.tar.gz`,
      PackageSha256: sha, MaxRuntimeSeconds: '1800', PublicAddress: 'false', ...extra,
    };
    await cfn.send(new CreateStackCommand({
      StackName: stack, Capabilities: ['CAPABILITY_IAM'], TemplateBody: readFileSync(join(ROOT, 'infra', 'cloudformation', 'instance.yaml'), 'utf8'),
      Parameters: Object.entries(params).map(([ParameterKey, ParameterValue]) => ({ ParameterKey, ParameterValue })),
    }));
    const m = await memberOfStack({ aws: sdk, stackName: stack });
    // What AWS makes from the launch template's mapping and moto does not: the data volume at /dev/sdf.
    const vol = await ec2.send(new CreateVolumeCommand({ AvailabilityZone: m.identity.availabilityZone, Size: 8, VolumeType: 'gp3' }));
    await ec2.send(new AttachVolumeCommand({ InstanceId: m.instanceId, VolumeId: vol.VolumeId!, Device: '/dev/sdf' }));
    const ssm = new SSMClient(sdk);
    await ssm.send(new PutParameterCommand({ Name: params.TokenParameterName, Type: 'SecureString', Value: `token-of-${label}` }));
    await ssm.send(new PutParameterCommand({ Name: params.TlsKeyParameterName, Type: 'SecureString', Value: cert.key }));
    ssm.destroy();
    const s3 = new S3Client({ ...sdk, forcePathStyle: true });
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: params.TlsCertKey, Body: cert.cert }));
    s3.destroy();
    cfn.destroy();
    ec2.destroy();
    const started = await startMember({
      id: label, dir, userData: m.userData, identity: m.identity, aws, group,
      devices: [{ name: 'nvme1n1', path: volume.device, serial: vol.VolumeId!.replace('-', '') }],
      binds: [{ from: ROOT, to: '/opt/volbench-src' }, { from: dirname(dirname(process.execPath)), to: '/opt/node' }],
    });
    members.push(started);
    return { member: started, stack, instanceId: m.instanceId, volumeId: vol.VolumeId! };
  }

  /** The stack as the fleet sees it through the stand-in: held while its creation policy waits. */
  async function stackStatus(stack: string): Promise<{ status?: string; reason?: string }> {
    const cfn = new CloudFormationClient(sdk);
    try {
      const s = (await cfn.send(new DescribeStacksCommand({ StackName: stack }))).Stacks?.[0];
      return { status: s?.StackStatus, reason: s?.StackStatusReason };
    } finally {
      cfn.destroy();
    }
  }

  beforeAll(async () => {
    sweepStale();
    moto = await freshMoto(REGION);
    aws = new SignalStandIn({ moto: moto.endpoint, holdCreation: /^volbench-/ });
    const local = await aws.listen('127.0.0.1');
    sdk = { region: REGION, endpoint: local.url, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } };
    dir = rehearsalDir();
    volume = createLoopVolume({ dir, sizeBytes: 8 * GiB, tmpfsBytes: 256 * 1024 * 1024 });
    group = BlkioGroup.create('template-member');
    const s3 = new S3Client({ ...sdk, forcePathStyle: true });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    const body = bundle();
    bundleSha = createHash('sha256').update(body).digest('hex');
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${FLEET}/bundle/volbench-0.0.0-linux-x64.tar.gz`, Body: body }));
    s3.destroy();
  }, 120_000);

  afterAll(async () => {
    for (const m of members) await m.stop();
    await aws?.close();
    group?.remove();
    volume?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('boots with S3, SSM, EC2 and CloudFormation only, signals SUCCESS, and serves HTTPS with the fleet\'s certificate', async () => {
    const { member: m, stack, instanceId } = await member('gp3-8g', bundleSha);
    const signal = await aws.waitForSignal(stack, 'Instance', 90_000);
    expect(signal, m.readFile('/var/log/volbench-setup.log')).toMatchObject({ status: 'SUCCESS', uniqueId: instanceId });
    expect(await stackStatus(stack)).toMatchObject({ status: 'CREATE_COMPLETE' });
    const records = m.records();
    expect(records.dnf ?? []).toEqual([]);
    expect(records.systemctl.join('\n')).toMatch(/enable --now volbench-expiry.service[\s\S]*enable --now volbench.service/);
    const unit = m.readFile('/etc/systemd/system/volbench.service');
    expect(unit).toContain('--target-root /dev/nvme1n1 --allow-block-write /dev/nvme1n1 --max-size 0 --max-runtime 1800');
    expect(m.readFile('/etc/volbench/token')).toBe('token-of-gp3-8g\n');
    const client = new PinnedTls(cert.fingerprint);
    try {
      expect((await client.fetch(`https://${m.address}:8443/v1/healthz`)).status).toBe(200);
      const targets = await client.fetch(`https://${m.address}:8443/v1/targets`, { headers: { authorization: 'Bearer token-of-gp3-8g' } });
      expect(targets.status).toBe(200);
      expect(await targets.text()).toContain('/dev/nvme1n1');
    } finally {
      client.close();
    }
  }, 150_000);

  it('a bundle that is not the stack\'s signals FAILURE at the bundle step, with the log\'s reason', async () => {
    const started = Date.now();
    const { member: m, stack } = await member('gp3-bad', 'f'.repeat(64));
    const signal = await aws.waitForSignal(stack, 'Instance', 60_000);
    expect(signal?.status).toBe('FAILURE');
    // The step and the log's last line, in SignalResource's 64 characters of [A-Za-z0-9._-].
    expect(signal?.uniqueId).toMatch(/^bundle__sha256sum_.*did_NOT_match$/);
    expect((Date.now() - started) / 1000).toBeLessThan(60);
    expect(m.readFile('/var/log/volbench-setup.log')).toMatch(/FAILED|did NOT match/);
    expect(m.records().systemctl.join('\n')).not.toContain('volbench.service');
  }, 120_000);

  // Broke: the creation policy was on a wait condition that began only once CloudFormation saw the
  // instance complete; a boot that failed in its first seconds signalled a resource that had not
  // begun, the FAILURE was refused, and the stack waited 30 minutes. Expected: the FAILURE reaches
  // the instance's creation policy, and the stack fails at once with the step and the log's line.
  it('a boot that fails in its first second fails its stack at once, with the step and the reason', async () => {
    const started = Date.now();
    const { member: m, stack } = await member('gp3-early', bundleSha, { ExpiresAt: '2001-01-01T00:00:00Z' });
    const signal = await aws.waitForSignal(stack, 'Instance', 30_000);
    expect(signal, m.readFile('/var/log/volbench-setup.log')).toMatchObject({ resource: 'Instance', status: 'FAILURE' });
    expect(signal!.uniqueId).toMatch(/^expiry__expired_at_2001-01-01T00_00_00Z$/);
    const seen = await stackStatus(stack);
    expect(seen.status).toBe('CREATE_FAILED');
    expect(seen.reason).toMatch(/^Instance: Received FAILURE signal with UniqueId expiry__expired_at/);
    expect((Date.now() - started) / 1000).toBeLessThan(30);
    // CloudFormation takes signals for the resource that waits for them only.
    const cfn = new CloudFormationClient(sdk);
    await expect(cfn.send(new SignalResourceCommand({ StackName: stack, LogicalResourceId: 'Ready', UniqueId: 'late', Status: 'SUCCESS' }))).rejects.toThrow(/not waiting for a signal/);
    cfn.destroy();
  }, 60_000);

  it('an autonomous member reads no secret, runs the study\'s spec on its device, writes under its own prefix and shuts itself down', async () => {
    const label = 'gp3-auto';
    const spec: StudySpec = {
      schema_version: 1, fleet_id: FLEET, region: REGION, instance_type: 'm6i.large', created_at: new Date().toISOString(),
      members: [{ label, volume: 'gp3:8g', job: '[global]\nioengine=libaio\ndirect=1\nbs=16k\niodepth=4\nsize=64m\ntime_based\nruntime=2s\n[rr]\nrw=randread\n' }],
    };
    const body = `${JSON.stringify(spec)}\n`;
    const s3 = new S3Client({ ...sdk, forcePathStyle: true });
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${FLEET}/study/spec.json`, Body: body }));
    const specSha = createHash('sha256').update(body).digest('hex');
    const { member: m, stack, instanceId, volumeId } = await member(label, bundleSha, { MemberMode: 'autonomous', StudySpecSha256: specSha });
    const signal = await aws.waitForSignal(stack, 'Instance', 90_000);
    expect(signal, m.readFile('/var/log/volbench-setup.log')).toMatchObject({ status: 'SUCCESS', uniqueId: instanceId });
    const end = await Promise.race([m.ended, new Promise<undefined>((r) => setTimeout(() => r(undefined), 90_000))]);
    expect(end?.shutdown, 'the member shut itself down').toBe(true);

    const records = m.records();
    expect(records.systemctl.join('\n')).toMatch(/enable --now volbench-member.service/);
    expect(records.systemctl.join('\n')).not.toMatch(/volbench\.service/);
    expect(records.shutdown.join('\n')).toMatch(/shutdown -h now/);
    const read = async (name: string) => (await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${FLEET}/${label}/${name}` }))).Body!.transformToString();
    const listed = ((await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `${FLEET}/` }))).Contents ?? []).map((o) => o.Key!);
    expect(listed.filter((k) => k.startsWith(`${FLEET}/${label}/`)).sort()).toEqual(['done.json', 'member.log', 'progress.json', 'result.json'].map((n) => `${FLEET}/${label}/${n}`));
    expect(memberDoneSchema.parse(JSON.parse(await read('done.json')))).toMatchObject({ status: 'ok', exit_code: 0 });
    expect(memberProgressSchema.parse(JSON.parse(await read('progress.json')))).toMatchObject({ step: 'done', percent: 100 });
    const result = JSON.parse(await read('result.json'));
    // Measured on the device the user data found, and named by its serial.
    expect(result.volbench.cloud.volume).toMatchObject({ id: volumeId, type: 'gp3', size_gib: 8 });
    expect(result.jobs[0].read.io_bytes).toBeGreaterThan(0);
    expect(await read('member.log')).toMatch(/device \/dev\/nvme1n1[\s\S]*signalled SUCCESS to stack volbench-vb0000000042-gp3-auto[\s\S]*done: ok/);
    s3.destroy();
  }, 240_000);
});
