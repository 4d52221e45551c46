/**
 * The run lifecycle over real HTTP: submit, poll, fetch fio's output in each format, wait for a
 * run inline, post a fio job file, and page through the list. Every response is checked against
 * the committed openapi.yaml.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import { assertMatchesOpenApi } from './helpers/openapi.js';
import { randreadSpec, startServer, type TestServer } from './helpers/server.js';

const needs = requires('tmpfs');

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server?.close());

describe('POST /v1/runs then poll', () => {
  let id: string;

  it('answers 202 with the run id, its status and links, and a Location header', async () => {
    const res = await server.client.submit(randreadSpec());
    expect(res.status).toBe(202);
    assertMatchesOpenApi('POST', '/v1/runs', res);
    expect(res.body.links).toEqual({
      self: `/v1/runs/${res.body.id}`,
      result: `/v1/runs/${res.body.id}/result`,
      events: `/v1/runs/${res.body.id}/events`,
    });
    expect(res.headers.get('location')).toBe(`/v1/runs/${res.body.id}`);
    expect(['queued', 'running']).toContain(res.body.status);
    id = res.body.id;
  });

  it('GET /v1/runs/{id} shows the spec, timestamps and progress, then the finished run', async () => {
    const run = await server.client.waitForEnd(id);
    expect(run.status).toBe('finished');
    expect(run.spec).toEqual(randreadSpec());
    expect(run.targets).toEqual([server.root]);
    expect(Date.parse(run.finished_at)).toBeGreaterThanOrEqual(Date.parse(run.started_at));
    expect(Date.parse(run.started_at)).toBeGreaterThanOrEqual(Date.parse(run.created_at));
    expect(run.error).toBeNull();
    expect(run.progress.read.iops).toBeGreaterThanOrEqual(0);
    const res = await server.client.get(`/v1/runs/${id}`);
    assertMatchesOpenApi('GET', '/v1/runs/{id}', res);
  });

  it("the result is fio's JSON with the library's structure, the job laid out under the root", async () => {
    const res = await server.client.get(`/v1/runs/${id}/result`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    assertMatchesOpenApi('GET', '/v1/runs/{id}/result', res);
    expect(res.text.startsWith('{\n  "fio version" : "volbench-')).toBe(true);
    const job = res.body.jobs[0];
    expect(job.jobname).toBe('rr');
    expect(job.error).toBe(0);
    expect(job.read.total_ios).toBeGreaterThan(0);
    expect(job.read.io_bytes).toBe(job.read.total_ios * 4096);
    expect(Object.keys(job.read.clat_ns.percentile)).toContain('99.000000');
    expect(job.read.clat_ns.bins).toBeUndefined();
    expect(res.body.volbench.jobs[0]).toMatchObject({ jobname: 'rr', cancelled: false, error_message: '' });
    expect(res.body.volbench.targets[0].path).toBe(`${server.root}/rr.0.0`);
  });

  it('json+ keeps the histogram bins, normal is fio\'s text', async () => {
    const plus = await server.client.get(`/v1/runs/${id}/result?format=json%2B`);
    expect(plus.status).toBe(200);
    expect(Object.keys(plus.body.jobs[0].read.clat_ns.bins).length).toBeGreaterThan(0);
    const normal = await server.client.get(`/v1/runs/${id}/result?format=normal`);
    expect(normal.status).toBe(200);
    expect(normal.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    assertMatchesOpenApi('GET', '/v1/runs/{id}/result', normal);
    expect(normal.text).toMatch(/^rr: \(groupid=0, jobs=1\): err= 0/);
    expect(normal.text).toContain('Run status group 0 (all jobs):');
  });

  it('an unknown format is a 400 problem naming the parameter', async () => {
    const res = await server.client.get(`/v1/runs/${id}/result?format=xml`);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(res.body.field).toBe('query.format');
  });
});

describe('POST /v1/runs?wait', () => {
  it('returns 200 with the finished run and its fio JSON when the run ends in time', async () => {
    const res = await server.client.submit(randreadSpec(), '?wait=30');
    expect(res.status).toBe(200);
    assertMatchesOpenApi('POST', '/v1/runs', res);
    expect(res.body.status).toBe('finished');
    expect(res.body.result['fio version']).toMatch(/^volbench-/);
    expect(res.body.result.jobs[0].read.total_ios).toBeGreaterThan(0);
    // The plain json form: json+ bins are not in it.
    expect(res.body.result.jobs[0].read.clat_ns.bins).toBeUndefined();
  });

  it('returns 202 when the run outlasts the wait', async () => {
    const res = await server.client.submit(randreadSpec({ runtime: '3s' }), '?wait=0.2');
    expect(res.status).toBe(202);
    expect(res.body.status).toBe('running');
    await server.client.waitForEnd(res.body.id);
  });

  it('a run that has not ended has no result yet: 409', async () => {
    const res = await server.client.submit(randreadSpec({ runtime: '2s' }));
    const early = await server.client.get(`/v1/runs/${res.body.id}/result`);
    expect(early.status).toBe(409);
    assertMatchesOpenApi('GET', '/v1/runs/{id}/result', early);
    await server.client.waitForEnd(res.body.id);
  });
});

describe('fio job files as text/plain', () => {
  it('run the same way as a JSON spec, with the echo fio prints for a job file', async () => {
    const jobFile = `; a comment\n[global]\ndirect=1\nsize=8m\n\n[seq]\nrw=read\nbs=64k\nruntime=1s\ntime_based\n`;
    const res = await server.client.request('POST', '/v1/runs?wait=30', { text: jobFile });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('finished');
    expect(res.body.spec).toEqual({ global: { direct: '1', size: '8m' }, jobs: [{ name: 'seq', rw: 'read', bs: '64k', runtime: '1s', time_based: true }] });
    const job = res.body.result.jobs[0];
    expect(job.jobname).toBe('seq');
    // The section header names the job, so fio's echo has no name= (a JSON spec's would).
    expect(job['job options']).toMatchObject({ rw: 'read', bs: '64k', runtime: '1s' });
    expect(job['job options'].name).toBeUndefined();
    expect(res.body.result['global options']).toEqual({ direct: '1', size: '8m' });
  });

  it("may not read the server's environment: ${VAR} is refused with 400", async () => {
    const res = await server.client.request('POST', '/v1/runs', { text: '[x]\nfilename=${HOME}/x\nrw=read\n' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('EJOBFILE');
  });
});

describe('GET /v1/runs', () => {
  it('pages newest first with a cursor and filters by status and target', async () => {
    const all = await server.client.get('/v1/runs?limit=100');
    expect(all.status).toBe(200);
    assertMatchesOpenApi('GET', '/v1/runs', all);
    const total = all.body.runs.length;
    expect(total).toBeGreaterThanOrEqual(5);
    const seen: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page = await server.client.get(`/v1/runs?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.body.runs.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.runs.map((r: { id: string }) => r.id));
      cursor = page.body.next_cursor;
    }
    expect(seen).toEqual(all.body.runs.map((r: { id: string }) => r.id));
    const created = all.body.runs.map((r: { created_at: string }) => Date.parse(r.created_at));
    expect([...created].sort((a, b) => b - a)).toEqual(created);
    const finished = await server.client.get('/v1/runs?status=finished&limit=100');
    expect(finished.body.runs.every((r: { status: string }) => r.status === 'finished')).toBe(true);
    expect(finished.body.runs.length).toBe(all.body.runs.filter((r: { status: string }) => r.status === 'finished').length);
    const byTarget = await server.client.get(`/v1/runs?target=${encodeURIComponent(server.root)}&limit=100`);
    expect(byTarget.body.runs.length).toBe(total);
    const other = await server.client.get('/v1/runs?target=%2Fnowhere');
    expect(other.body.runs).toEqual([]);
  });

  it('refuses a cursor it did not hand out', async () => {
    const res = await server.client.get('/v1/runs?cursor=bogus');
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('query.cursor');
  });

  it('an unknown run is a 404 problem', async () => {
    const res = await server.client.get('/v1/runs/00000000-0000-0000-0000-000000000000');
    expect(res.status).toBe(404);
    assertMatchesOpenApi('GET', '/v1/runs/{id}', res);
  });
});
