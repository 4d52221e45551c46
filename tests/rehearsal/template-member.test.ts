/**
 * instance.yaml's own user data, as moto renders it from a stack's parameters, boots a member in
 * the sandbox: the expiry watch started, the member's token and the fleet's TLS key from SSM,
 * the certificate and the sha256-checked bundle from S3, the device found by the serial of the
 * volume at /dev/sdf, `volbench serve` over HTTPS with the plan's limits, SUCCESS signalled with
 * the instance id; the fleet's certificate (made here, in DER) is what the pinned client meets.
 * A bundle whose SHA-256 is not the stack's signals FAILURE naming the step, at once.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { CloudFormationClient, CreateStackCommand } from '@aws-sdk/client-cloudformation';
import { AttachVolumeCommand, CreateVolumeCommand, EC2Client } from '@aws-sdk/client-ec2';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { BlkioGroup } from '../harness/blkio.js';
import { createLoopVolume, rehearsalDir, sweepStale, type LoopVolume } from '../harness/loop-volume.js';
import { startMember, type Member } from '../harness/sandbox/member-sandbox.js';
import { SignalStandIn } from '../harness/sandbox/signal-standin.js';
import { memberOfStack } from '../harness/sandbox/stack-member.js';
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

  async function member(label: string, sha: string): Promise<{ member: Member; stack: string; instanceId: string }> {
    const stack = `volbench-${FLEET}-${label}`;
    const cfn = new CloudFormationClient(sdk);
    const ec2 = new EC2Client(sdk);
    const params: Record<string, string> = {
      FleetId: FLEET, VolumeLabel: label, AllowedCidr: '10.0.0.0/8', VolumeType: 'gp3', VolumeSize: '8', ExpiresAt: new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z'),
      TokenParameterName: `/volbench/${FLEET}/${label}/token`, TlsKeyParameterName: `/volbench/${FLEET}/tls-key`, TlsCertKey: `${FLEET}/tls.crt`,
      ResultsBucket: BUCKET, PackageBucket: BUCKET, PackageKey: `${FLEET}/bundle/volbench-0.0.0-linux-x64.tar.gz`,
      PackageSha256: sha, MaxRuntimeSeconds: '1800', PublicAddress: 'false',
    };
    await cfn.send(new CreateStackCommand({
      StackName: stack, Capabilities: ['CAPABILITY_IAM'], TemplateBody: readFileSync(join(ROOT, 'infra', 'cloudformation', 'instance.yaml'), 'utf8'),
      Parameters: Object.entries(params).map(([ParameterKey, ParameterValue]) => ({ ParameterKey, ParameterValue })),
    }));
    const m = await memberOfStack({ aws: sdk, stackName: stack });
    // What AWS makes from the launch template's mapping and moto does not: the data volume at /dev/sdf.
    const vol = await ec2.send(new CreateVolumeCommand({ AvailabilityZone: m.identity.availabilityZone, Size: 8, VolumeType: 'gp3' }));
    await ec2.send(new AttachVolumeCommand({ InstanceId: m.instanceId, VolumeId: vol.VolumeId!, Device: '/dev/sdf' }));
    await new SSMClient(sdk).send(new PutParameterCommand({ Name: params.TokenParameterName, Type: 'SecureString', Value: `token-of-${label}` }));
    cfn.destroy();
    ec2.destroy();
    const started = await startMember({
      id: label, dir, userData: m.userData, identity: m.identity, aws, group,
      devices: [{ name: 'nvme1n1', path: volume.device, serial: vol.VolumeId!.replace('-', '') }],
      binds: [{ from: ROOT, to: '/opt/volbench-src' }, { from: dirname(dirname(process.execPath)), to: '/opt/node' }],
    });
    members.push(started);
    return { member: started, stack, instanceId: m.instanceId };
  }

  beforeAll(async () => {
    sweepStale();
    moto = await freshMoto(REGION);
    aws = new SignalStandIn({ moto: moto.endpoint });
    const local = await aws.listen('127.0.0.1');
    sdk = { region: REGION, endpoint: local.url, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } };
    dir = rehearsalDir();
    volume = createLoopVolume({ dir, sizeBytes: 8 * GiB, tmpfsBytes: 256 * 1024 * 1024 });
    group = BlkioGroup.create('template-member');
    const s3 = new S3Client({ ...sdk, forcePathStyle: true });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${FLEET}/tls.crt`, Body: cert.cert }));
    const body = bundle();
    bundleSha = createHash('sha256').update(body).digest('hex');
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${FLEET}/bundle/volbench-0.0.0-linux-x64.tar.gz`, Body: body }));
    s3.destroy();
    await new SSMClient(sdk).send(new PutParameterCommand({ Name: `/volbench/${FLEET}/tls-key`, Type: 'SecureString', Value: cert.key }));
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
    const signal = await aws.waitForSignal(stack, 'Ready', 90_000);
    expect(signal, m.readFile('/var/log/volbench-setup.log')).toMatchObject({ status: 'SUCCESS', uniqueId: instanceId });
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
    const signal = await aws.waitForSignal(stack, 'Ready', 60_000);
    expect(signal?.status).toBe('FAILURE');
    // The step and the log's last line, in SignalResource's 64 characters of [A-Za-z0-9._-].
    expect(signal?.uniqueId).toMatch(/^bundle__sha256sum_.*did_NOT_match$/);
    expect((Date.now() - started) / 1000).toBeLessThan(60);
    expect(m.readFile('/var/log/volbench-setup.log')).toMatch(/FAILED|did NOT match/);
    expect(m.records().systemctl.join('\n')).not.toContain('volbench.service');
  }, 120_000);
});
