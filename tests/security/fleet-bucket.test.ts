/**
 * Someone who may only write to the shared results bucket, or only tag resources, against the
 * fleet commands. Against moto and listeners on loopback.
 *
 * Broke (0.1.0): `fleet down ID --bucket B` deleted whatever a planted `B/ID/fleet.json` named (a
 * stack `prod-database`, the SecureString `/prod/db/password`, an object in another bucket);
 * `fleet run` sent the SecureString a planted state named, as its bearer token, in clear to the
 * state's endpoint, and wrote the member's answer to a path built from a planted label
 * (`../../x/package` → a `package.json` outside `--out`); `fleet reap` deleted anything that
 * carried a past `volbench:expires`, a tag anyone who may tag can set.
 * Expected: a state from S3 is parsed strictly and refused (exit 2, naming the field) where it
 * names anything but what volbench derives from the fleet id and labels; endpoints, fingerprints
 * and instances come from the fleet's own stacks; nothing without `volbench:fleet` is deleted;
 * reap deletes only what a volbench stack names.
 */
import { createServer as createHttp, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttps } from 'node:https';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudFormationClient, CreateStackCommand, DeleteStackCommand, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { CreateVolumeCommand, DescribeInstancesCommand, DescribeVolumesCommand, EC2Client, RunInstancesCommand } from '@aws-sdk/client-ec2';
import { CreateBucketCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetParameterCommand, PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';

import { fleetCertificate } from '../../src/fleet/certificate.js';
import { ensureBuilt } from '../api/helpers/child.js';
import { ROOT, volbench, type CliOutcome } from '../helpers/cli.js';
import { freshMoto, type Moto } from '../helpers/moto.js';
import { requires } from '../helpers/requires.js';

const needs = requires('child', 'moto', 'dist');

const reason = needs.missing('moto');
const RESULTS = 'volbench-shared-results';
const PROD_BUCKET = 'prod-backups';
const PROD_KEY = 'db/2026-11-28.dump';
const PROD_SECRET = 'hunter2-prod-db';
const PAST = '2020-01-01T00:00:00Z';
const REAP_BUCKET = 'volbench-reap-test';
/** A fleet id no stack has: what only carries tags. */
const STRANGER = 'vb0123456789';
/** A template with one harmless resource: a stack that is not volbench's, or one that takes its name. */
const OTHER_TEMPLATE = JSON.stringify({
  Resources: { Queue: { Type: 'AWS::SQS::Queue', Properties: {} } },
});

interface Seen { path: string; authorization?: string }

/** A loopback listener that records every request's path and Authorization header. */
async function listen(make: (handler: (req: IncomingMessage, res: import('node:http').ServerResponse) => void) => Server,
  answer: (req: IncomingMessage, res: import('node:http').ServerResponse, body: string) => void = (_q, res) => { res.statusCode = 401; res.end(); }) {
  const seen: Seen[] = [];
  const server = make((req, res) => {
    seen.push({ path: req.url ?? '', authorization: req.headers.authorization });
    let body = '';
    req.on('data', (d: Buffer) => { body += d.toString(); });
    req.on('end', () => answer(req, res, body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { seen, port, close: () => new Promise<void>((r) => { server.closeAllConnections?.(); server.close(() => r()); }) };
}

/** A member as a planted state would have `fleet run` reach it: it finishes at once, its result is any JSON it likes. */
function fakeMember(result: unknown) {
  return (req: IncomingMessage, res: import('node:http').ServerResponse) => {
    const send = (status: number, body: unknown, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    const url = req.url ?? '';
    if (url === '/v1/targets') return send(200, { targets: [{ root: '/data', kind: 'directory' }] });
    if (req.method === 'POST' && url.startsWith('/v1/runs')) return send(202, { id: 'r1' });
    if (url === '/v1/runs/r1/events') return send(200, 'id: 1\nevent: finished\ndata: {"state":"finished"}\n\n', 'text/event-stream');
    if (url === '/v1/runs/r1') return send(200, { id: 'r1', state: 'finished' });
    if (url === '/v1/runs/r1/result') return send(200, result);
    return send(404, {});
  };
}

describe.skipIf(reason !== undefined)(`a results bucket someone else can write, tags anyone may set${reason ? ` [skipped: ${reason}]` : ''}`, () => {
  let moto: Moto;
  let work: string;
  let env: NodeJS.ProcessEnv;
  let plans: Array<{ fleetId: string; members: Array<{ label: string; stackName: string }> }>;
  const config = () => ({ region: 'us-east-1', endpoint: moto.endpoint, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
  const s3 = () => new S3Client({ ...config(), forcePathStyle: true });

  /** The CLI from a machine with no state of its own (a fresh state directory). */
  function fleet(args: string[]): Promise<CliOutcome> {
    return volbench(['fleet', ...args, '--region', 'us-east-1', '--state-dir', mkdtempSync(join(work, 'state-'))], undefined, env);
  }

  async function plant(state: Record<string, unknown>): Promise<void> {
    const client = s3();
    await client.send(new PutObjectCommand({ Bucket: RESULTS, Key: `${String(state.fleetId)}/fleet.json`, Body: JSON.stringify(state) }));
    client.destroy();
  }

  /** A state as `fleet up` writes it, for the plan `fleet plan` made; `member` replaces fields of each member. */
  function stateOf(i: number, member: (label: string) => Record<string, unknown> = () => ({}), top: Record<string, unknown> = {}) {
    const plan = plans[i];
    const id = plan.fleetId;
    return {
      fleetId: id, region: 'us-east-1', createdAt: new Date().toISOString(), status: 'up', plan, bucket: RESULTS,
      expiresAt: '2099-01-01T00:00:00Z', objects: plan.members.map((m) => `${id}/tls/${m.label}.crt`),
      members: plan.members.map((m) => ({
        label: m.label, stackName: m.stackName, status: 'created', tokenParameter: `/volbench/${id}/${m.label}/token`, tlsKeyParameter: `/volbench/${id}/${m.label}/tls-key`,
        ...member(m.label),
      })),
      ...top,
    };
  }

  async function stackExists(name: string): Promise<boolean> {
    const cfn = new CloudFormationClient(config());
    try {
      const s = (await cfn.send(new DescribeStacksCommand({ StackName: name }))).Stacks?.[0];
      return !!s && !/DELETE/.test(s.StackStatus ?? '');
    } catch {
      return false;
    } finally {
      cfn.destroy();
    }
  }

  async function parameter(name: string): Promise<string | undefined> {
    const ssm = new SSMClient(config());
    try {
      return (await ssm.send(new GetParameterCommand({ Name: name, WithDecryption: true }))).Parameter?.Value;
    } catch {
      return undefined;
    } finally {
      ssm.destroy();
    }
  }

  async function objectExists(bucket: string, key: string): Promise<boolean> {
    const client = s3();
    try {
      await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      return true;
    } catch {
      return false;
    } finally {
      client.destroy();
    }
  }

  beforeAll(async () => {
    ensureBuilt();
    moto = await freshMoto();
    work = mkdtempSync(join(tmpdir(), 'volbench-fleet-bucket-'));
    env = { ...process.env, ...moto.env };
    delete env.AWS_PROFILE;
    delete env.VOLBENCH_NOW;
    writeFileSync(join(work, 'quick.fio'), '[global]\nsize=1m\nbs=4k\nioengine=psync\n\n[rr]\nrw=randread\nruntime=1\ntime_based\n');
    // A plan as `fleet plan` makes it (the states below are what `fleet up` would save for it),
    // made while moto sets up its EC2 (seconds, once), and what is not the fleet's is put in.
    const [made] = await Promise.all([
      volbench(['fleet', 'plan', '--volumes', 'gp3:1g', '--instance', 'm6i.large', '--region', 'us-east-1', '--format', 'json'], undefined, env),
      (async () => {
        const ec2 = new EC2Client(config());
        await ec2.send(new DescribeInstancesCommand({}));
        ec2.destroy();
      })(),
      (async () => {
        const client = s3();
        await client.send(new CreateBucketCommand({ Bucket: RESULTS }));
        await client.send(new CreateBucketCommand({ Bucket: PROD_BUCKET }));
        await client.send(new PutObjectCommand({ Bucket: PROD_BUCKET, Key: PROD_KEY, Body: 'the production database' }));
        client.destroy();
        const cfn = new CloudFormationClient(config());
        await cfn.send(new CreateStackCommand({ StackName: 'prod-database', TemplateBody: OTHER_TEMPLATE }));
        cfn.destroy();
        const ssm = new SSMClient(config());
        await ssm.send(new PutParameterCommand({ Name: '/prod/db/password', Type: 'SecureString', Value: PROD_SECRET }));
        ssm.destroy();
      })(),
    ]);
    expect(made.code, made.stderr).toBe(0);
    const plan = JSON.parse(made.stdout) as { fleetId: string };
    // The same plan for other fleets: each test plants its own.
    plans = ['', 'a', 'b', 'c'].map((_, i) => (i === 0 ? plan : JSON.parse(made.stdout.replaceAll(plan.fleetId, `vb${randomBytes(5).toString('hex')}`))));
  }, 60_000);

  afterAll(async () => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('HIGH 1: down --bucket with a planted state deletes nothing outside the fleet, and says which field it refused', async () => {
    await plant(stateOf(0, () => ({ stackName: 'prod-database', tokenParameter: '/prod/db/password' }), { bucket: PROD_BUCKET, objects: [PROD_KEY] }));
    const out = await fleet(['down', plans[0].fleetId, '--bucket', RESULTS]);
    expect(await stackExists('prod-database')).toBe(true);
    expect(await parameter('/prod/db/password')).toBe(PROD_SECRET);
    expect(await objectExists(PROD_BUCKET, PROD_KEY)).toBe(true);
    expect(out.code, out.stderr).toBe(2);
    expect(out.stderr).toMatch(/\[(bucket|members\[0\]\.stackName|members\[0\]\.tokenParameter)\]/);
  });

  it('HIGH 1: a well-formed state: what carries the fleet\'s names but not its tag is not deleted', async () => {
    const id = plans[1].fleetId;
    const label = plans[1].members[0].label;
    const cfn = new CloudFormationClient(config());
    await cfn.send(new CreateStackCommand({ StackName: `volbench-${id}-${label}`, TemplateBody: OTHER_TEMPLATE }));
    cfn.destroy();
    const ssm = new SSMClient(config());
    await ssm.send(new PutParameterCommand({ Name: `/volbench/${id}/${label}/token`, Type: 'SecureString', Value: 'untagged' }));
    ssm.destroy();
    const client = s3();
    await client.send(new PutObjectCommand({ Bucket: RESULTS, Key: `${id}/tls/${label}.crt`, Body: 'untagged' }));
    client.destroy();
    await plant(stateOf(1));
    const out = await fleet(['down', id, '--bucket', RESULTS]);
    expect(await stackExists(`volbench-${id}-${label}`), out.stderr).toBe(true);
    expect(await parameter(`/volbench/${id}/${label}/token`)).toBe('untagged');
    expect(await objectExists(RESULTS, `${id}/tls/${label}.crt`)).toBe(true);
    expect(out.stderr).toContain(`volbench-${id}-${label}`);
    expect(out.stderr).toMatch(/volbench:fleet/);
  });

  it('HIGH 2: run --bucket sends no secret a planted state names, in clear or pinned, to the state\'s endpoint', async () => {
    // In clear, with a fingerprint beside it, naming a secret outside the fleet.
    const prod = new SSMClient(config());
    await prod.send(new PutParameterCommand({ Name: '/prod/db/password', Type: 'SecureString', Value: PROD_SECRET, Overwrite: true }));
    prod.destroy();
    const clear = await listen((h) => createHttp(h));
    const planted = fleetCertificate({ commonName: 'x', notAfter: new Date(Date.now() + 86400e3) }).fingerprint;
    await plant(stateOf(2, () => ({ endpoint: `http://127.0.0.1:${clear.port}`, tokenParameter: '/prod/db/password', tlsFingerprint: planted })));
    const first = await fleet(['run', plans[2].fleetId, '--bucket', RESULTS, '--job', join(work, 'quick.fio'), '--out', join(work, 'h2-out')]);
    await clear.close();
    expect(clear.seen.filter((s) => s.authorization?.includes(PROD_SECRET))).toEqual([]);
    expect(first.code, first.stderr).toBe(2);
    expect(first.stderr).toMatch(/\[members\[0\]\.(tokenParameter|endpoint)\]/);

    // Well formed: the fleet's own token, over TLS pinned to the listener's certificate that the
    // state names. The fleet has no stack, so it has no endpoint: nothing is sent anywhere.
    const id = plans[3].fleetId;
    const label = plans[3].members[0].label;
    const ssm = new SSMClient(config());
    await ssm.send(new PutParameterCommand({ Name: `/volbench/${id}/${label}/token`, Type: 'SecureString', Value: 'the-fleets-own-token', Tags: [{ Key: 'volbench:fleet', Value: id }] }));
    ssm.destroy();
    const cert = fleetCertificate({ commonName: 'planted', notAfter: new Date(Date.now() + 86400e3) });
    const pinned = await listen((h) => createHttps({ cert: cert.cert, key: cert.key }, h));
    await plant(stateOf(3, () => ({ endpoint: `https://127.0.0.1:${pinned.port}`, tlsFingerprint: cert.fingerprint })));
    const second = await fleet(['run', id, '--bucket', RESULTS, '--job', join(work, 'quick.fio'), '--out', join(work, 'h2-out')]);
    await pinned.close();
    expect(pinned.seen, second.stderr).toEqual([]);
    expect(second.stderr).toContain(`volbench-${id}-${label}`);
  });

  it('HIGH 3: a planted label never becomes a path out of --out, in run or report', async () => {
    const base = join(work, 'h3');
    const outDir = join(base, 'results');
    mkdirSync(join(base, 'x'), { recursive: true });
    const member = await listen((h) => createHttp(h), fakeMember({ name: 'planted', scripts: { postinstall: 'touch pwned' }, jobs: [] }));
    const ssm = new SSMClient(config());
    await ssm.send(new PutParameterCommand({ Name: `/volbench/${plans[0].fleetId}/any/token`, Type: 'SecureString', Value: 'a-token' }));
    ssm.destroy();
    const state = stateOf(0, () => ({ endpoint: `http://127.0.0.1:${member.port}`, tokenParameter: `/volbench/${plans[0].fleetId}/any/token`, label: '../../x/package' }));
    state.plan = { ...plans[0], members: plans[0].members.map((m) => ({ ...m, label: '../../x/package' })) };
    await plant(state);
    const run = await fleet(['run', plans[0].fleetId, '--bucket', RESULTS, '--job', join(work, 'quick.fio'), '--out', outDir]);
    await member.close();
    expect(existsSync(join(base, 'x', 'package.json')), run.stderr).toBe(false);
    // Nothing beside --out but the folder the label aimed at, and that one still empty.
    expect(readdirSync(base).filter((n) => n !== 'results')).toEqual(['x']);
    expect(readdirSync(join(base, 'x'))).toEqual([]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/\[plan\.members\[0\]\.label\]|\[members\[0\]\.label\]/);
    const report = await fleet(['report', plans[0].fleetId, '--bucket', RESULTS, '--out', outDir]);
    expect(report.code, report.stderr).toBe(2);
  });

  it('MEDIUM 4: reap leaves what only carries a past volbench:expires (and volbench:fleet), whoever tagged it, and takes what a stack names', async () => {
    const ec2 = new EC2Client(config());
    const ssm = new SSMClient(config());
    const objects = s3();
    const image = 'ami-12c6146b'; // one of moto's stock images
    const expires = { Key: 'volbench:expires', Value: PAST };
    const fleetTag = { Key: 'volbench:fleet', Value: STRANGER };
    const launch = async (Tags: Array<{ Key: string; Value: string }>) => (await ec2.send(new RunInstancesCommand({
      ImageId: image, MinCount: 1, MaxCount: 1, InstanceType: 't3.micro', TagSpecifications: [{ ResourceType: 'instance', Tags }],
    }))).Instances![0].InstanceId!;
    const onlyExpiry = await launch([expires]);
    // moto lets anyone set an aws: tag (AWS does not): reap must not take it on its word either.
    const forged = await launch([expires, fleetTag, { Key: 'aws:cloudformation:stack-name', Value: `volbench-${STRANGER}-gp3-1g` }]);
    const volume = async (Tags: Array<{ Key: string; Value: string }>) => (await ec2.send(new CreateVolumeCommand({
      AvailabilityZone: 'us-east-1a', Size: 1, TagSpecifications: [{ ResourceType: 'volume', Tags }],
    }))).VolumeId!;
    const looseVolume = await volume([expires]);
    const fleetVolume = await volume([expires, fleetTag]);
    await ssm.send(new PutParameterCommand({ Name: '/volbench/shared/config', Type: 'String', Value: 'kept', Tags: [expires] }));
    await ssm.send(new PutParameterCommand({ Name: `/volbench/${STRANGER}/gp3-1g/token`, Type: 'SecureString', Value: 'kept', Tags: [expires, fleetTag] }));
    await objects.send(new CreateBucketCommand({ Bucket: REAP_BUCKET }));
    await objects.send(new PutObjectCommand({ Bucket: REAP_BUCKET, Key: 'notes/keep.txt', Body: 'kept', Tagging: 'volbench%3Aexpires=2020-01-01T00%3A00%3A00Z' }));
    await objects.send(new PutObjectCommand({ Bucket: REAP_BUCKET, Key: `${STRANGER}/bundle/x.tar.gz`, Body: 'kept',
      Tagging: `volbench%3Afleet=${STRANGER}&volbench%3Aexpires=2020-01-01T00%3A00%3A00Z` }));
    // The control: a fleet whose stack (deleted since, as CloudFormation keeps it 90 days) names
    // its token and bundle; those are reaped.
    const vouched = `vb${randomBytes(5).toString('hex')}`;
    const cfn = new CloudFormationClient(config());
    const stack = await cfn.send(new CreateStackCommand({
      StackName: `volbench-${vouched}-gp3-1g`, Capabilities: ['CAPABILITY_IAM'], Tags: [{ Key: 'volbench:fleet', Value: vouched }],
      TemplateBody: readFileSync(join(ROOT, 'infra', 'cloudformation', 'instance.yaml'), 'utf8'),
      Parameters: Object.entries({
        FleetId: vouched, VolumeLabel: 'gp3-1g', AllowedCidr: '10.0.0.1/32', VolumeType: 'gp3', VolumeSize: '1', ExpiresAt: PAST,
        TokenParameterName: `/volbench/${vouched}/gp3-1g/token`, TlsKeyParameterName: `/volbench/${vouched}/gp3-1g/tls-key`, TlsCertKey: `${vouched}/tls/gp3-1g.crt`,
        ResultsBucket: REAP_BUCKET, PackageBucket: REAP_BUCKET, PackageKey: `${vouched}/bundle/v.tar.gz`, PackageSha256: '0'.repeat(64),
        MemberMode: 'autonomous', StudySpecSha256: '1'.repeat(64),
      }).map(([ParameterKey, ParameterValue]) => ({ ParameterKey, ParameterValue })),
    }));
    await cfn.send(new DeleteStackCommand({ StackName: stack.StackId }));
    cfn.destroy();
    const vouchedTags = [expires, { Key: 'volbench:fleet', Value: vouched }];
    await ssm.send(new PutParameterCommand({ Name: `/volbench/${vouched}/gp3-1g/token`, Type: 'SecureString', Value: 'reaped', Tags: vouchedTags }));
    // A study's seal: no stack names it, a study's stack of its fleet vouches for it.
    await ssm.send(new PutParameterCommand({ Name: `/volbench/${vouched}/study`, Type: 'String', Value: '2'.repeat(64), Tags: vouchedTags }));
    await objects.send(new PutObjectCommand({ Bucket: REAP_BUCKET, Key: `${vouched}/bundle/v.tar.gz`, Body: 'reaped',
      Tagging: `volbench%3Afleet=${vouched}&volbench%3Aexpires=2020-01-01T00%3A00%3A00Z` }));

    const out = await volbench(['fleet', 'reap', '--region', 'us-east-1', '--bucket', REAP_BUCKET, '--yes', '--format', 'json'], undefined, env);
    expect(out.code, out.stderr).toBe(0);
    const live = async (id: string) => (await ec2.send(new DescribeInstancesCommand({ InstanceIds: [id] }))).Reservations![0].Instances![0].State!.Name;
    expect(await live(onlyExpiry)).toBe('running');
    expect(await live(forged)).toBe('running');
    const vols = (await ec2.send(new DescribeVolumesCommand({ VolumeIds: [looseVolume, fleetVolume] }))).Volumes!.map((v) => v.State);
    expect(vols).toEqual(['available', 'available']);
    expect((await ssm.send(new GetParameterCommand({ Name: '/volbench/shared/config' }))).Parameter?.Value).toBe('kept');
    expect((await ssm.send(new GetParameterCommand({ Name: `/volbench/${STRANGER}/gp3-1g/token`, WithDecryption: true }))).Parameter?.Value).toBe('kept');
    await objects.send(new HeadObjectCommand({ Bucket: REAP_BUCKET, Key: 'notes/keep.txt' }));
    await objects.send(new HeadObjectCommand({ Bucket: REAP_BUCKET, Key: `${STRANGER}/bundle/x.tar.gz` }));
    expect(JSON.parse(out.stdout)).toMatchObject({
      stacks: [], instances: [], volumes: [], parameters: [`/volbench/${vouched}/gp3-1g/token`, `/volbench/${vouched}/study`].sort(), objects: [`${vouched}/bundle/v.tar.gz`],
    });
    await expect(ssm.send(new GetParameterCommand({ Name: `/volbench/${vouched}/gp3-1g/token` }))).rejects.toThrow();
    await expect(objects.send(new HeadObjectCommand({ Bucket: REAP_BUCKET, Key: `${vouched}/bundle/v.tar.gz` }))).rejects.toThrow();
    for (const c of [ec2, ssm, objects]) c.destroy();
  });
});
