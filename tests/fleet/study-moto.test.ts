/**
 * A study as a state machine, against moto server (real AWS SDK calls; moto serves S3's
 * conditional writes, CloudFormation and EventBridge Scheduler, and fires no schedule). The
 * test plays the members as the member agent would: it writes their progress, done and result
 * objects to their prefixes, each made through the contract's schemas.
 *
 * - the machine, one call at a time (and a study its first driver left before its bundle was up fails): planned → creating (schedules, then stacks with the service
 *   role, OnFailure DELETE, MemberMode autonomous and the spec's SHA-256) → running (progress and
 *   done read; a member whose object fails the schema refused, naming it) → collecting →
 *   reporting → tearing-down → done, nothing left but the record, every object put with SSE;
 * - the lease: one driver at a time (If-None-Match: *, If-Match), an expired one taken over, a
 *   lost one refused on renewal; a second driver of a leased study exits 2 naming the holder;
 * - `fleet attach` from an empty state directory finishes a study another driver started, and on
 *   a terminal draws its members as a table redrawn in place;
 * - SIGTERM while a CreateStack is in flight: its answer is awaited, then everything is deleted;
 *   a member's refused CreateStack fails the study, naming it, and everything is deleted.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudFormationClient, DescribeStacksCommand, ListStacksCommand } from '@aws-sdk/client-cloudformation';
import { DescribeImagesCommand, DescribeInstancesCommand, EC2Client, RunInstancesCommand, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { CreateBucketCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetScheduleCommand, ListScheduleGroupsCommand, ListSchedulesCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { GetParameterCommand, GetParametersByPathCommand, SSMClient } from '@aws-sdk/client-ssm';

import {
  memberDoneSchema, memberObjectKey, memberProgressSchema, studyObjectKey, studySpecSchema,
} from '../../src/api/study-objects.js';
import { VolbenchError } from '../../src/errors.js';
import {
  advanceStudy, dataVolumeOf, fleetClients, fleetVolumes, HeldLease, planFleet, prepareStudy, saveState, sha256Hex, startStudy, type FleetClients, type FleetEvent,
  type FleetState,
} from '../../src/fleet/index.js';
import { CLI, ensureBuilt } from '../api/helpers/child.js';
import { SCRIPT, volbenchOnTerminal } from '../helpers/cli.js';
import { awsDefaultVpc, freshMoto, type Moto } from '../helpers/moto.js';
import { requires } from '../helpers/requires.js';
import { screen } from '../helpers/terminal.js';
import { artifactsDir } from '../browser/browser.js';

const needs = requires('child', 'moto', 'dist');
const reason = needs.missing('moto');
const BUCKET = 'volbench-study-test';
const REGION = 'us-east-1';
const VOLUMES = 'gp3:1g,io2:4g:iops=400';
const LABELS = ['gp3-1g', 'io2-4g-400iops'];
const RESULT = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'publish', 'aws-ssd-vol-a.json'));

interface Outcome { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }

describe.skipIf(reason !== undefined)(`a study against moto${reason ? ` [skipped: ${reason}]` : ''}`, () => {
  let moto: Moto;
  let work: string;
  let env: NodeJS.ProcessEnv;
  let clients: FleetClients;
  const saved: Record<string, string | undefined> = {};
  const config = () => ({ region: REGION, endpoint: moto.endpoint, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
  const s3 = () => new S3Client({ ...config(), forcePathStyle: true });

  function cli(args: string[], opts: { env?: NodeJS.ProcessEnv; onStderr?: (text: string, child: ReturnType<typeof spawn>) => void } = {}): Promise<Outcome> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [CLI, 'fleet', ...args], { env: { ...env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        opts.onStderr?.(stderr, child);
      });
      child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr }));
    });
  }

  /** A member's object, put where the member's role may write, made through the contract's schema. */
  async function put(fleetId: string, label: string, name: 'progress' | 'done' | 'result', body: string | Buffer): Promise<void> {
    const c = s3();
    await c.send(new PutObjectCommand({ Bucket: BUCKET, Key: memberObjectKey(fleetId, label, name), Body: body, ServerSideEncryption: 'AES256' }));
    c.destroy();
  }

  const progress = (label: string, test_index: number) => JSON.stringify(memberProgressSchema.parse({
    label, at: new Date(Date.now() + test_index).toISOString(), step: 'running', test: `test ${test_index}`, test_index, tests_total: 2, percent: test_index * 40, eta_s: 60,
  }));

  async function memberDone(fleetId: string, label: string): Promise<void> {
    await put(fleetId, label, 'result', RESULT);
    await put(fleetId, label, 'done', JSON.stringify(memberDoneSchema.parse({
      label, status: 'ok', finished_at: new Date().toISOString(), result_sha256: sha256Hex(RESULT), exit_code: 0,
    })));
  }

  /** What is left of a fleet in moto, by kind: live stacks, schedules, SSM parameters, objects outside its record. */
  async function leftovers(fleetId: string): Promise<Record<string, string[]>> {
    const cfn = new CloudFormationClient(config());
    const sch = new SchedulerClient(config());
    const c = s3();
    const stacks = (await cfn.send(new ListStacksCommand({}))).StackSummaries ?? [];
    const groups = (await sch.send(new ListScheduleGroupsCommand({}))).ScheduleGroups ?? [];
    const objects = (await c.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `${fleetId}/` }))).Contents ?? [];
    const record = new RegExp(`^${fleetId}/(fleet\\.json|results/.*|study/(spec|lease)\\.json|[^/]+/(progress|result|done)\\.json)$`);
    for (const x of [cfn, sch, c]) x.destroy();
    return {
      stacks: stacks.filter((s) => s.StackName?.includes(fleetId) && s.StackStatus !== 'DELETE_COMPLETE').map((s) => `${s.StackName} ${s.StackStatus}`),
      schedule_groups: groups.map((g) => g.Name!).filter((n) => n.includes(fleetId)),
      objects: objects.map((o) => o.Key!).filter((k) => !record.test(k)),
    };
  }

  function newPlan() {
    return planFleet({ volumes: fleetVolumes(VOLUMES, 'm6i.large'), instanceType: 'm6i.large', region: REGION, runtime: '2s' });
  }

  /** A study started in-process, as `fleet compare` starts it, its lease held by `holder`. */
  async function started(holder: string, events: FleetEvent[], outDir?: string) {
    const ctx = { clients, bucket: BUCKET, stateDir: undefined, outDir, onEvent: (e: FleetEvent) => events.push(e) };
    const prepared = await prepareStudy({ plan: newPlan(), bundleFile: join(work, 'volbench-0.0.0-linux-x64.tar.gz'), workload: {} }, ctx);
    const lease = await HeldLease.take({ clients, bucket: BUCKET, fleetId: prepared.state.fleetId, holder });
    await startStudy(prepared, ctx);
    return { ctx, lease, fleetId: prepared.state.fleetId };
  }

  async function advanceUntil(fleetId: string, ctx: Parameters<typeof advanceStudy>[1], step: string, calls = 6): Promise<FleetState> {
    for (let i = 0; i < calls; i++) {
      const { state } = await advanceStudy(fleetId, ctx);
      if (state.study!.step === step) return state;
    }
    throw new Error(`study ${fleetId} did not reach ${step} in ${calls} calls`);
  }

  beforeAll(async () => {
    ensureBuilt();
    moto = await freshMoto(REGION);
    // An internet gateway and its route, as every AWS default VPC has (preflight reads them).
    await awsDefaultVpc(moto, REGION);
    work = mkdtempSync(join(tmpdir(), `volbench-study-${process.pid}-`));
    env = { ...process.env, ...moto.env };
    delete env.AWS_PROFILE;
    delete env.VOLBENCH_NOW;
    const c = s3();
    await c.send(new CreateBucketCommand({ Bucket: BUCKET }));
    c.destroy();
    writeFileSync(join(work, 'volbench-0.0.0-linux-x64.tar.gz'), 'a stand-in for the bundle');
    // The in-process drivers take moto's credentials from the environment, as a real one would.
    for (const [k, v] of Object.entries(moto.env)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
    clients = fleetClients({ region: REGION, endpoint: moto.endpoint });
  }, 60_000);

  afterAll(async () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    clients?.destroy();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('advances one call at a time from planned to done; a member whose object fails the schema is refused, naming it', async () => {
    const events: FleetEvent[] = [];
    const outDir = join(work, 'results-steps');
    const { ctx, lease, fleetId } = await started('the step test', events, outDir);
    const [gp3, io2] = LABELS;
    try {
      // planned: the spec is in S3, its SHA-256 in the state; the study roles' stack is asked for.
      const c = s3();
      const spec = await c.send(new HeadObjectCommand({ Bucket: BUCKET, Key: studyObjectKey(fleetId, 'spec') }));
      expect(spec.ServerSideEncryption).toBe('AES256');
      const specText = await (await c.send(new GetObjectCommand({ Bucket: BUCKET, Key: studyObjectKey(fleetId, 'spec') }))).Body!.transformToString();
      let { state } = await advanceStudy(fleetId, ctx);
      expect(state.study!.specSha256).toBe(sha256Hex(specText));
      expect(studySpecSchema.parse(JSON.parse(specText)).members).toEqual(LABELS.map((label) => expect.objectContaining({ label, runtime: '2s', suite: expect.any(String) })));
      // creating: the schedules come before the stacks; each stack is made with the service role.
      state = await advanceUntil(fleetId, ctx, 'running');
      const sch = new SchedulerClient(config());
      const schedules = (await sch.send(new ListSchedulesCommand({ GroupName: `volbench-${fleetId}` }))).Schedules ?? [];
      expect(schedules.map((s) => s.Name).sort()).toEqual([...LABELS].sort());
      const one = await sch.send(new GetScheduleCommand({ GroupName: `volbench-${fleetId}`, Name: gp3 }));
      expect(one.ScheduleExpression).toBe(`at(${state.expiresAt!.replace('Z', '')})`);
      expect(one.Target?.Arn).toBe('arn:aws:scheduler:::aws-sdk:cloudformation:deleteStack');
      expect(JSON.parse(one.Target!.Input!)).toEqual({ StackName: `volbench-${fleetId}-${gp3}` });
      expect(one.Target?.RoleArn).toMatch(/^arn:aws:iam::\d{12}:role\/volbench-study-roles-ScheduleRole-/);
      expect(one.ActionAfterCompletion).toBe('DELETE');
      sch.destroy();
      const cfn = new CloudFormationClient(config());
      const stack = (await cfn.send(new DescribeStacksCommand({ StackName: `volbench-${fleetId}-${gp3}` }))).Stacks![0];
      const params = Object.fromEntries(stack.Parameters!.map((p) => [p.ParameterKey, p.ParameterValue]));
      expect(params).toMatchObject({ MemberMode: 'autonomous', StudySpecSha256: state.study!.specSha256, PackageKey: `${fleetId}/bundle/volbench-0.0.0-linux-x64.tar.gz` });
      expect(stack.RoleARN).toMatch(/^arn:aws:iam::\d{12}:role\/volbench-study-roles-StackRole-/);
      cfn.destroy();
      expect(state.members.map((m) => m.stackId)).toEqual(LABELS.map((l) => expect.stringContaining(`:stack/volbench-${fleetId}-${l}/`)));

      // The seal of what the stacks were made from, where a writer of the bucket cannot write.
      const sealer = new SSMClient(config());
      expect((await sealer.send(new GetParameterCommand({ Name: `/volbench/${fleetId}/study` }))).Parameter?.Value).toMatch(/^[0-9a-f]{64}$/);
      sealer.destroy();

      // running: progress read once it moves; nothing is done until a member says so.
      await put(fleetId, gp3, 'progress', progress(gp3, 1));
      ({ state } = await advanceStudy(fleetId, ctx));
      expect(state.study!.step).toBe('running');
      expect(state.members[0].progress).toMatchObject({ label: gp3, test_index: 1, percent: 40 });
      const moved = events.filter((e) => e.event === 'progress');
      expect(moved).toEqual([expect.objectContaining({ label: gp3, line: expect.stringContaining('test 1 (1/2), 40%'), progress: expect.objectContaining({ step: 'running' }) })]);
      // The same object again says nothing new.
      await advanceStudy(fleetId, ctx);
      expect(events.filter((e) => e.event === 'progress')).toHaveLength(1);

      // A member's progress with a key the contract does not have: refused, naming the member.
      await put(fleetId, io2, 'progress', JSON.stringify({ ...JSON.parse(progress(io2, 1)), command: 'rm -rf /' }));
      await memberDone(fleetId, gp3);
      ({ state } = await advanceStudy(fleetId, ctx));
      const refused = events.find((e) => e.event === 'member-failed');
      expect(refused).toMatchObject({ label: io2, reason: expect.stringMatching(new RegExp(`^member ${io2}: s3://${BUCKET}/${fleetId}/${io2}/progress\\.json is not what a member writes: command: no such key`)) });
      expect(events.find((e) => e.event === 'member-done')).toMatchObject({ label: gp3, status: 'ok', exitCode: 0 });

      // All settled: collected, reported, torn down in the same and the next calls.
      state = await advanceUntil(fleetId, ctx, 'done');
      const collected = events.find((e) => e.event === 'collected');
      expect(collected).toMatchObject({ label: gp3, key: `s3://${BUCKET}/${fleetId}/results/${gp3}.json`, file: join(outDir, fleetId, `${gp3}.json`) });
      const saved = readFileSync(join(outDir, fleetId, `${gp3}.json`), 'utf8');
      expect(sha256Hex(saved)).toBe(state.members[0].collected!.sha256);
      expect(JSON.parse(saved).volbench.cloud).toMatchObject({ provider: 'aws', fleet: { id: fleetId, label: gp3 }, volume: { type: 'gp3', size_gib: 1 } });
      expect(readdirSync(join(outDir, fleetId))).toEqual([`${gp3}.json`]);
      const results = events.filter((e) => e.event === 'result').map((e) => [e.label, e.status]);
      expect(results).toEqual([[gp3, 'finished'], [io2, 'failed']]);
      expect(events.find((e) => e.event === 'report')).toBeDefined();
      expect(events.filter((e) => e.event === 'step').map((e) => e.step)).toEqual(['creating', 'running', 'collecting', 'reporting', 'tearing-down', 'done']);
      expect(events.at(-1)).toMatchObject({ event: 'step', step: 'done' });
      expect(events.find((e) => e.event === 'torn-down')).toMatchObject({ remaining: [] });
      expect(state.status).toBe('down');
      expect(await leftovers(fleetId)).toEqual({ stacks: [], schedule_groups: [], objects: [] });
      // Its seal (what its stacks were made from) goes with its other parameters.
      const ssm = new SSMClient(config());
      expect((await ssm.send(new GetParametersByPathCommand({ Path: `/volbench/${fleetId}/`, Recursive: true }))).Parameters ?? []).toEqual([]);
      ssm.destroy();
      // Every object the controller wrote carries the encryption header.
      for (const key of [`${fleetId}/fleet.json`, studyObjectKey(fleetId, 'spec'), studyObjectKey(fleetId, 'lease'), `${fleetId}/results/${gp3}.json`]) {
        expect((await c.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }))).ServerSideEncryption, key).toBe('AES256');
      }
      c.destroy();
    } finally {
      await lease.release();
    }
  }, 60_000);

  it('a study found planned without its spec and bundle (its first driver died first) fails, having made nothing', async () => {
    const events: FleetEvent[] = [];
    const ctx = { clients, bucket: BUCKET, onEvent: (e: FleetEvent) => events.push(e) };
    const prepared = await prepareStudy({ plan: newPlan(), bundleFile: join(work, 'volbench-0.0.0-linux-x64.tar.gz'), workload: {} }, ctx);
    const { fleetId } = prepared.state;
    await saveState(prepared.state, undefined, clients);
    const state = await advanceUntil(fleetId, ctx, 'failed');
    expect(state.study!.failure).toBe('its first driver stopped before the spec and the bundle were in S3: nothing was created');
    expect(events.filter((e) => e.event === 'step').map((e) => e.step)).toEqual(['tearing-down', 'failed']);
    expect(await leftovers(fleetId)).toEqual({ stacks: [], schedule_groups: [], objects: [] });
  }, 30_000);

  it('the lease: one driver at a time, an expired one taken over, a lost one refused on renewal, a released one free at once', async () => {
    const fleetId = `vb${randomBytes(5).toString('hex')}`;
    const take = (holder: string, more: Partial<Parameters<typeof HeldLease.take>[0]> = {}) =>
      HeldLease.take({ clients, bucket: BUCKET, fleetId, holder, leaseSec: 30, ...more });
    // Two at once on a free lease: S3's If-None-Match lets exactly one write it.
    const both = await Promise.allSettled([take('driver A', { leaseSec: 1 }), take('driver B', { leaseSec: 1 })]);
    expect(both.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refusal = (both.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason as VolbenchError;
    const first = (both.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<HeldLease>).value;
    expect(refusal.code).toBe('ESTUDY_LEASED');
    expect(refusal.message).toContain(`is driven by ${first.holder} (its lease expires at ${first.expiresAt})`);
    expect(refusal.field).toBe('--wait');
    // Expired, it is taken over (If-Match on the ETag read); its holder's renewal is then refused.
    await new Promise((r) => setTimeout(r, 1100));
    const c = await take('driver C');
    await expect(first.renew()).rejects.toThrow(/its lease was taken by driver C/);
    await expect(take('driver D')).rejects.toThrow(/driven by driver C/);
    // Released, it is free at once; a driver with --wait takes it once it expires.
    await c.release();
    const d = await take('driver D', { leaseSec: 1 });
    const started = Date.now();
    const e = await take('driver E', { wait: true });
    expect(Date.now() - started).toBeGreaterThan(500);
    expect(e.holder).toBe('driver E');
    await d.release();
    await e.release();
  }, 30_000);

  it('a second driver of a leased study exits 2 naming the holder; fleet attach from an empty state directory finishes it once free', async () => {
    const events: FleetEvent[] = [];
    const { ctx, lease, fleetId } = await started('an in-process driver', events);
    await advanceUntil(fleetId, ctx, 'running');
    const empty = mkdtempSync(join(work, 'empty-state-'));
    const out = join(work, 'results-attach');
    const args = ['attach', fleetId, '--bucket', BUCKET, '--region', REGION, '--state-dir', empty, '--out', out, '--format', 'json'];
    const second = await cli(args);
    expect(second.code, second.stderr).toBe(2);
    expect(second.stderr).toContain(`study ${fleetId} is driven by an in-process driver (its lease expires at ${lease.expiresAt})`);
    expect(second.stderr).toContain('[--wait]');
    const status = await cli(['status', fleetId, '--bucket', BUCKET, '--region', REGION, '--state-dir', empty]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`study ${fleetId} in ${REGION}: running`);
    expect(status.stdout).toContain(`driven by an in-process driver (lease until ${lease.expiresAt})`);

    // The first driver goes; the members finish on their own; another machine takes it on.
    await lease.release();
    for (const label of LABELS) await memberDone(fleetId, label);
    const attached = await cli(args);
    expect(attached.code, attached.stderr).toBe(0);
    const seen = attached.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as FleetEvent);
    expect(seen.every((e) => e.fleetId === fleetId)).toBe(true);
    expect([...new Set(seen.map((e) => e.event).filter((e) => e !== 'log' && e !== 'step'))])
      .toEqual(['member-done', 'collected', 'result', 'report', 'tearing-down', 'torn-down']);
    expect(seen.filter((e) => e.event === 'result').map((e) => [e.label, e.status])).toEqual(LABELS.map((l) => [l, 'finished']));
    for (const label of LABELS) expect(JSON.parse(readFileSync(join(out, fleetId, `${label}.json`), 'utf8')).volbench.cloud.fleet).toEqual({ id: fleetId, label });
    expect(readdirSync(empty)).toEqual([`${fleetId}.json`]);
    expect(await leftovers(fleetId)).toEqual({ stacks: [], schedule_groups: [], objects: [] });
    // Done, it says so to whoever asks, and attach gives its report again.
    const after = await cli(['status', fleetId, '--bucket', BUCKET, '--region', REGION, '--state-dir', empty, '--format', 'json']);
    expect(JSON.parse(after.stdout)).toMatchObject({ step: 'done', members: LABELS.map((label) => ({ label, collected: `s3://${BUCKET}/${fleetId}/results/${label}.json` })) });
    expect(JSON.parse(after.stdout).lease).toBeUndefined();
  }, 60_000);

  it.skipIf(!existsSync(SCRIPT))('fleet attach on a terminal draws a row per member in place, then first done against last done', async () => {
    const { ctx, lease, fleetId } = await started('a driver before attach', []);
    await advanceUntil(fleetId, ctx, 'running');
    const [gp3, io2] = LABELS;
    await put(fleetId, gp3, 'progress', progress(gp3, 1));
    await lease.release();
    let running: string[] = [];
    const ran = await volbenchOnTerminal(['fleet', 'attach', fleetId, '--bucket', BUCKET, '--region', REGION, '--state-dir', mkdtempSync(join(work, 'tty-state-')),
      '--out', join(work, 'results-tty')], {
      env,
      // Once the table shows gp3 running, both members finish (as their agents would).
      onOutput: (text) => {
        if (running.length || !/gp3-1g +1\/2 +40%/.test(text)) return;
        running = screen(text.replace(/\r\n/g, '\n'));
        void (async () => {
          for (const label of LABELS) await memberDone(fleetId, label);
        })();
      },
    });
    expect(ran.code, ran.text).toBe(0);
    const table = running.findIndex((l) => /^member +step +loop +IOPS +p99 +done +ETA$/.test(l));
    expect(running[table - 1]).toMatch(new RegExp(`^fleet ${fleetId}: running, 0/2 members done, eta --m:--s$`));
    expect(running.slice(table + 1, table + 3)).toEqual([expect.stringMatching(/^gp3-1g +1\/2 +40% +0[01]m:\d\ds$/), expect.stringMatching(/^io2-4g-400iops +up +--m:--s$/)]);
    const shown = screen(ran.text.replace(/\r\n/g, '\n'));
    // Redrawn in place: one table on the screen however often it was drawn, 4 lines gone back over each time.
    expect(shown.filter((l) => /^member +step/.test(l))).toHaveLength(1);
    expect(ran.text).toMatch(/\x1b\[4F/);
    const end = shown.findIndex((l) => /^member +step/.test(l));
    expect(shown[end - 1]).toBe(`fleet ${fleetId}: 2/2 members done`);
    expect(shown.slice(end + 1, end + 3)).toEqual([expect.stringMatching(/^gp3-1g +1\/2 +100% +done \S+/), expect.stringMatching(/^io2-4g-400iops +100% +done \S+/)]);
    expect(shown[end + 3]).toMatch(/^first done: gp3-1g at \S+( s)?; last done: io2-4g-400iops at \S+( s)? \([\d.]+ s apart\)$/);
    writeFileSync(join(artifactsDir(), 'fleet-attach-terminal.txt'), `${shown.join('\n')}\n`);
    // Then what follows the runs, under it, and the report.
    expect(shown.slice(end + 4)).toContain(`fleet ${fleetId}: collecting`);
    expect(shown.join('\n')).toContain('| gp3 1 GiB 3000/125 |');
  }, 60_000);

  /**
   * CloudFormation behind a loopback stand-in: a member's CreateStack goes to `onCreate`, which
   * passes it on to moto as it came (`forward`), later or never, or answers it itself (`refuse`).
   */
  async function cloudFormationStandIn(onCreate: (body: string, forward: () => void, refuse: (code: string, message: string) => void) => void): Promise<{ endpoint: string; close(): void }> {
    const proxy: Server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (d: Buffer) => chunks.push(d));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const forward = async () => {
          const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length') as Array<[string, string]>);
          const answer = await fetch(`${moto.endpoint}${req.url}`, { method: req.method, headers, body: req.method === 'GET' ? undefined : body });
          res.writeHead(answer.status, Object.fromEntries(answer.headers));
          res.end(Buffer.from(await answer.arrayBuffer()));
        };
        const refuse = (code: string, message: string) => {
          res.writeHead(400, { 'content-type': 'text/xml' });
          res.end(`<ErrorResponse><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>standin</RequestId></ErrorResponse>`);
        };
        const text = body.toString();
        if (/Action=CreateStack/.test(text) && /StackName=volbench-vb/.test(text)) onCreate(text, () => void forward(), refuse);
        else void forward();
      });
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    return { endpoint: `http://127.0.0.1:${(proxy.address() as { port: number }).port}`, close: () => proxy.close() };
  }

  const compareArgs = (name: string) => ['compare', '--volumes', VOLUMES, '--instance', 'm6i.large', '--region', REGION, '--bucket', BUCKET, '--runtime', '2s',
    '--package', join(work, 'volbench-0.0.0-linux-x64.tar.gz'), '--yes', '--state-dir', join(work, `state-${name}`), '--out', join(work, `results-${name}`), '--format', 'json'];

  async function stacksOf(fleetId: string): Promise<string[]> {
    const cfn = new CloudFormationClient(config());
    const all = ((await cfn.send(new ListStacksCommand({}))).StackSummaries ?? []).filter((x) => x.StackName?.startsWith(`volbench-${fleetId}-`));
    cfn.destroy();
    return all.map((x) => `${x.StackName!.slice(`volbench-${fleetId}-`.length)} ${x.StackStatus}`).sort();
  }

  it('SIGTERM while a CreateStack is in flight: its answer is awaited, then everything of the fleet is deleted', async () => {
    // A member's CreateStack is held until the CLI has its SIGTERM, then passed on to moto.
    let child: ReturnType<typeof spawn> | undefined;
    let sent = false;
    const held: Array<() => void> = [];
    const standIn = await cloudFormationStandIn((_body, forward) => {
      held.push(forward);
      if (sent) return;
      sent = true;
      child!.kill('SIGTERM');
      setTimeout(() => { for (const go of held.splice(0)) go(); }, 500);
    });
    let fleetId = '';
    const out = await cli(compareArgs('sigterm'), {
      env: { AWS_ENDPOINT_URL_CLOUDFORMATION: standIn.endpoint },
      onStderr: (text, c) => {
        child = c;
        fleetId ||= /fleet (vb[0-9a-f]{10}): creating/.exec(text)?.[1] ?? '';
      },
    });
    standIn.close();
    expect(sent, out.stderr).toBe(true);
    expect(out.code, out.stderr).toBe(143);
    expect(out.stderr).toMatch(/SIGTERM: tearing fleet vb[0-9a-f]{10} down/);
    const events = out.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as FleetEvent);
    expect(events[0]).toMatchObject({ event: 'created', fleetId });
    expect(events.filter((e) => e.event === 'step').map((e) => e.step)).toEqual(['creating', 'tearing-down', 'failed']);
    expect(events.find((e) => e.event === 'step' && e.step === 'tearing-down')).toMatchObject({ reason: 'interrupted (SIGTERM)' });
    expect(events.find((e) => e.event === 'torn-down')).toMatchObject({ remaining: [] });
    // Both stacks were made (their creates answered), then deleted; nothing else of the fleet is left.
    expect(await stacksOf(fleetId)).toEqual(LABELS.map((l) => `${l} DELETE_COMPLETE`));
    expect(await leftovers(fleetId)).toEqual({ stacks: [], schedule_groups: [], objects: [] });
  }, 60_000);

  it("a member's refused CreateStack fails the study, naming it: the other member's stack and the schedules are deleted", async () => {
    const standIn = await cloudFormationStandIn((body, forward, refuse) => {
      if (body.includes(`-${LABELS[1]}&`) || body.includes(`-${LABELS[1]}-create`)) refuse('AccessDenied', 'User is not authorized to perform: cloudformation:CreateStack');
      else forward();
    });
    const out = await cli(compareArgs('refused'), { env: { AWS_ENDPOINT_URL_CLOUDFORMATION: standIn.endpoint } });
    standIn.close();
    expect(out.code, out.stderr).toBe(1);
    const events = out.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as FleetEvent);
    const fleetId = events[0].fleetId;
    expect(events.find((e) => e.event === 'member-failed')).toMatchObject({ label: LABELS[1], reason: expect.stringContaining('cloudformation:CreateStack was refused') });
    expect(events.find((e) => e.event === 'step' && e.step === 'tearing-down')).toMatchObject({ reason: expect.stringMatching(new RegExp(`^${LABELS[1]}: cloudformation:CreateStack was refused`)) });
    expect(events.filter((e) => e.event === 'result').map((e) => [e.label, e.status])).toEqual([[LABELS[0], 'cancelled'], [LABELS[1], 'failed']]);
    expect(events.filter((e) => e.event === 'step').at(-1)).toMatchObject({ step: 'failed' });
    // Ended before its report, it still gives one: every member in it, none measured.
    expect(events.at(-1)).toMatchObject({ event: 'report' });
    expect(await stacksOf(fleetId)).toEqual([`${LABELS[0]} DELETE_COMPLETE`]);
    expect(await leftovers(fleetId)).toEqual({ stacks: [], schedule_groups: [], objects: [] });
  }, 60_000);

  it("a member's volume id is the volume EC2 attached at /dev/sdf, as the launch template maps it", async () => {
    const ec2 = new EC2Client(config());
    const image = (await ec2.send(new DescribeImagesCommand({}))).Images![0].ImageId!;
    const launched = await ec2.send(new RunInstancesCommand({
      ImageId: image, InstanceType: 'm6i.large', MinCount: 1, MaxCount: 1,
      BlockDeviceMappings: [{ DeviceName: '/dev/sdf', Ebs: { VolumeSize: 4, VolumeType: 'gp3', DeleteOnTermination: true } }],
    }));
    const instanceId = launched.Instances![0].InstanceId!;
    const described = (await ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] }))).Reservations![0].Instances![0];
    const attached = described.BlockDeviceMappings!.find((b) => b.DeviceName === '/dev/sdf')!.Ebs!.VolumeId!;
    expect(attached).toMatch(/^vol-[0-9a-f]+$/);
    expect(await dataVolumeOf(instanceId, clients)).toBe(attached);
    await ec2.send(new TerminateInstancesCommand({ InstanceIds: [instanceId] }));
    ec2.destroy();
  }, 30_000);
});
