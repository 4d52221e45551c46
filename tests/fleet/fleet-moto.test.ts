/**
 * The fleet end to end against moto server (a local AWS API emulator), the real AWS SDK and
 * real `volbench serve` processes: `up` creates one stack per volume with the right type, size
 * and tags; `run` reaches the services through --endpoint-map with the token the fleet put in
 * (moto's) SSM and saves fio's JSON per volume, locally and in S3; `down` leaves no stack,
 * instance or volume; SIGINT in the middle of `compare` still tears everything down; a stack
 * that fails to create leaves nothing behind.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudFormationClient, DescribeStacksCommand, ListStacksCommand } from '@aws-sdk/client-cloudformation';
import {
  DeleteInternetGatewayCommand, DeleteSubnetCommand, DeleteVpcCommand, DescribeInstancesCommand, DescribeInternetGatewaysCommand, DescribeLaunchTemplatesCommand,
  DescribeLaunchTemplateVersionsCommand, DescribeSubnetsCommand, DescribeVolumesCommand, DescribeVpcsCommand, DetachInternetGatewayCommand, EC2Client,
} from '@aws-sdk/client-ec2';
import { CreateBucketCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetParameterCommand, GetParametersByPathCommand, SSMClient } from '@aws-sdk/client-ssm';

import { CLI, ensureBuilt, spawnServe, waitForExit, type ServeChild } from '../api/helpers/child.js';
import { awsDefaultVpc, freshMoto, type Moto } from '../helpers/moto.js';
import { requires } from '../helpers/requires.js';

const needs = requires('child', 'moto', 'dist');

const reason = needs.missing('moto');
const BUCKET = 'volbench-fleet-test';
const VOLUMES = 'gp3:1g,io2:4g:iops=400';
const LABELS = ['gp3-1g', 'io2-4g-400iops'];

interface Outcome { code: number | null; stdout: string; stderr: string }

/** Deletes a region's default VPC as AWS Organizations accounts often have it: subnets, gateway, VPC. */
async function deleteDefaultVpc(ec2: EC2Client): Promise<void> {
  const vpc = (await ec2.send(new DescribeVpcsCommand({ Filters: [{ Name: 'is-default', Values: ['true'] }] }))).Vpcs?.[0]?.VpcId;
  if (!vpc) return;
  for (const s of (await ec2.send(new DescribeSubnetsCommand({ Filters: [{ Name: 'vpc-id', Values: [vpc] }] }))).Subnets ?? []) {
    await ec2.send(new DeleteSubnetCommand({ SubnetId: s.SubnetId }));
  }
  for (const g of (await ec2.send(new DescribeInternetGatewaysCommand({ Filters: [{ Name: 'attachment.vpc-id', Values: [vpc] }] }))).InternetGateways ?? []) {
    await ec2.send(new DetachInternetGatewayCommand({ InternetGatewayId: g.InternetGatewayId, VpcId: vpc }));
    await ec2.send(new DeleteInternetGatewayCommand({ InternetGatewayId: g.InternetGatewayId }));
  }
  await ec2.send(new DeleteVpcCommand({ VpcId: vpc }));
  expect((await ec2.send(new DescribeVpcsCommand({ Filters: [{ Name: 'is-default', Values: ['true'] }] }))).Vpcs ?? []).toEqual([]);
}

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

