/**
 * A fleet member played on this host: its user data runs unchanged as root in the sandbox, boots
 * from moto's S3 and SSM only (IMDSv2 for its identity and credentials, the AWS CLI, the nvme
 * stand-in finding its volume by serial), starts `volbench serve` over TLS through the systemd
 * stand-in and signals CloudFormation through the SignalResource stand-in. The service answers
 * the host's pinned client and runs I/O on the member's /dev/nvme1n1, a throttled loop device.
 * Its root and its network are its own: nothing else is reachable, nothing it writes reaches the
 * host, and shutdown ends the member alone. A failed step signals FAILURE with its reason.
 * The volume publishes its EBS statistics page, which the member's service reads through the
 * test seam (bound read-only into it): its result carries the page's deltas and the scale.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';

import { CloudFormationClient, CreateStackCommand, SignalResourceCommand } from '@aws-sdk/client-cloudformation';
import { AttachVolumeCommand, CreateVolumeCommand, DescribeImagesCommand, EC2Client, RunInstancesCommand } from '@aws-sdk/client-ec2';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { BlkioGroup } from '../harness/blkio.js';
import { createLoopVolume, rehearsalDir, sweepStale, type LoopVolume } from '../harness/loop-volume.js';
import { DEFAULT_AWSCLI_VENV, MEMBER_NVME_DIR, startMember, type Member } from '../harness/sandbox/member-sandbox.js';
import { VolumeThrottle } from '../harness/volume-throttle.js';
import { SignalStandIn } from '../harness/sandbox/signal-standin.js';
import { memberOfStack } from '../harness/sandbox/stack-member.js';
import { PinnedTls } from '../../src/fleet/pinned-fetch.js';
import { ROOT } from '../helpers/cli.js';
import { freshMoto, type Moto } from '../helpers/moto.js';
import { requires } from '../helpers/requires.js';

const needs = requires('loop', 'blkio', 'netns', 'moto', 'awscli', 'openssl', 'dist');

const REGION = 'us-east-1';
const TOKEN = 'member-sandbox-token-0123456789';
const GiB = 1024 ** 3;

const skip = needs.missing();

interface Fleet {
  moto: Moto;
  aws: SignalStandIn;
  dir: string;
  volume: LoopVolume;
  group: BlkioGroup;
  throttle: VolumeThrottle;
  /** Where the volume publishes its statistics page (the good member's seam). */
  pages: string;
  fingerprint: string;
  sdk: { region: string; endpoint: string; credentials: { accessKeyId: string; secretAccessKey: string } };
  clients: { ec2: EC2Client; ssm: SSMClient; s3: S3Client; cfn: CloudFormationClient };
}

/** A stack in moto for a member to signal (moto needs one resource; the signal stand-in checks the stack exists). */
async function createStack(f: Fleet, name: string): Promise<void> {
  await f.clients.cfn.send(new CreateStackCommand({
    StackName: name,
    TemplateBody: JSON.stringify({ Resources: { Marker: { Type: 'AWS::SSM::Parameter', Properties: { Name: `/volbench/${name}/marker`, Type: 'String', Value: 'x' } } } }),
  }));
}

/** An instance with the volume attached, in moto: what the stack would have made. */
async function launch(f: Fleet): Promise<{ instanceId: string; az: string; volumeId: string }> {
  const images = await f.clients.ec2.send(new DescribeImagesCommand({}));
  const run = await f.clients.ec2.send(new RunInstancesCommand({ ImageId: images.Images![0].ImageId, InstanceType: 'm6i.large', MinCount: 1, MaxCount: 1 }));
  const instance = run.Instances![0];
  const az = instance.Placement!.AvailabilityZone!;
  const vol = await f.clients.ec2.send(new CreateVolumeCommand({ AvailabilityZone: az, Size: 8, VolumeType: 'gp3' }));
  await f.clients.ec2.send(new AttachVolumeCommand({ InstanceId: instance.InstanceId!, VolumeId: vol.VolumeId!, Device: '/dev/sdf' }));
  return { instanceId: instance.InstanceId!, az, volumeId: vol.VolumeId! };
}

function renderUserData(stack: string): string {
  const values: Record<string, string> = {
    REGION, STACK: stack, BUCKET: 'volbench-results', PREFIX: 'fleet/', TOKEN_PARAMETER: '/volbench/fleet/token', KEY_PARAMETER: '/volbench/fleet/tls-key',
  };
  return readFileSync(join(ROOT, 'tests', 'rehearsal', 'fixtures', 'member-user-data.sh'), 'utf8').replace(/@([A-Z_]+)@/g, (_, k: string) => values[k]);
}

