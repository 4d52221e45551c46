/**
 * A study outlives its service: `volbench serve --studies` killed with SIGKILL mid-study (its
 * service process goes with it), then started again on the same data directory, takes every
 * study it owned on again from its index and its state in S3, at once (the lease its earlier
 * life held is its own: the data directory's lock proves that process gone), and drives it to
 * done. A client of its events that reconnects with the Last-Event-ID the killed service gave
 * gets every event the restarted one kept (an id names the service's life). Against moto server;
 * the members' objects are written by the test as a member would.
 */
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';

import { ensureBuilt, spawnServe, waitForExit, type ServeChild } from '../api/helpers/child.js';
import { readEvents } from '../api/helpers/sse.js';
import { awsDefaultVpc, freshMoto, type Moto } from '../helpers/moto.js';
import { requires } from '../helpers/requires.js';
import { PlayedMembers } from '../helpers/study-members.js';

const needs = requires('child', 'moto', 'dist');
const reason = needs.missing('moto');
const BUCKET = 'volbench-serve-restart';
const REGION = 'us-east-1';
const LABELS = ['gp3-1g', 'io2-4g-400iops'];

describe.skipIf(reason !== undefined)(`a study across a kill -9 of its service${reason ? ` [skipped: ${reason}]` : ''}`, () => {
  let moto: Moto;
  let work: string;
  let s3: S3Client;
  let serve: ServeChild | undefined;
  const studyToken = `study-${process.pid}-restart`;

  beforeAll(async () => {
    ensureBuilt();
    moto = await freshMoto(REGION);
    // An internet gateway and its route, as every AWS default VPC has (preflight reads them).
    await awsDefaultVpc(moto, REGION);
    s3 = new S3Client({ region: REGION, endpoint: moto.endpoint, forcePathStyle: true, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    work = mkdtempSync(join(tmpdir(), `volbench-serve-restart-${process.pid}-`));
    for (const [name, text] of [['run-token', `run-${process.pid}`], ['study-token', studyToken]]) {
      writeFileSync(join(work, name), text);
      chmodSync(join(work, name), 0o600);
    }
    writeFileSync(join(work, 'volbench-0.0.0-linux-x64.tar.gz'), 'a stand-in for the bundle');
  }, 60_000);

  afterAll(async () => {
    if (serve) {
      serve.child.kill('SIGTERM');
      await waitForExit(serve.child);
    }
    s3?.destroy();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const start = () => spawnServe([
    '--data-dir', join(work, 'data'), '--target-root', work, '--token-file', join(work, 'run-token'), '--studies', '--study-token-file', join(work, 'study-token'),
    '--study-bucket', BUCKET, '--study-max-cost', '5', '--study-regions', REGION, '--study-package', join(work, 'volbench-0.0.0-linux-x64.tar.gz'),
  ], { ...moto.env, VOLBENCH_STUDY_POLL_MS: '300' });

  async function api(method: string, path: string, json?: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(`${serve!.url}${path}`, {
      method, headers: { authorization: `Bearer ${studyToken}`, ...(json ? { 'content-type': 'application/json' } : {}) }, body: json ? JSON.stringify(json) : undefined,
    });
    return { status: res.status, body: await res.json() };
  }

  async function until(step: string, id: string, ms: number): Promise<any> {
    const end = Date.now() + ms;
    for (;;) {
      const { body } = await api('GET', `/v1/studies/${id}`);
      if (body.step === step) return body;
      if (Date.now() > end) throw new Error(`study ${id} not ${step} within ${ms} ms: ${JSON.stringify(body).slice(0, 800)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  it('resumes every study it owned after kill -9 and a restart, and drives it to done', async () => {
    serve = await start();
    const created = await api('POST', '/v1/studies', { volumes: ['gp3:1g', 'io2:4g:iops=400'], runtime: '2s' });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const { id } = created.body;
    const running = await until('running', id, 30_000);
    const holder: string = running.lease.holder;
    expect(holder).toMatch(/^volbench serve [0-9a-f]{12} on .* pid \d+$/);
    const auth = { authorization: `Bearer ${studyToken}` };
    const before = (await readEvents(`${serve.url}/v1/studies/${id}/events`, auth, { maxEvents: 3, timeoutMs: 10_000 })).events;
    const lastId = before.filter((e) => e.id !== null).at(-1)!.id!;
    expect(lastId).toMatch(/^[0-9a-f]{8}-\d+$/);

    const servicePid = serve.servicePid;
    serve.child.kill('SIGKILL');
    await waitForExit(serve.child);
    for (let i = 0; i < 50 && existsSync(`/proc/${servicePid}`); i++) await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(`/proc/${servicePid}`)).toBe(false);
    const killedAt = Date.now();
    const members = new PlayedMembers(s3, BUCKET);
    for (const label of LABELS) await members.done(id, label);

    serve = await start();
    const done = await until('done', id, 30_000);
    // Resumed at once, not after the dead process's lease (60 s) expired.
    expect(Date.now() - killedAt).toBeLessThan(45_000);
    expect(done.members.map((m: { collected?: string }) => m.collected)).toEqual(LABELS.map((l) => `s3://${BUCKET}/${id}/results/${l}.json`));
    const list = await api('GET', '/v1/studies');
    expect(list.body.studies).toEqual([expect.objectContaining({ id, step: 'done' })]);
    // Reconnected with the killed life's id: every event of this life, its numbering begun again.
    const after = (await readEvents(`${serve.url}/v1/studies/${id}/events`, { ...auth, 'last-event-id': lastId }, { timeoutMs: 10_000 })).events;
    const life = lastId.split('-')[0];
    expect(after.filter((e) => e.id !== null).every((e) => !e.id!.startsWith(`${life}-`))).toBe(true);
    expect(after.filter((e) => e.event === 'collected').map((e) => e.data.label).sort()).toEqual(LABELS);
    expect(after.filter((e) => e.event === 'step').map((e) => e.data.step)).toContain('done');
  }, 120_000);
});