describe.skipIf(reason !== undefined)(`fleet against moto${reason ? ` [skipped: ${reason}]` : ''}`, () => {
  let moto: Moto;
  let work: string;
  let env: NodeJS.ProcessEnv;
  const config = () => ({ region: 'us-east-1', endpoint: moto.endpoint, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
  const services: ServeChild[] = [];

  function fleet(args: string[], onStderr?: (text: string, child: ReturnType<typeof spawn>) => void): Promise<Outcome> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [CLI, 'fleet', ...args, '--state-dir', join(work, 'state')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        onStderr?.(stderr, child);
      });
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });
  }

  async function remainsOf(fleetId: string): Promise<string[]> {
    const ec2 = new EC2Client(config());
    const cfn = new CloudFormationClient(config());
    const left: string[] = [];
    const inst = await ec2.send(new DescribeInstancesCommand({ Filters: [{ Name: 'tag:volbench:fleet', Values: [fleetId] }] }));
    for (const i of (inst.Reservations ?? []).flatMap((r) => r.Instances ?? [])) if (i.State?.Name !== 'terminated') left.push(i.InstanceId!);
    const names = LABELS.map((l) => `volbench-${fleetId}-${l}`);
    const vols = await ec2.send(new DescribeVolumesCommand({ Filters: [{ Name: 'tag:aws:cloudformation:stack-name', Values: names }] }));
    left.push(...(vols.Volumes ?? []).map((v) => v.VolumeId!));
    const stacks = await cfn.send(new ListStacksCommand({}));
    left.push(...(stacks.StackSummaries ?? []).filter((s) => s.StackName?.includes(fleetId) && s.StackStatus !== 'DELETE_COMPLETE').map((s) => s.StackName!));
    ec2.destroy();
    cfn.destroy();
    return left;
  }

  /** Two local services whose token is the one the fleet stored in SSM; the map file that reaches them. */
  async function servicesFor(fleetId: string, ports?: Record<string, number>): Promise<string> {
    const ssm = new SSMClient(config());
    const map: Record<string, string> = {};
    for (const label of LABELS) {
      // Each member has its own token.
      const token = (await ssm.send(new GetParameterCommand({ Name: `/volbench/${fleetId}/${label}/token`, WithDecryption: true }))).Parameter!.Value!;
      const root = join(work, `root-${fleetId}-${label}`);
      mkdirSync(root, { recursive: true });
      const tokenFile = join(work, `token-${fleetId}-${label}`);
      writeFileSync(tokenFile, token, { mode: 0o600 });
      const s = await spawnServe(['--target-root', root, '--token-file', tokenFile, '--data-dir', join(work, `data-${fleetId}-${label}`),
        ...(ports ? ['--port', String(ports[label])] : [])]);
      services.push(s);
      map[label] = s.url;
    }
    ssm.destroy();
    const file = join(work, `map-${fleetId}.json`);
    writeFileSync(file, JSON.stringify(map));
    return file;
  }

  beforeAll(async () => {
    ensureBuilt();
    moto = await freshMoto();
    // An internet gateway and its route, as every AWS default VPC has (preflight reads them).
    await awsDefaultVpc(moto);
    work = mkdtempSync(join(tmpdir(), 'volbench-fleet-'));
    env = { ...process.env, ...moto.env, AWS_PROFILE: '' };
    delete env.AWS_PROFILE;
    const s3 = new S3Client({ ...config(), forcePathStyle: true });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    s3.destroy();
    writeFileSync(join(work, 'volbench-0.0.0-linux-x64.tar.gz'), 'a stand-in for the bundle');
    writeFileSync(join(work, 'quick.fio'), '[global]\nsize=1m\nbs=4k\nioengine=psync\n\n[rr]\nrw=randread\nruntime=1\ntime_based\n');
    writeFileSync(join(work, 'long.fio'), '[global]\nsize=1m\nbs=4k\nioengine=psync\n\n[long]\nrw=randread\nruntime=60\ntime_based\n');
  }, 60_000);

  afterAll(async () => {
    for (const s of services) {
      s.child.kill('SIGTERM');
      await waitForExit(s.child);
    }
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const common = () => ['--volumes', VOLUMES, '--instance', 'm6i.large', '--region', 'us-east-1', '--bucket', BUCKET,
    '--allowed-cidr', '10.0.0.1/32', '--package', join(work, 'volbench-0.0.0-linux-x64.tar.gz')];

  let fleetId = '';

  it('up: one stack per volume, with its type, size and the fleet\'s tag; --format json prints its events, created first', async () => {
    const out = await fleet(['up', ...common(), '--format', 'json']);
    expect(out.code, out.stderr).toBe(0);
    const lines = out.stdout.trimEnd().split('\n');
    // The line a script reads the fleet id from: stable, its first two keys in this order.
    expect(lines[0]).toMatch(/^\{"event":"created","fleetId":"vb[0-9a-f]{10}",/);
    const events = lines.map((l) => JSON.parse(l) as { event: string; fleetId: string; label?: string });
    const created = events[0] as unknown as { fleetId: string; members: string[]; expiresAt: string };
    fleetId = created.fleetId;
    expect(created).toMatchObject({ region: 'us-east-1', instanceType: 'm6i.large', members: LABELS });
    expect(events.every((e) => e.fleetId === fleetId)).toBe(true);
    expect(events.filter((e) => e.event === 'member-up').map((e) => e.label).sort()).toEqual([...LABELS].sort());
    expect(events.map((e) => e.event)).not.toContain('member-failed');
    const cfn = new CloudFormationClient(config());
    for (const [label, type, size] of [['gp3-1g', 'gp3', '1'], ['io2-4g-400iops', 'io2', '4']]) {
      const stack = (await cfn.send(new DescribeStacksCommand({ StackName: `volbench-${fleetId}-${label}` }))).Stacks![0];
      expect(stack.StackStatus).toBe('CREATE_COMPLETE');
      const params = Object.fromEntries(stack.Parameters!.map((p) => [p.ParameterKey, p.ParameterValue]));
      expect(params).toMatchObject({
        VolumeType: type, VolumeSize: size, FleetId: fleetId, AllowedCidr: '10.0.0.1/32', TokenParameterName: `/volbench/${fleetId}/${label}/token`,
        Architecture: 'x86_64', MaxSizeBytes: '0', PublicAddress: 'true', PackageKey: `${fleetId}/bundle/volbench-0.0.0-linux-x64.tar.gz`,
        PackageBucket: BUCKET, ResultsBucket: BUCKET,
      });
      expect(params.PackageSha256).toMatch(/^[0-9a-f]{64}$/);
      expect(params.SubnetId).toMatch(/^subnet-/);
      expect(stack.Tags).toContainEqual({ Key: 'volbench:fleet', Value: fleetId });
      expect(stack.Tags).toContainEqual({ Key: 'volbench:expires', Value: created.expiresAt });
      expect(stack.Outputs!.find((o) => o.OutputKey === 'PublicEndpoint')?.OutputValue).toMatch(/^https:\/\//);
      // The data volume is the launch template's mapping (moto does not launch it: AWS does).
      const ec2 = new EC2Client(config());
      const lt = await ec2.send(new DescribeLaunchTemplatesCommand({ Filters: [{ Name: 'tag:volbench:fleet', Values: [fleetId] }, { Name: 'tag:volbench:volume', Values: [label] }] }));
      expect(lt.LaunchTemplates).toHaveLength(1);
      const own = lt.LaunchTemplates![0];
      const versions = await ec2.send(new DescribeLaunchTemplateVersionsCommand({ LaunchTemplateId: own.LaunchTemplateId, Versions: ['$Latest'] }));
      const data = versions.LaunchTemplateVersions![0].LaunchTemplateData!.BlockDeviceMappings!.find((b) => b.DeviceName === '/dev/sdf')!;
      expect(data.Ebs).toMatchObject({ VolumeType: type, VolumeSize: Number(size), DeleteOnTermination: true, Encrypted: true });
      const inst = await ec2.send(new DescribeInstancesCommand({ Filters: [{ Name: 'tag:volbench:fleet', Values: [fleetId] }] }));
      expect((inst.Reservations ?? []).flatMap((r) => r.Instances ?? []).length).toBe(2);
      ec2.destroy();
    }
    cfn.destroy();
    // The tarball went to S3 for the instances to install.
    // Read to its end: a body left unread when the client is destroyed ends in an 'aborted'
    // error on a response nobody listens to, which fails the file later.
    const s3 = new S3Client({ ...config(), forcePathStyle: true });
    const bundle = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${fleetId}/bundle/volbench-0.0.0-linux-x64.tar.gz` }));
    expect(await bundle.Body!.transformToString()).toBe('a stand-in for the bundle');
    s3.destroy();
  }, 120_000);

  it('run: the workload on every member through --endpoint-map; fio\'s JSON saved per volume, locally and in S3', async () => {
    const map = await servicesFor(fleetId);
    const outDir = join(work, 'results');
    const out = await fleet(['run', fleetId, '--job', join(work, 'quick.fio'), '--endpoint-map', map, '--out', outDir]);
    expect(out.code, out.stderr).toBe(0);
    for (const label of LABELS) {
      expect(out.stderr).toContain(`[${label}] finished`);
      const doc = JSON.parse(readFileSync(join(outDir, fleetId, `${label}.json`), 'utf8'));
      expect(doc.jobs[0].jobname).toBe('rr');
      expect(doc.jobs[0].read.total_ios).toBeGreaterThan(0);
      expect(doc.volbench.cloud).toMatchObject({ provider: 'aws', region: 'us-east-1', instance_type: 'm6i.large', fleet: { id: fleetId, label } });
      // What a later comparison needs: the member's volume went with the run (each job holds its
      // entitlement), and the host (instance, AMI, zone as EC2 describes it), version, kernel and
      // the catalog's dates are in the result.
      expect(doc.volbench.cloud.volume.type).toBe(label.split('-')[0]);
      expect(doc.volbench.jobs[0].entitlement).toMatchObject({ bound_by: expect.any(String), bound_by_source: 'model', entitled: { iops: expect.any(Number) }, measured_iops: expect.any(Number) });
      expect(doc.volbench.cloud.instance_id).toMatch(/^i-[0-9a-f]+$/);
      expect(doc.volbench.cloud.image_id).toMatch(/^ami-[0-9a-f]+$/);
      expect(doc.volbench.cloud.availability_zone).toMatch(/^us-east-1[a-f]$/);
      expect(doc.volbench.cloud.catalog_as_of).toEqual({ volumes: expect.stringMatching(/^\d{4}-\d\d-\d\d$/), instances: expect.stringMatching(/^\d{4}/), instance_prices: expect.stringMatching(/^\d{4}/) });
      expect(doc.volbench.version).toMatch(/^\d+\.\d+\.\d+/);
      expect(doc.volbench.kernel).toBeTruthy();
      const s3 = new S3Client({ ...config(), forcePathStyle: true });
      const obj = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${fleetId}/results/${label}.json` }));
      expect(JSON.parse(await obj.Body!.transformToString()).jobs[0].jobname).toBe('rr');
      s3.destroy();
    }
    // The table names every volume.
    for (const label of LABELS) expect(out.stdout).toContain(`| ${label} |`);
  }, 120_000);

  it('down: no stack, instance or volume of the fleet remains, and the token is gone', async () => {
    const out = await fleet(['down', fleetId]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toContain('nothing of it remains');
    expect(await remainsOf(fleetId)).toEqual([]);
    const ssm = new SSMClient(config());
    for (const label of LABELS) {
      await expect(ssm.send(new GetParameterCommand({ Name: `/volbench/${fleetId}/${label}/token` }))).rejects.toThrow();
      await expect(ssm.send(new GetParameterCommand({ Name: `/volbench/${fleetId}/${label}/tls-key` }))).rejects.toThrow();
    }
    ssm.destroy();
  }, 120_000);

  it('compare: SIGINT in the middle of the run cancels it and still tears the fleet down; its events as JSON lines', async () => {
    let sent = false;
    let id = '';
    // The map is written first, with two free ports; the services start there once the fleet's
    // token exists (compare waits for a member that does not listen yet).
    const ports = Object.fromEntries(await Promise.all(LABELS.map(async (l) => [l, await freePort()] as const)));
    writeFileSync(join(work, 'map-next.json'), JSON.stringify(Object.fromEntries(LABELS.map((l) => [l, `http://127.0.0.1:${ports[l]}`]))));
    const out = await fleet(['compare', '--interactive', ...common(), '--job', join(work, 'long.fio'), '--endpoint-map', join(work, 'map-next.json'), '--out', join(work, 'results'),
      '--format', 'json'],
      (stderr, child) => {
        const m = /fleet (vb[0-9a-f]{10}): creating/.exec(stderr);
        if (m && !id) {
          id = m[1];
          void (async () => {
            for (let i = 0; i < 200; i++) {
              try {
                await servicesFor(id, ports);
                return;
              } catch {
                await new Promise((r) => setTimeout(r, 100));
              }
            }
          })();
        }
        if (!sent && /\[gp3-1g\] (running|started|read )/.test(stderr)) {
          sent = true;
          child.kill('SIGINT');
        }
      });
    expect(sent, out.stderr).toBe(true);
    expect(out.code, out.stderr).toBe(130);
    expect(out.stderr).toContain('nothing of it remains');
    expect(await remainsOf(id)).toEqual([]);
    // stdout: one event a line, in the order the study went; the teardown says nothing remains.
    const events = out.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { event: string; fleetId: string; label?: string; status?: string; remaining?: string[] });
    expect(events[0]).toMatchObject({ event: 'created', fleetId: id, members: LABELS });
    expect(events.every((e) => e.fleetId === id)).toBe(true);
    const order = [...new Set(events.map((e) => e.event).filter((e) => e !== 'log' && e !== 'progress'))];
    expect(order).toEqual(['created', 'member-up', 'result', 'report', 'tearing-down', 'torn-down']);
    expect(events.filter((e) => e.event === 'result').map((e) => [e.label, e.status]).sort()).toEqual(LABELS.map((l) => [l, 'cancelled']));
    expect(events.find((e) => e.event === 'report')).toMatchObject({ report: { groups: expect.any(Array) } });
    expect(events.at(-1)).toMatchObject({ event: 'torn-down', remaining: [] });
  }, 180_000);

  it('a subnet that does not exist is refused before anything is created, naming --subnet', async () => {
    const out = await fleet(['up', ...common(), '--subnet', 'subnet-0123456789abcdef0']);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/--subnet subnet-0123456789abcdef0.*nothing was created.*\[--subnet\]/);
    const id = /fleet (vb[0-9a-f]{10})/.exec(out.stderr)![1];
    expect(await remainsOf(id)).toEqual([]);
    const ssm = new SSMClient(config());
    await expect(ssm.send(new GetParameterCommand({ Name: `/volbench/${id}/gp3-1g/token` }))).rejects.toThrow();
    ssm.destroy();
  }, 120_000);

  it('a region without a default VPC is refused before anything is created, naming --subnet', async () => {
    const west = { ...config(), region: 'us-west-2' };
    const ec2 = new EC2Client(west);
    await deleteDefaultVpc(ec2);
    const cfn = new CloudFormationClient(west);
    const before = (await cfn.send(new ListStacksCommand({}))).StackSummaries?.length ?? 0;
    const out = await fleet(['up', ...common().map((a) => (a === 'us-east-1' ? 'us-west-2' : a))]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/us-west-2 has no default VPC.*give --subnet.*nothing was created.*\[--subnet\]/);
    expect((await cfn.send(new ListStacksCommand({}))).StackSummaries?.length ?? 0).toBe(before);
    const ssm = new SSMClient(west);
    expect((await ssm.send(new GetParametersByPathCommand({ Path: '/volbench/', Recursive: true }))).Parameters ?? []).toEqual([]);
    ssm.destroy();
    ec2.destroy();
    cfn.destroy();
  }, 120_000);
});
