/**
 * /v1/studies on the service, against moto server (real AWS SDK calls; moto starts no instance,
 * so the test writes each member's objects as a member would, through the contract's schemas).
 *
 * - who may spend money: the study token only (the run token is refused), a study over
 *   --study-max-cost refused with its estimate, one in a region not allowed refused naming it,
 *   a bad volume with the CLI's error naming the field (an instance that cannot hold it included),
 *   a bucket the account lacks refused by preflight (EPREFLIGHT), a tag AWS or volbench owns
 *   refused, a second study over --study-max-concurrent refused, and none at all without --studies;
 * - a study started by POST (202, Location, its plan), driven by the service's loop to done,
 *   followed with GET and its events, its report in JSON; another cancelled by DELETE and torn down;
 * - a study whose lease another driver holds is not advanced.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';

import { HeldLease, fleetClients, type FleetClients } from '../../src/fleet/index.js';
import { readEvents } from '../api/helpers/sse.js';
import { startServer, type ApiClient, type TestServer } from '../api/helpers/server.js';
import { awsDefaultVpc, freshMoto, type Moto } from '../helpers/moto.js';
import { requires } from '../helpers/requires.js';
import { PlayedMembers } from '../helpers/study-members.js';

const needs = requires('moto', 'tmpfs');
const reason = needs.missing('moto');
const BUCKET = 'volbench-service-studies';
const REGION = 'us-east-1';
const VOLUMES = ['gp3:1g', 'io2:4g:iops=400'];
const LABELS = ['gp3-1g', 'io2-4g-400iops'];
const STUDY_TOKEN = `study-token-${process.pid}`;
/** A bucket the operator allows and the account does not have: preflight's to find. */
const NO_BUCKET = 'volbench-service-studies-gone';

