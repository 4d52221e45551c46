/**
 * Errors are application/problem+json with the field that was wrong, never a stack trace:
 * library error codes map to 400 (does not parse) or 422 (cannot run here), Fastify's refusals
 * keep their status (413, 415), and the server's limits are 422 naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import { assertMatchesOpenApi } from './helpers/openapi.js';
import { randreadSpec, startServer, type TestServer } from './helpers/server.js';

const needs = requires('tmpfs');

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ bodyLimitBytes: 4096, maxRuntimeSec: 2, maxSizeBytes: 64 * 1024 * 1024, maxInstances: 4 });
});
afterAll(async () => server?.close());

async function problem(res: Awaited<ReturnType<typeof server.client.submit>>, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  assertMatchesOpenApi('POST', '/v1/runs', res);
  expect(res.text).not.toMatch(/\bat .*\.(ts|js):\d+/);
  return res.body;
}

describe('bad specs', () => {
  it('a value that does not parse is 400 with its field and what is accepted', async () => {
    const body = await problem(await server.client.submit(randreadSpec({ bs: '4q' })), 400);
    expect(body).toMatchObject({ code: 'EINVALID_VALUE', field: 'jobs[0].bs', status: 400 });
    expect(body.accepted).toBeTruthy();
  });

  it('an unknown option is 400 naming it', async () => {
    const body = await problem(await server.client.submit(randreadSpec({ blocksizee: '4k' })), 400);
    expect(body).toMatchObject({ code: 'EUNKNOWN_OPTION', field: 'jobs[0].blocksizee' });
  });

  it('a spec of the wrong shape is 400 with the path inside the body', async () => {
    const body = await problem(await server.client.submit({ jobs: [{ name: 'x', bs: { nested: 1 } }] }), 400);
    expect(body).toMatchObject({ code: 'EINVALID_SPEC', field: 'jobs[0].bs' });
    const empty = await problem(await server.client.submit({ jobs: [] }), 400);
    expect(empty.field).toBe('jobs');
    const extra = await problem(await server.client.submit({ jobs: [{ name: 'x' }], extra: 1 }), 400);
    expect(extra).toMatchObject({ code: 'EINVALID_SPEC', field: 'extra' });
  });

  it('options that cannot run together are 422 with the field', async () => {
    const body = await problem(await server.client.submit({ jobs: [{ name: 'x', rw: 'read', size: '1m', time_based: 1 }] }), 422);
    expect(body).toMatchObject({ code: 'EINVALID_PLAN', field: 'jobs[0].runtime' });
  });

  it('an unsupported option is 422', async () => {
    const body = await problem(await server.client.submit(randreadSpec({ openfiles: 1 })), 422);
    expect(body).toMatchObject({ code: 'EUNSUPPORTED_OPTION', field: 'jobs[0].openfiles' });
  });

  it('a target the library cannot use is 422', async () => {
    const body = await problem(await server.client.submit({ jobs: [{ name: 'x', rw: 'read', directory: `${server.root}/missing`, size: '1m' }] }), 422);
    expect(body).toMatchObject({ code: 'ETARGET', field: 'jobs[0].directory' });
  });

  it('broken JSON is 400, an unknown media type 415', async () => {
    const broken = await server.client.request('POST', '/v1/runs', { text: '{"jobs": [', headers: { 'content-type': 'application/json' } });
    expect((await problem(broken, 400)).type).toBe('urn:volbench:problem:invalid-json');
    const xml = await server.client.request('POST', '/v1/runs', { text: '<jobs/>', headers: { 'content-type': 'application/xml' } });
    expect((await problem(xml, 415)).type).toBe('urn:volbench:problem:unsupported-media-type');
  });

  it('an oversized body is 413', async () => {
    const big = randreadSpec({ description: 'x'.repeat(8192) });
    const body = await problem(await server.client.submit(big), 413);
    expect(body.type).toBe('urn:volbench:problem:body-too-large');
    const jobFile = await server.client.request('POST', '/v1/runs', { text: `[x]\n${'; padding\n'.repeat(1000)}` });
    expect(jobFile.status).toBe(413);
  });
});

describe('server limits', () => {
  it('a job longer than --max-runtime is 422 naming runtime', async () => {
    const body = await problem(await server.client.submit(randreadSpec({ runtime: '3s' })), 422);
    expect(body).toMatchObject({ type: 'urn:volbench:problem:limit-exceeded', field: 'jobs[0].runtime' });
    const ramp = await problem(await server.client.submit(randreadSpec({ runtime: '1s', ramp_time: '2s' })), 422);
    expect(ramp.field).toBe('jobs[0].runtime');
  });

  it('counts stonewall stages one after another against --max-runtime (2s here)', async () => {
    const stages = { global: { size: '1m', rw: 'randread', bs: '4k', time_based: 1 }, jobs: [
      { name: 'a', runtime: '1500ms' }, { name: 'b', runtime: '1s', stonewall: 1 },
    ] };
    const body = await problem(await server.client.submit(stages), 422);
    expect(body).toMatchObject({ type: 'urn:volbench:problem:limit-exceeded', field: 'jobs[0].runtime' });
    expect(body.detail).toContain('the run: 2.5s');
    // Jobs of one stage run together: their runtimes do not add up.
    stages.jobs[1] = { name: 'b', runtime: '1s' } as (typeof stages.jobs)[number];
    const together = await server.client.submit(stages, '?wait=20');
    expect(together.body.status).toBe('finished');
  });

  it('a size-based job gets --max-runtime as its runtime, so it stops in time', async () => {
    const res = await server.client.submit({ jobs: [{ name: 'slow', rw: 'read', bs: '4k', size: '8m', rate: '1m', direct: 1 }] }, '?wait=20');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('finished');
    // At 1 MiB/s the 8 MiB would take 8 s; capped at 2 s it moves about 2 MiB.
    const ioBytes = res.body.result.jobs[0].read.io_bytes;
    expect(ioBytes).toBeGreaterThan(0);
    expect(ioBytes).toBeLessThan(4 * 1024 * 1024);
  });

  it('a run addressing more than --max-size is 422 naming size', async () => {
    const body = await problem(await server.client.submit({ jobs: [{ name: 'big', rw: 'write', size: '65m', ioengine: 'psync' }] }), 422);
    expect(body).toMatchObject({ type: 'urn:volbench:problem:limit-exceeded', field: 'jobs[0].size' });
  });

  it('more job instances than the server allows is 422 naming numjobs', async () => {
    const body = await problem(await server.client.submit(randreadSpec({ numjobs: 5 })), 422);
    expect(body).toMatchObject({ type: 'urn:volbench:problem:limit-exceeded', field: 'jobs[0].numjobs' });
  });

  it('a run whose I/O buffers exceed --max-memory is 422 naming iodepth, before anything is stored', async () => {
    // bs × iodepth × numjobs: 64 MiB × 32 × 4 = 8 GiB of buffers, once accepted with 202.
    const spec = { jobs: [{ name: 'huge', rw: 'randread', bs: '64m', iodepth: 32, numjobs: 4, size: '64m', ioengine: 'null', runtime: '1s' }] };
    const small = await startServer({ maxMemoryBytes: 64 * 1024 * 1024 });
    try {
      const res = await small.client.submit(spec);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ type: 'urn:volbench:problem:limit-exceeded', field: 'jobs[0].iodepth' });
      expect(res.body.detail).toContain('bs 67108864 × iodepth 32 × numjobs 4');
      expect((await small.client.request('GET', '/v1/runs')).body.runs).toEqual([]);
    } finally {
      await small.close();
    }
    // The default is a quarter of the machine's memory; 8 GiB of buffers is over it on most.
    const byDefault = await server.client.submit({ jobs: [{ ...spec.jobs[0], numjobs: 4, bs: '256m' }] });
    expect(byDefault.status).toBe(422);
  });

  it('null-engine runs count against --max-size and queue one at a time', async () => {
    const big = await problem(await server.client.submit({ jobs: [{ name: 'n', rw: 'read', size: '65m', ioengine: 'null' }] }), 422);
    expect(big).toMatchObject({ type: 'urn:volbench:problem:limit-exceeded', field: 'jobs[0].size' });
    const busy = { jobs: [{ name: 'n', rw: 'randread', size: '1m', ioengine: 'null', time_based: 1, runtime: '1500ms' }] };
    const first = await server.client.submit(busy);
    await server.client.waitForStatus(first.body.id, 'running');
    const second = await server.client.submit(busy);
    expect(second.body.status).toBe('queued');
    expect((await server.client.request('GET', `/v1/runs/${second.body.id}`)).body.status).toBe('queued');
    expect((await server.client.waitForEnd(first.body.id)).status).toBe('finished');
    expect((await server.client.waitForEnd(second.body.id)).status).toBe('finished');
  });

  it('?target= must name a root', async () => {
    const body = await problem(await server.client.submit(randreadSpec(), '?target=%2Ftmp'), 400);
    expect(body.field).toBe('query.target');
  });
});
