/**
 * Pipeline gates over HTTP: assertions come with a JSON spec or suite ("assert") or with a fio
 * job file (?assert=, repeatable). They are checked before anything is stored; after the run
 * their outcomes are in the run record (assertions, gate) and in fio's JSON under
 * volbench.assertions. Failing assertions leave the run finished: the gate is separate.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import { assertMatchesOpenApi } from './helpers/openapi.js';
import { expectRefused } from './helpers/refused.js';
import { randreadSpec, startServer, type ApiResponse, type TestServer } from './helpers/server.js';

const needs = requires('tmpfs');

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server?.close());

const HOLDS = 'rr.iops > 0';
const FAILS = 'rr.read.iops >= 1G';

function refused(send: () => Promise<ApiResponse>, status: number, field: string) {
  return expectRefused(server.client, send, status, field);
}

describe('assertions on a JSON spec', () => {
  let id: string;

  it('are judged after the run: the run is finished, the gate failed, each outcome recorded', async () => {
    const res = await server.client.submit({ ...randreadSpec(), assert: [HOLDS, FAILS, 'rr.error == 0'] }, '?wait=30');
    expect(res.status).toBe(200);
    assertMatchesOpenApi('POST', '/v1/runs', res);
    expect(res.body.status).toBe('finished');
    expect(res.body.error).toBeNull();
    expect(res.body.gate).toBe('failed');
    expect(res.body.spec).toEqual(randreadSpec());
    expect(res.body.assert).toEqual([HOLDS, FAILS, 'rr.error == 0']);
    const iops = res.body.result.jobs[0].read.iops;
    expect(res.body.assertions.map((a: { passed: boolean }) => a.passed)).toEqual([true, false, true]);
    expect(res.body.assertions[0]).toMatchObject({ expr: HOLDS, job: 'rr', dir: 'read', metric: 'iops', op: '>', wanted: 0, unit: 'IOPS' });
    expect(res.body.assertions[0].measured).toBeCloseTo(iops);
    expect(res.body.assertions[1]).toMatchObject({ expr: FAILS, wanted: 1e9, passed: false });
    expect(res.body.assertions[2]).toMatchObject({ dir: null, metric: 'error', measured: 0, unit: 'errno' });
    expect(res.body.result.volbench.assertions).toEqual(res.body.assertions);
    id = res.body.id;
  });

  it('are in the run record and in the stored fio JSON', async () => {
    const run = await server.client.get(`/v1/runs/${id}`);
    assertMatchesOpenApi('GET', '/v1/runs/{id}', run);
    expect(run.body).toMatchObject({ status: 'finished', gate: 'failed', suite: null });
    const stored = await server.client.get(`/v1/runs/${id}/result?format=json%2B`);
    assertMatchesOpenApi('GET', '/v1/runs/{id}/result', stored);
    expect(stored.body.volbench.assertions).toEqual(run.body.assertions);
  });

  it('that all hold pass the gate; a run without assertions has none', async () => {
    const passed = await server.client.submit({ ...randreadSpec(), assert: [HOLDS, 'rr.clat_ns.p99 < 10s'] }, '?wait=30');
    expect(passed.body).toMatchObject({ status: 'finished', gate: 'passed' });
    const plain = await server.client.submit(randreadSpec(), '?wait=30');
    expect(plain.body).toMatchObject({ gate: null, assert: [], assertions: [] });
    expect(plain.body.result.volbench.assertions).toBeUndefined();
  });

  it('GET /v1/runs filters by gate outcome', async () => {
    const failed = await server.client.get('/v1/runs?gate=failed&limit=100');
    assertMatchesOpenApi('GET', '/v1/runs', failed);
    expect(failed.body.runs.map((r: { id: string }) => r.id)).toContain(id);
    expect(failed.body.runs.every((r: { gate: string }) => r.gate === 'failed')).toBe(true);
    const passed = await server.client.get('/v1/runs?gate=passed&limit=100');
    expect(passed.body.runs.length).toBeGreaterThan(0);
    expect(passed.body.runs.every((r: { gate: string }) => r.gate === 'passed')).toBe(true);
    const bad = await server.client.get('/v1/runs?gate=maybe');
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('query.gate');
  });

  it('a malformed assertion is 400 naming assert[i], and nothing is stored', async () => {
    const body = await refused(() => server.client.submit({ ...randreadSpec(), assert: [HOLDS, 'rr.iops >> 3'] }), 400, 'assert[1]');
    expect(body.type).toBe('urn:volbench:problem:invalid-assertion');
    expect(body.accepted).toContain('<job>[.<dir>].<metric> <op> <value>');
    const unit = await refused(() => server.client.submit({ ...randreadSpec(), assert: ['rr.bw >= 500'] }), 400, 'assert[0]');
    expect(unit.detail).toContain("'500' is not a bandwidth");
    await refused(() => server.client.submit({ ...randreadSpec(), assert: 'rr.iops > 0' }), 400, 'assert');
  });

  it('an assertion on a job, direction or metric the run will not report is 422 naming it', async () => {
    const job = await refused(() => server.client.submit({ ...randreadSpec(), assert: ['nope.iops > 0'] }), 422, 'assert[0]');
    expect(job).toMatchObject({ type: 'urn:volbench:problem:assertion-not-applicable', accepted: 'one of: rr' });
    await refused(() => server.client.submit({ ...randreadSpec(), assert: [HOLDS, 'rr.write.iops > 0'] }), 422, 'assert[1]');
    await refused(() => server.client.submit({ ...randreadSpec(), assert: ['rr.lat_ns.p99 < 1ms'] }), 422, 'assert[0]');
  });

  it('?assert= is for job files: with a JSON body it is 400', async () => {
    await refused(() => server.client.submit(randreadSpec(), `?assert=${encodeURIComponent(HOLDS)}`), 400, 'query.assert');
  });
});

describe('assertions on a fio job file (?assert=)', () => {
  const jobFile = '[global]\ndirect=1\nsize=8m\n\n[seq]\nrw=read\nbs=64k\nruntime=1s\ntime_based\n';
  const post = (query: string) => server.client.request('POST', `/v1/runs${query}`, { text: jobFile });
  const q = (...asserts: string[]) => asserts.map((a) => `assert=${encodeURIComponent(a)}`).join('&');

  it('one or several, judged like a JSON spec\'s', async () => {
    const one = await post(`?wait=30&${q('seq.bw > 1KiB/s')}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ status: 'finished', gate: 'passed', assert: ['seq.bw > 1KiB/s'] });
    const two = await post(`?wait=30&${q('seq.io_bytes > 0', 'seq.clat_ns.mean < 1ns')}`);
    expect(two.body.status).toBe('finished');
    expect(two.body.gate).toBe('failed');
    expect(two.body.assertions.map((a: { metric: string; passed: boolean }) => [a.metric, a.passed])).toEqual([['io_bytes', true], ['clat_ns.mean', false]]);
    expect(two.body.result.volbench.assertions).toEqual(two.body.assertions);
  });

  it('a bad one is refused naming query.assert[i]', async () => {
    await refused(() => post(`?${q('seq.iops > 0', 'seq.iops')}`), 400, 'query.assert[1]');
    await refused(() => post(`?${q('rr.iops > 0')}`), 422, 'query.assert[0]');
  });
});