/** What the fleet uploads before members boot: the token and TLS key (SSM), the certificate and a bundle (S3). */
async function upload(f: Fleet): Promise<void> {
  const certDir = join(f.dir, 'tls');
  mkdirSync(certDir);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', '/CN=volbench-member',
    '-keyout', join(certDir, 'key.pem'), '-out', join(certDir, 'cert.pem')], { stdio: 'ignore' });
  f.fingerprint = execFileSync('openssl', ['x509', '-in', join(certDir, 'cert.pem'), '-noout', '-fingerprint', '-sha256'], { encoding: 'utf8' }).trim().split('=')[1];
  await f.clients.ssm.send(new PutParameterCommand({ Name: '/volbench/fleet/token', Type: 'SecureString', Value: TOKEN }));
  await f.clients.ssm.send(new PutParameterCommand({ Name: '/volbench/fleet/tls-key', Type: 'SecureString', Value: readFileSync(join(certDir, 'key.pem'), 'utf8') }));
  await f.clients.s3.send(new CreateBucketCommand({ Bucket: 'volbench-results' }));
  await f.clients.s3.send(new PutObjectCommand({ Bucket: 'volbench-results', Key: 'fleet/tls.crt', Body: readFileSync(join(certDir, 'cert.pem')) }));
  // The bundle: a launcher for the volbench and Node this host built, bound read-only into the member.
  const bundle = join(f.dir, 'bundle');
  mkdirSync(join(bundle, 'bin'), { recursive: true });
  writeFileSync(join(bundle, 'bin', 'volbench'), '#!/bin/sh\nexec /opt/node/bin/node /opt/volbench-src/dist/cli/main.js "$@"\n', { mode: 0o755 });
  execFileSync('tar', ['-czf', join(f.dir, 'bundle.tgz'), '-C', bundle, '.']);
  await f.clients.s3.send(new PutObjectCommand({ Bucket: 'volbench-results', Key: 'fleet/bundle.tgz', Body: readFileSync(join(f.dir, 'bundle.tgz')) }));
}

async function boot(f: Fleet, id: string, extra: { dnfFailure?: string; timeFactor?: number; emulatedNvmeDir?: string } = {}): Promise<{ member: Member; stack: string; instanceId: string; volumeId: string }> {
  const stack = `volbench-fleet-${id}`;
  await createStack(f, stack);
  const { instanceId, az, volumeId } = await launch(f);
  const member = await startMember({
    id, dir: f.dir, userData: renderUserData(stack),
    identity: { instanceId, instanceType: 'm6i.large', region: REGION, availabilityZone: az },
    aws: f.aws, group: f.group,
    devices: [{ name: 'nvme1n1', path: f.volume.device, serial: volumeId.replace('-', '') }],
    binds: [{ from: ROOT, to: '/opt/volbench-src' }, { from: dirname(dirname(process.execPath)), to: '/opt/node' }],
    ...extra,
  });
  return { member, stack, instanceId, volumeId };
}

