/**
 * DELETE /v1/runs/{id}: a running run stops within a second and keeps its partial result; a
 * queued run never starts; a run that has ended is returned unchanged (DELETE is idempotent).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import { assertMatchesOpenApi } from './helpers/openapi.js';
import { randreadSpec, startServer, type TestServer } from './helpers/server.js';

const needs = requires('tmpfs', 'serial');

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ maxConcurrent: 1 });
});
afterAll(async () => server?.close());

async function waitForProgress(id: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const run = (await server.client.get(`/v1/runs/${id}`)).body;
    if (run.status === 'running' && run.progress !== null) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`run ${id} reported no progress`);
}

describe('DELETE /v1/runs/{id}', () => {
  it('stops a running run within 1 s, keeping what it measured, marked cancelled', async () => {
    const { body } = await server.client.submit(randreadSpec({ runtime: '30s' }));
    await waitForProgress(body.id);
    const asked = Date.now();
    const res = await server.client.request('DELETE', `/v1/runs/${body.id}`);
    expect(res.status).toBe(200);
    assertMatchesOpenApi('DELETE', '/v1/runs/{id}', res);
    expect(res.body.status).toBe('cancelled');
    expect(Date.parse(res.body.finished_at) - asked).toBeLessThanOrEqual(1000);
    const result = await server.client.get(`/v1/runs/${body.id}/result`);
    expect(result.status).toBe(200);
    expect(result.body.volbench.jobs[0].cancelled).toBe(true);
    expect(result.body.jobs[0].read.total_ios).toBeGreaterThan(0);
  });

  it('takes a queued run out of the queue: it never starts and has no result', async () => {
    const first = await server.client.submit(randreadSpec({ runtime: '30s' }));
    const second = await server.client.submit(randreadSpec());
    expect((await server.client.get(`/v1/runs/${second.body.id}`)).body.status).toBe('queued');
    const res = await server.client.request('DELETE', `/v1/runs/${second.body.id}`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('cancelled');
    expect(res.body.started_at).toBeNull();
    expect((await server.client.get(`/v1/runs/${second.body.id}/result`)).status).toBe(404);
    await server.client.request('DELETE', `/v1/runs/${first.body.id}`);
    const running = await server.client.get('/v1/runs?status=running');
    expect(running.body.runs).toEqual([]);
  });

  it('is idempotent: deleting an ended run again returns it unchanged', async () => {
    const { body } = await server.client.submit(randreadSpec(), '?wait=30');
    expect(body.status).toBe('finished');
    const once = await server.client.request('DELETE', `/v1/runs/${body.id}`);
    const twice = await server.client.request('DELETE', `/v1/runs/${body.id}`);
    expect(once.status).toBe(200);
    expect(twice.status).toBe(200);
    expect(once.body.status).toBe('finished');
    expect(twice.body).toEqual(once.body);
  });

  it('an unknown run is a 404', async () => {
    const res = await server.client.request('DELETE', '/v1/runs/nope');
    expect(res.status).toBe(404);
    assertMatchesOpenApi('DELETE', '/v1/runs/{id}', res);
  });
});
