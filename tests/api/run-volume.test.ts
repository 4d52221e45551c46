/**
 * POST /v1/runs with `volume`: the service checks it before queueing, keeps it with the run,
 * and the result says what that volume should have delivered (volbench.cloud and each job's
 * entitlement), for a spec run and a suite run alike; a volume the type does not allow is a
 * 400 naming the field in the request's terms.
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

describe('a run with a volume', () => {
  it('a spec run: kept with the run, and the result entitled by it', async () => {
    const volume = { type: 'gp3', size_gib: 200, iops: 5000, instance: 'm6i.large' };
    const res = await server.client.submit({ ...randreadSpec({ runtime: '300ms' }), volume }, '?wait=30');
    expect(res.status).toBe(200);
    assertMatchesOpenApi('POST', '/v1/runs', res);
    expect(res.body.volume).toEqual(volume);
    const cloud = res.body.result.volbench.cloud;
    expect(cloud).toEqual({ provider: 'aws', instance_type: 'm6i.large', volume: { type: 'gp3', size_gib: 200, iops: 5000, throughput_mibps: 125 } });
    const e = res.body.result.volbench.jobs[0].entitlement;
    expect(e).toMatchObject({ bs: 4096, entitled: { iops: 5000 } });
    expect(e.measured_iops).toBeCloseTo(res.body.result.jobs[0].read.iops, 6);
    const again = await server.client.get(`/v1/runs/${res.body.id}`);
    expect(again.body.volume).toEqual(volume);
    // The report prices it from the catalog.
    const report = await server.client.get(`/v1/runs/${res.body.id}/report?format=json`);
    expect(report.body.groups[0].rows[0]).toMatchObject({ type: 'gp3', size_gib: 200, provisioned_iops: 5000 });
    expect(report.body.groups[0].rows[0].usd_per_month).toBeGreaterThan(0);
  });

  it('a suite run: one volbench.cloud, an entitlement per test', async () => {
    const res = await server.client.submit({ suite: 'aws-ssd', runtime: '150ms', size: '8m', loops: 1, volume: { type: 'io2', size_gib: 100, iops: 10000 } }, '?wait=60');
    expect(res.status).toBe(200);
    expect(res.body.volume).toEqual({ type: 'io2', size_gib: 100, iops: 10000 });
    const vb = res.body.result.volbench;
    expect(vb.cloud.volume).toEqual({ type: 'io2', size_gib: 100, iops: 10000 });
    expect(vb.jobs.length).toBeGreaterThan(1);
    for (const job of vb.jobs) expect(job.entitlement.entitled.iops).toBeGreaterThan(0);
  });

  it('a run without one has volume null', async () => {
    const res = await server.client.submit(randreadSpec({ runtime: '100ms' }), '?wait=30');
    expect(res.body.volume).toBeNull();
    expect(res.body.result.volbench.cloud).toBeUndefined();
  });

  it('refuses a volume the type does not allow, naming the field, before anything is queued', async () => {
    const before = (await server.client.get('/v1/runs')).body.runs.length;
    const cases: Array<[object, string, RegExp]> = [
      [{ type: 'gp3', size_gib: 10, iops: 20000 }, 'volume.iops', /at most 500 IOPS per GiB/],
      [{ type: 'st1', size_gib: 10 }, 'volume.size_gib', /125–16384 GiB/],
      [{ type: 'gp3', size_gib: 100, instance: 'm6i.largee' }, 'volume.instance', /did you mean 'm6i.large'/],
      [{ type: 'gp4', size_gib: 100 }, 'volume.type', /did you mean 'gp3'/],
    ];
    for (const [volume, field, detail] of cases) {
      const res = await server.client.submit({ ...randreadSpec(), volume });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      assertMatchesOpenApi('POST', '/v1/runs', res);
      expect(res.body.field).toBe(field);
      expect(res.body.detail).toMatch(detail);
    }
    const shape = await server.client.submit({ ...randreadSpec(), volume: { type: 'gp3', size_gib: 100, speed: 'fast' } });
    expect(shape.status).toBe(400);
    expect(shape.body.field).toBe('volume.speed');
    expect((await server.client.get('/v1/runs')).body.runs.length).toBe(before);
  });
});