describe.skipIf(skip)('a member in the sandbox', () => {
  const f = {} as Fleet;
  let good: Awaited<ReturnType<typeof boot>>;
  let bad: Awaited<ReturnType<typeof boot>>;
  let bootSeconds: number;

  beforeAll(async () => {
    // What a killed earlier run left (its pid is gone) would hold loop devices and namespaces.
    sweepStale();
    f.moto = await freshMoto(REGION);
    f.aws = new SignalStandIn({ moto: f.moto.endpoint });
    const local = await f.aws.listen('127.0.0.1');
    const config = { region: REGION, endpoint: local.url, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } };
    f.sdk = config;
    f.clients = { ec2: new EC2Client(config), ssm: new SSMClient(config), s3: new S3Client({ ...config, forcePathStyle: true }), cfn: new CloudFormationClient(config) };
    f.dir = rehearsalDir();
    f.volume = createLoopVolume({ dir: f.dir, sizeBytes: 8 * GiB, tmpfsBytes: 256 * 1024 * 1024 });
    f.group = BlkioGroup.create('sandbox-test');
    f.pages = join(f.dir, 'ebs-stats');
    mkdirSync(f.pages, { mode: 0o700 });
    // 1,600 IOPS at the rehearsal's rate factor: the kernel holds 400. Its start names the device
    // in the group first: the throttle counts nothing on a device no rule has named (a loop device
    // made fresh while other processes hold the older ones).
    f.throttle = new VolumeThrottle({
      group: f.group, majMin: f.volume.majMin, spec: { limiters: [{ name: 'volume', baseline: { iops: 1600 } }] }, scale: { rate: 0.25, time: 0.1 }, ebsStats: { dir: f.pages },
    }).start();
    await upload(f);
    const [g, b] = await Promise.all([boot(f, 'm1', { emulatedNvmeDir: f.pages }), boot(f, 'm2', { dnfFailure: 'Error: Unable to find a match: nvme-cli', timeFactor: 0.02 })]);
    good = g;
    bad = b;
    bootSeconds = (await good.member.booted).seconds;
    // For the rehearsal's notes: VOLBENCH_REHEARSAL_FIGURES=FILE keeps the boot's timings.
    if (process.env.VOLBENCH_REHEARSAL_FIGURES) writeFileSync(process.env.VOLBENCH_REHEARSAL_FIGURES, JSON.stringify({ m1: good.member.timings(), m2: bad.member.timings() }));
  }, 180_000);

  afterAll(async () => {
    await good?.member.stop();
    await bad?.member.stop();
    await f.aws?.close();
    f.throttle?.stop();
    f.group?.remove();
    f.volume?.close();
    if (f.dir) rmSync(f.dir, { recursive: true, force: true });
  });

  it('boots from S3 and SSM alone and signals SUCCESS with its instance id', async () => {
    expect((await good.member.booted).exitCode).toBe(0);
    const timings = good.member.timings();
    expect(timings.sandboxReadyS).toBeGreaterThan(0);
    expect(timings.userDataExitS).toBeGreaterThanOrEqual(timings.sandboxReadyS!);
    expect(bootSeconds).toBeGreaterThanOrEqual(timings.userDataExitS! - 0.01);
    const [signal] = f.aws.signals(good.stack);
    expect(signal).toMatchObject({ member: 'm1', resource: 'Ready', status: 'SUCCESS', uniqueId: good.instanceId });
    const records = good.member.records();
    expect(records.dnf.join('\n')).toContain('dnf install -y -q nvme-cli');
    expect(records.systemctl.join('\n')).toMatch(/systemctl daemon-reload[\s\S]*systemctl enable --now volbench.service/);
    // The fleet's own SDK reads the record through the stand-in's HTTP route too.
    const seen = (await (await fetch(`${(await f.aws.listen('127.0.0.1')).url}/__rehearsal/signals?stack=${good.stack}`)).json()) as { signals: unknown[] };
    expect(seen.signals).toHaveLength(1);
  });

  it('serves over TLS, pinned by fingerprint, and runs I/O on its volume through the throttle', async () => {
    const client = new PinnedTls(f.fingerprint);
    const auth = { authorization: `Bearer ${TOKEN}` };
    try {
      expect((await client.fetch(`https://${good.member.address}:8443/v1/healthz`)).status).toBe(200);
      const targets = await (await client.fetch(`https://${good.member.address}:8443/v1/targets`, { headers: auth })).json() as { targets: { root: string }[] };
      expect(JSON.stringify(targets)).toContain('/dev/nvme1n1');
      // What is measured is the device the member writes to: its /dev/nvme1n1 is MAJ:MIN of the
      // volume, and MAJ:MIN is still the loop device over the volume's file.
      const seen = await good.member.exec('stat', ['-L', '-c', '%t:%T', '/dev/nvme1n1']);
      expect(seen.stdout.trim().split(':').map((h) => parseInt(h, 16)).join(':'), `the member's /dev/nvme1n1 (${seen.stderr}) is ${f.volume.label}`).toBe(f.volume.majMin);
      f.volume.check();
      const before = f.group.counters(f.volume.majMin);
      const job = { global: { direct: 1, size: '64m', runtime: '1s', time_based: true }, jobs: [{ name: 'rr', rw: 'randread', bs: '4k', iodepth: 4, filename: '/dev/nvme1n1' }] };
      const res = await client.fetch(`https://${good.member.address}:8443/v1/runs?wait=60`, {
        method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(job),
      });
      const body = await res.json() as {
        status: string;
        result: { jobs: { read: { total_ios: number } }[]; volbench: { jobs: { ebs_stats?: { source: string; read_ops: number } }[]; cloud?: { emulation?: unknown }; ebs_stats_unavailable?: string } };
      };
      expect(res.status, JSON.stringify(body).slice(0, 500)).toBe(200);
      const ios = body.result.jobs[0].read.total_ios;
      expect(ios).toBeGreaterThan(0);
      // Every I/O the member's service did went through the member's group on the loop device.
      const bios = f.group.counters(f.volume.majMin).read.bios - before.read.bios;
      f.volume.check();
      expect(bios, `${f.volume.label}: blkio group ${f.group.dir} counted ${bios} read bios for the ${ios} I/Os of the member's run`).toBeGreaterThanOrEqual(ios);
      // Its /dev/nvme1n1 is the loop device (the same major:minor), whose page the volume
      // published on the host: the service read it through the seam, before and after the job.
      const vb = body.result.volbench;
      expect(vb.ebs_stats_unavailable, JSON.stringify(vb)).toBeUndefined();
      expect(vb.jobs[0].ebs_stats?.source).toBe('emulated');
      // The page is up to a tick (100 ms) old at either end of the 1 s job, later under load.
      expect(vb.jobs[0].ebs_stats!.read_ops).toBeGreaterThan(ios / 2);
      expect(vb.cloud?.emulation).toEqual({ rate: 0.25, time: 0.1 });
    } finally {
      client.close();
    }
  });

  it('sees its volume\'s statistics seam read-only, owned as the seam requires, and named in its services\' environment', async () => {
    const m = good.member;
    expect(m.env).toMatchObject({ VOLBENCH_EMULATED_NVME_DIR: MEMBER_NVME_DIR });
    expect((await m.exec('stat', ['-c', '%u %a', MEMBER_NVME_DIR])).stdout.trim()).toBe('0 700');
    expect((await m.exec('ls', [MEMBER_NVME_DIR])).stdout.split('\n')).toContain(`${f.volume.majMin}.page`);
    expect((await m.exec('touch', [`${MEMBER_NVME_DIR}/x`])).code).not.toBe(0);
    // The member's device is the published one: its major:minor names the page.
    const rdev = (await m.exec('stat', ['-L', '-c', '%t:%T', '/dev/nvme1n1'])).stdout.trim().split(':').map((h) => parseInt(h, 16)).join(':');
    expect(rdev).toBe(f.volume.majMin);
    // The member without a seam has no variable: its service would not look.
    expect(bad.member.env.VOLBENCH_EMULATED_NVME_DIR).toBeUndefined();
  });

  it('has a root of its own: host paths hidden, its writes kept from the host', async () => {
    expect((await good.member.exec('ls', ['-A', '/work', '/root'])).stdout.trim()).toBe('/root:\n\n/work:');
    expect((await good.member.exec('test', ['-s', '/etc/volbench/token'])).code).toBe(0);
    expect(good.member.readFile('/etc/volbench/tls.crt')).toContain('BEGIN CERTIFICATE');
    expect(existsSync('/etc/volbench/tls.crt')).toBe(false);
    expect(existsSync('/opt/volbench/bin/volbench')).toBe(false);
    expect(good.member.readFile('/opt/volbench/bin/volbench')).toContain('/opt/node/bin/node');
  });

  it('reaches nothing but IMDS and the AWS endpoint', async () => {
    // A listener of this test on every host address: the member's way to the host is its veth.
    const listener: Server = createServer((s) => s.destroy());
    let connections = 0;
    listener.on('connection', () => (connections += 1));
    await new Promise<void>((r) => listener.listen(0, '0.0.0.0', r));
    const port = (listener.address() as { port: number }).port;
    try {
      const m = good.member;
      expect((await m.exec('curl', ['-fsS', '-m', '5', `http://${m.hostAddress}:${port}/`])).code).not.toBe(0);
      expect((await m.exec('curl', ['-fsS', '-m', '5', 'http://169.254.169.254:81/'])).code).not.toBe(0);
      expect(connections).toBe(0);
      // No route out: asked of the routing table, so no packet is sent anywhere.
      const routes = (await m.exec('ip', ['-4', 'route'])).stdout;
      expect(routes).not.toMatch(/default/);
      expect((await m.exec('ip', ['route', 'get', '192.0.2.1'])).code).not.toBe(0);
      const imds = await m.exec('curl', ['-fsS', '-X', 'PUT', 'http://169.254.169.254/latest/api/token', '-H', 'X-aws-ec2-metadata-token-ttl-seconds: 60']);
      expect(imds.code).toBe(0);
      expect((await m.exec('curl', ['-fsS', 'http://169.254.169.254/latest/meta-data/instance-id'])).code).not.toBe(0);
    } finally {
      listener.close();
    }
  });

  it('a failed step signals FAILURE with its reason within seconds', async () => {
    const boot = await bad.member.booted;
    expect(boot.exitCode).not.toBe(0);
    expect(boot.seconds).toBeLessThan(60);
    const [signal] = f.aws.signals(bad.stack);
    expect(signal).toMatchObject({ member: 'm2', status: 'FAILURE', uniqueId: 'dnf', reason: 'Received FAILURE signal with UniqueId dnf' });
    expect(bad.member.readFile('/var/log/volbench-setup.log')).toContain('Unable to find a match: nvme-cli');
  });

  it('shutdown ends the member, scheduled by the time factor, and nothing else', async () => {
    const started = performance.now();
    const scheduled = await bad.member.exec('shutdown', ['-h', '+1']);
    expect(scheduled.stdout).toMatch(/1\.200s in this rehearsal/);
    const end = await bad.member.ended;
    expect((performance.now() - started) / 1000).toBeGreaterThanOrEqual(1.2);
    expect(end.shutdown).toBe(true);
    expect(bad.member.records().shutdown.join('\n')).toMatch(/shutdown -h \+1[\s\S]*scheduled shutdown after 1.200s/);
    expect(good.member.child.exitCode).toBeNull();
  });

  it('the SignalResource stand-in refuses what CloudFormation refuses and forwards the rest to moto', async () => {
    const cfn = f.clients.cfn;
    await expect(cfn.send(new SignalResourceCommand({ StackName: 'no-such-stack', LogicalResourceId: 'Ready', UniqueId: 'x', Status: 'SUCCESS' }))).rejects.toThrow(/does not exist/);
    await expect(cfn.send(new SignalResourceCommand({ StackName: good.stack, LogicalResourceId: 'Ready', UniqueId: 'y'.repeat(65), Status: 'SUCCESS' }))).rejects.toThrow(/UniqueId/);
    await cfn.send(new SignalResourceCommand({ StackName: good.stack, LogicalResourceId: 'Other', UniqueId: 'from-sdk', Status: 'FAILURE' }));
    expect(f.aws.signals(good.stack).map((s) => s.uniqueId)).toEqual([good.instanceId, 'from-sdk']);
  });

  it('reads a stack\'s member as its instance sees it: identity, user data as rendered, volumes', async () => {
    await f.clients.cfn.send(new CreateStackCommand({
      StackName: 'volbench-render', Capabilities: ['CAPABILITY_IAM'],
      TemplateBody: readFileSync(join(ROOT, 'infra', 'cloudformation', 'instance.yaml'), 'utf8'),
      Parameters: Object.entries({
        FleetId: 'fleet-render', VolumeLabel: 'gp3-8g', AllowedCidr: '10.0.0.1/32', VolumeType: 'gp3', VolumeSize: '8',
        TokenParameterName: '/volbench/fleet-render/gp3-8g/token', ResultsBucket: 'volbench-results',
        TlsKeyParameterName: '/volbench/fleet-render/tls-key', TlsCertKey: 'fleet-render/tls.crt', PackageBucket: 'volbench-results',
        PackageKey: 'fleet-render/bundle/volbench-0.0.0-linux-x64.tar.gz', PackageSha256: '0'.repeat(64), ExpiresAt: '2030-01-01T00:00:00Z',
      }).map(([ParameterKey, ParameterValue]) => ({ ParameterKey, ParameterValue })),
    }));
    const m = await memberOfStack({ aws: f.sdk, stackName: 'volbench-render' });
    expect(m.identity).toMatchObject({ instanceId: m.instanceId, instanceType: 'm6i.large', region: REGION });
    expect(m.identity.availabilityZone).toMatch(/^us-east-1[a-z]$/);
    expect(m.userData.startsWith('#!/bin/bash')).toBe(true);
    expect(m.userData).toContain('/volbench/fleet-render/gp3-8g/token');
    expect(m.userData).not.toMatch(/\$\{(AWS::|FleetId|TokenParameterName|VolumeType)/);
    // The data volume is the launch template's mapping, which moto does not launch (AWS does):
    // a rehearsal makes it in moto for the member.
    for (const v of m.volumes) expect(v.serial).toBe(v.volumeId.replace('-', ''));
  });
});