describe.skipIf(reason !== undefined)(`studies on the service, against moto${reason ? ` [skipped: ${reason}]` : ''}`, () => {
  let moto: Moto;
  let work: string;
  let server: TestServer;
  let studies: ApiClient;
  let s3: S3Client;
  let clients: FleetClients;
  let members: PlayedMembers;
  const saved: Record<string, string | undefined> = {};

  async function until<T>(what: string, look: () => Promise<T>, done: (x: T) => boolean, ms = 30_000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const x = await look();
      if (done(x)) return x;
      if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms; last ${JSON.stringify(x).slice(0, 600)}`);
      await new Promise((r) => setTimeout(r, 150));
    }
  }
  const study = (id: string) => studies.request('GET', `/v1/studies/${id}`).then((r) => r.body);

  beforeAll(async () => {
    moto = await freshMoto(REGION);
    // An internet gateway and its route, as every AWS default VPC has (preflight reads them).
    await awsDefaultVpc(moto, REGION);
    // The service's credentials are its own, from the SDK's chain: here, moto's in the environment.
    for (const [k, v] of Object.entries(moto.env)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
    work = mkdtempSync(join(tmpdir(), `volbench-service-studies-${process.pid}-`));
    writeFileSync(join(work, 'volbench-0.0.0-linux-x64.tar.gz'), 'a stand-in for the bundle');
    s3 = new S3Client({ region: REGION, endpoint: moto.endpoint, forcePathStyle: true, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    clients = fleetClients({ region: REGION, endpoint: moto.endpoint });
    members = new PlayedMembers(s3, BUCKET);
    server = await startServer({
      studies: {
        token: STUDY_TOKEN, bucket: BUCKET, buckets: [NO_BUCKET], maxCostUsd: 1, maxConcurrent: 1, regions: [REGION], volumeTypes: ['gp3', 'io2', 'st1'],
        packages: { files: { x64: join(work, 'volbench-0.0.0-linux-x64.tar.gz') } }, driver: 'loop', index: 'store', pollMs: 300, runningPollMs: 300, leaseSec: 8,
      },
    });
    studies = server.client.withToken(STUDY_TOKEN);
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    clients?.destroy();
    s3?.destroy();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('takes the study token only, and refuses what the operator did not allow, naming the limit, with the estimate', async () => {
    const runToken = await server.client.request('POST', '/v1/studies', { json: { volumes: VOLUMES, runtime: '2s' } });
    expect(runToken.status).toBe(401);
    expect((await studies.request('GET', '/v1/runs')).status).toBe(401);

    const costly = await studies.request('POST', '/v1/studies', { json: { volumes: ['io2:16t:iops=64000', 'io2:16t:iops=64000'], runtime: '2s' } });
    expect(costly.status, costly.text).toBe(422);
    expect(costly.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(costly.body).toMatchObject({ type: 'urn:volbench:problem:study-over-cost', limit: '--study-max-cost', estimated_usd: expect.any(Number) });
    expect(costly.body.estimated_usd).toBeGreaterThan(1);
    expect(costly.body.detail).toContain(`estimated at $${costly.body.estimated_usd.toFixed(2)}, above the $1.00`);

    const region = await studies.request('POST', '/v1/studies', { json: { volumes: VOLUMES, region: 'eu-west-1' } });
    expect(region.status).toBe(403);
    expect(region.body).toMatchObject({ type: 'urn:volbench:problem:study-not-allowed', field: 'region', limit: '--study-regions', accepted: REGION });
    expect(region.body.detail).toContain('region eu-west-1');
    // The estimate, as a refusal carries it: what the study would cost there.
    expect(region.body.estimated_usd).toBeGreaterThan(0);
    expect(region.body.detail).toContain(`estimated at $${region.body.estimated_usd.toFixed(2)}`);

    const type = await studies.request('POST', '/v1/studies', { json: { volumes: ['gp3:1g', 'sc1:1t'] } });
    expect(type.status).toBe(403);
    expect(type.body).toMatchObject({ field: 'volumes[1]', limit: '--study-volume-types', estimated_usd: expect.any(Number) });
    const elsewhere = await studies.request('POST', '/v1/studies', { json: { volumes: VOLUMES, bucket: 'not-allowed-bucket' } });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body).toMatchObject({ field: 'bucket', limit: '--study-bucket', estimated_usd: region.body.estimated_usd });

    const bad = await studies.request('POST', '/v1/studies', { json: { volumes: ['gp3:1g', 'gp9:1g'] } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'EVOLUME_TYPE', field: expect.stringMatching(/^volumes\[1\]/) });
    const small = await studies.request('POST', '/v1/studies', { json: { volumes: 'gp3:1g,io2:1g:iops=99999' } });
    expect(small.status).toBe(400);
    expect(small.body).toMatchObject({ code: 'EVOLUME_LIMIT', field: expect.stringMatching(/^volumes\[1\]/) });

    const store = await studies.request('POST', '/v1/studies', { json: { volumes: ['instance-store'] } });
    expect(store.status).toBe(400);
    expect(store.body).toMatchObject({ code: 'EVOLUME_PLACEMENT', field: 'instance' });
    expect(store.body.detail).toContain('m6i.large');
    const gone = await studies.request('POST', '/v1/studies', { json: { volumes: VOLUMES, bucket: NO_BUCKET } });
    expect(gone.status, gone.text).toBe(422);
    expect(gone.body).toMatchObject({ code: 'EPREFLIGHT', field: 'bucket' });
    expect(gone.body.detail).toContain('nothing was created');

    const tag = await studies.request('POST', '/v1/studies', { json: { volumes: VOLUMES, tags: { 'aws:owner': 'x' } } });
    expect(tag.status).toBe(400);
    expect(tag.body).toMatchObject({ field: 'tags.aws:owner' });
    const unknown = await studies.request('POST', '/v1/studies', { json: { volumes: VOLUMES, instance_type: 'm6i.large' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ field: 'instance_type', code: 'EINVALID_ARGS' });
    // Nothing was made by any of them.
    const objects = (await s3.send(new ListObjectsV2Command({ Bucket: BUCKET }))).Contents ?? [];
    expect(objects.map((o) => o.Key)).toEqual([]);
    expect((await studies.request('GET', '/v1/studies')).body).toEqual({ studies: [] });

    // A service started without --studies serves none, to either token.
    const off = await startServer();
    try {
      const refused = await off.client.request('POST', '/v1/studies', { json: { volumes: VOLUMES } });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ type: 'urn:volbench:problem:studies-disabled' });
      expect((await off.client.request('GET', '/v1/studies')).status).toBe(403);
    } finally {
      await off.close();
    }
  });

  it('starts a study with one POST and drives it to done; GET, the events and the report follow it', async () => {
    const created = await studies.request('POST', '/v1/studies', { json: { volumes: VOLUMES, runtime: '2s', tags: { CostCenter: 'cc-42' } } });
    expect(created.status, created.text).toBe(202);
    const { id, plan } = created.body;
    expect(id).toMatch(/^vb[0-9a-f]{10}$/);
    expect(created.headers.get('location')).toBe(`/v1/studies/${id}`);
    expect(plan).toMatchObject({ fleetId: id, region: REGION, instanceType: 'm6i.large', members: LABELS.map((label) => expect.objectContaining({ label })) });
    expect(plan.estimatedUsd).toBeLessThanOrEqual(1);
    // --study-max-concurrent 1: a second one waits for this one to end.
    const second = await studies.request('POST', '/v1/studies', { json: { volumes: ['gp3:1g'], runtime: '2s' } });
    expect(second.status, second.text).toBe(422);
    expect(second.body).toMatchObject({ type: 'urn:volbench:problem:too-many-studies', limit: '--study-max-concurrent', estimated_usd: expect.any(Number) });
    const events = readEvents(`${server.url}/v1/studies/${id}/events`, { authorization: `Bearer ${STUDY_TOKEN}` }, { timeoutMs: 50_000 });

    const running = await until('running', () => study(id), (s) => s.step === 'running');
    expect(running.members.map((m: { label: string; volume: string; stack: string }) => [m.label, m.volume, m.stack])).toEqual([
      [LABELS[0], 'gp3:1g', 'created'], [LABELS[1], 'io2:4g:iops=400', 'created'],
    ]);
    expect(running.lease.holder).toMatch(/^volbench serve [0-9a-f]{12} on /);
    const cfn = new CloudFormationClient({ region: REGION, endpoint: moto.endpoint });
    const stack = (await cfn.send(new DescribeStacksCommand({ StackName: `volbench-${id}-${LABELS[0]}` }))).Stacks![0];
    cfn.destroy();
    expect(stack.Tags).toContainEqual({ Key: 'CostCenter', Value: 'cc-42' });

    await members.progress(id, LABELS[0], 1, 4, 25, 90);
    await members.progress(id, LABELS[1], 2, 4, 50, 60);
    const moving = await until('progress', () => study(id), (s) => s.members.every((m: { progress?: unknown }) => m.progress));
    expect(moving).toMatchObject({ step: 'running', eta_s: 90, percent: 37.5 });
    // The loop looks every 300 ms: it has read the progress before the members are done.
    await new Promise((r) => setTimeout(r, 1200));
    await members.done(id, LABELS[0]);
    await members.done(id, LABELS[1]);
    const done = await until('done', () => study(id), (s) => s.step === 'done');
    expect(done.members.map((m: { collected?: string }) => m.collected)).toEqual(LABELS.map((l) => `s3://${BUCKET}/${id}/results/${l}.json`));
    expect(done.lease).toBeUndefined();

    const seen = (await events).events;
    expect(seen[0]).toMatchObject({ event: 'study', data: { id } });
    const steps = seen.filter((e) => e.event === 'step').map((e) => e.data.step);
    expect(steps).toEqual(['creating', 'running', 'collecting', 'reporting', 'tearing-down', 'done']);
    expect(seen.filter((e) => e.event === 'progress').map((e) => e.data.label).sort()).toEqual([...LABELS].sort());
    expect(seen.find((e) => e.event === 'report')?.data.report).toMatchObject({ verdicts: expect.any(Array) });
    expect(seen.at(-1)).toMatchObject({ event: 'study', data: { step: 'done' } });

    const report = await studies.request('GET', `/v1/studies/${id}/report?format=json`);
    expect(report.status, report.text).toBe(200);
    expect(report.body).toMatchObject({ context: expect.any(Object), verdicts: expect.any(Array) });
    expect(report.body.groups.flatMap((g: { rows: unknown[] }) => g.rows)).toHaveLength(2);
    const md = await studies.request('GET', `/v1/studies/${id}/report?format=md`);
    expect(md.headers.get('content-type')).toMatch(/^text\/markdown/);
    for (const label of LABELS) expect(md.text).toContain(label.split('-')[0]);

    const list = await studies.request('GET', '/v1/studies');
    expect(list.body.studies[0]).toMatchObject({ id, step: 'done', volumes: ['gp3:1g', 'io2:4g:iops=400'], links: { self: `/v1/studies/${id}` } });
  }, 90_000);

  it('DELETE cancels a study and tears it down; a study another driver holds is not advanced', async () => {
    const created = await studies.request('POST', '/v1/studies', { json: { volumes: ['gp3:1g'], runtime: '2s' } });
    expect(created.status, created.text).toBe(202);
    const { id } = created.body;
    await until('running', () => study(id), (s) => s.step === 'running');
    const cancelled = await studies.request('DELETE', `/v1/studies/${id}`);
    expect(cancelled.status).toBe(202);
    expect(cancelled.body.failure).toBe('cancelled (DELETE /v1/studies)');
    const failed = await until('failed', () => study(id), (s) => s.step === 'failed');
    expect(failed.members[0].error).toBe('cancelled');
    expect((await studies.request('DELETE', `/v1/studies/${id}`)).status).toBe(200);
    expect((await studies.request('GET', '/v1/studies/vb0000000000')).status).toBe(404);

    // Another driver's lease: the service asks again later and leaves the study where it is.
    const other = await studies.request('POST', '/v1/studies', { json: { volumes: ['gp3:1g'], runtime: '2s' } });
    const otherId = other.body.id;
    await until('running', () => study(otherId), (s) => s.step === 'running');
    await server.app.close();
    const lease = await HeldLease.take({ clients, bucket: BUCKET, fleetId: otherId, holder: 'another driver', leaseSec: 30, wait: true });
    server = await startServer({ dataDir: server.dataDir, studies: (server.app as unknown as { studies: { config: never } }).studies.config });
    studies = server.client.withToken(STUDY_TOKEN);
    await members.done(otherId, 'gp3-1g');
    await new Promise((r) => setTimeout(r, 1500));
    const held = await study(otherId);
    expect(held).toMatchObject({ step: 'running', lease: { holder: 'another driver' } });
    await lease.release();
    await until('done once released', () => study(otherId), (s) => s.step === 'done');
  }, 90_000);
});
