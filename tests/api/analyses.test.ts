/**
 * Analyses over HTTP: POST /v1/runs with "analysis" runs a sweep, a uniformity pass or the
 * rotational analysis through the same admission as a spec (roots, the roots' write opt-in,
 * limits) and the library's analysis; its events name each point or chunk; DELETE cancels it
 * with what it measured so far; refusals come before anything is queued. Short runs on tmpfs.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import { assertMatchesOpenApi } from './helpers/openapi.js';
import { attachLoop, type LoopDevice } from './helpers/loop.js';
import { startServer, type TestServer } from './helpers/server.js';
import { expectRefused } from './helpers/refused.js';
import { readEvents } from './helpers/sse.js';

const needs = requires('tmpfs', 'loop');

const MiB = 1024 * 1024;

let server: TestServer;
let outside: string;
beforeAll(async () => {
  server = await startServer({ maxRuntimeSec: 60, maxSizeBytes: 512 * MiB });
  outside = mkdtempSync(join('/dev/shm', `volbench-api-analysis-outside-${process.pid}-`));
});
afterAll(async () => {
  await server?.close();
  rmSync(outside, { recursive: true, force: true });
});

const sweepBody = (extra: Record<string, unknown> = {}) => ({
  analysis: 'sweep',
  jobs: [{ name: 'rr', filename: join(server.root, 'sweep.bin'), size: '16m', rw: 'randread', bs: '4k', direct: 1, runtime: '150ms', time_based: 1 }],
  max_depth: 8,
  ...extra,
});

describe('POST /v1/runs with an analysis', () => {
  it('runs a sweep: one document with an entry per point, the optimum, gates, and an event per point', async () => {
    const res = await server.client.submit(sweepBody({ assert: ['sweep.optimal_depth >= 1', 'rr-qd2.iops > 0'] }), '?wait=60');
    expect(res.status).toBe(200);
    assertMatchesOpenApi('POST', '/v1/runs', res);
    expect(res.body).toMatchObject({ status: 'finished', gate: 'passed', analysis: { analysis: 'sweep', max_depth: 8 } });
    const sweep = res.body.result.volbench.sweep;
    expect(sweep.points.map((p: { value: number }) => p.value)).toEqual([1, 2, 4, 8].slice(0, sweep.points.length));
    expect(res.body.result.jobs.map((j: { jobname: string }) => j.jobname)).toEqual(sweep.points.map((p: { value: number }) => `rr-qd${p.value}`));
    expect(sweep.optimum.value).toBeGreaterThanOrEqual(1);
    // The run's spec is its largest single run: the deepest point.
    expect(res.body.spec.jobs[0]).toMatchObject({ name: 'rr', iodepth: 8 });
    const stream = await readEvents(`${server.url}/v1/runs/${res.body.id}/events`, { authorization: `Bearer ${server.token}` });
    const steps = stream.events.filter((e) => e.event === 'analysis').map((e) => e.data);
    expect(steps.filter((s) => s.figures === undefined).map((s) => s.value)).toEqual(sweep.points.map((p: { value: number }) => p.value));
    const done = steps.filter((s) => s.figures !== undefined);
    expect(done.map((s) => [s.step, s.steps])).toEqual(sweep.points.map((_: unknown, i: number) => [i + 1, 4]));
    done.forEach((s, i) => expect(s.figures.iops).toBeCloseTo(sweep.points[i].iops, 4));
    const run = await server.client.get(`/v1/runs/${res.body.id}`);
    assertMatchesOpenApi('GET', '/v1/runs/{id}', run);
    expect(run.body.analysis).toEqual({ analysis: 'sweep', jobs: sweepBody().jobs, max_depth: 8 });
  });

  it('runs a uniformity pass with an event per chunk', async () => {
    const filename = join(server.root, 'u.bin');
    const res = await server.client.submit({ analysis: 'uniformity', filename, size: '64m', chunks: 8, probe: '1m', assert: ['uniformity.min_mbps > 0'] }, '?wait=60');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('finished');
    expect(res.body.gate).toBe('passed');
    const u = res.body.result.volbench.uniformity;
    expect(u.series).toHaveLength(8);
    expect(u.min_mbps).toBeLessThanOrEqual(u.avg_mbps);
    expect(u.avg_mbps).toBeLessThanOrEqual(u.max_mbps);
    const stream = await readEvents(`${server.url}/v1/runs/${res.body.id}/events`, { authorization: `Bearer ${server.token}` });
    const chunks = stream.events.filter((e) => e.event === 'analysis' && e.data.mbps !== undefined).map((e) => e.data);
    expect(chunks.map((c) => [c.step, c.steps, c.offset])).toEqual(u.series.map((c: { offset: number }, i: number) => [i + 1, 8, c.offset]));
  });

  it('cancels a running sweep with DELETE; the result holds the points that ran', async () => {
    const res = await server.client.submit(sweepBody({ jobs: [{ ...sweepBody().jobs[0], runtime: '2s' }], max_depth: 64 }));
    expect(res.status).toBe(202);
    const id = res.body.id;
    await server.client.waitForStatus(id, 'running');
    await new Promise((r) => setTimeout(r, 2500));
    // Progress names the point running now.
    const running = await server.client.get(`/v1/runs/${id}`);
    expect(running.body.progress.analysis_step).toMatchObject({ analysis: 'sweep', steps: 7 });
    const cancelled = await server.client.request('DELETE', `/v1/runs/${id}`);
    expect([200, 202]).toContain(cancelled.status);
    const run = await server.client.waitForEnd(id);
    expect(run.status).toBe('cancelled');
    const result = await server.client.get(`/v1/runs/${id}/result`);
    expect(result.body.volbench.sweep.stopped).toBe('cancelled');
    expect(result.body.volbench.sweep.points.length).toBeGreaterThanOrEqual(1);
    expect(result.body.volbench.sweep.points.length).toBeLessThan(7);
  });
});

describe('analysis runs refused before anything is queued', () => {
  const refused = (body: unknown, status: number, field: string) =>
    expectRefused(server.client, () => server.client.submit(body), status, field);

  it('an unknown analysis or field is 400 naming it, with the shapes analyses take', async () => {
    const body = await refused({ analysis: 'seqread' }, 400, 'analysis');
    expect(body.accepted).toContain('"analysis": "uniformity"');
    await refused({ analysis: 'uniformity', filename: join(server.root, 'x'), chunks: 0 }, 400, 'chunks');
    await refused({ analysis: 'rotational', allow_block_write: true }, 400, 'allow_block_write');
    await refused({ ...sweepBody(), jobs: [sweepBody().jobs[0], { name: 'b' }] }, 400, 'jobs');
  });

  it('a template setting what the sweep sets, or a gate the analysis cannot answer, is refused', async () => {
    await refused(sweepBody({ jobs: [{ ...sweepBody().jobs[0], iodepth: 4 }] }), 400, 'jobs[0].iodepth');
    const gate = await refused(sweepBody({ assert: ['uniformity.min_mbps >= 1'] }), 422, 'assert');
    expect(gate.detail).toContain('no uniformity result');
    await refused(sweepBody({ assert: ['sweep.optimal_depth'] }), 400, 'assert[0]');
  });

  it('paths outside the roots are 403, relative ones 400, and a directory root needs a filename', async () => {
    await refused({ analysis: 'uniformity', filename: join(outside, 'f'), size: '4m' }, 403, 'filename');
    await refused(sweepBody({ jobs: [{ ...sweepBody().jobs[0], filename: join(outside, 'f') }] }), 403, 'jobs[0].filename');
    await refused({ analysis: 'uniformity', filename: 'u.bin', size: '4m' }, 400, 'filename');
    await refused({ analysis: 'uniformity', size: '4m' }, 400, 'filename');
    expect(readdirSync(outside)).toEqual([]);
  });

  it('counts every point against --max-runtime (60s here)', async () => {
    // 4 points of 20 s: 80 s in all.
    const body = await refused(sweepBody({ jobs: [{ ...sweepBody().jobs[0], runtime: '20s' }] }), 422, 'jobs[0].runtime');
    expect(body.type).toBe('urn:volbench:problem:limit-exceeded');
  });

  it('the rotational analysis is refused where the target does not say it spins', async () => {
    const filename = join(server.root, 'r.bin');
    await server.client.submit({ analysis: 'uniformity', filename, size: '4m', chunks: 1, probe: '1m' }, '?wait=60');
    const body = await refused({ analysis: 'rotational', filename }, 422, 'force');
    expect(body.code).toBe('EINVALID_PLAN');
  });
});

const loopSkip = needs.missing('loop');

describe.skipIf(loopSkip !== undefined)(`analyses on block devices${loopSkip ? `: skipped, ${loopSkip}` : ''}`, () => {
  let device: LoopDevice;
  let devices: TestServer;
  beforeAll(async () => {
    device = attachLoop(16 * MiB);
    devices = await startServer({ extraRoots: [device.device] });
  });
  afterAll(async () => {
    await devices?.close();
    device?.release();
  });

  it('reads a device root whole with initialize, and writes it only where the root allows', async () => {
    const res = await devices.client.submit({ analysis: 'uniformity', filename: device.device, chunks: 4, initialize: true }, '?wait=60');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('finished');
    expect(res.body.result.jobs.reduce((n: number, j: { read: { io_bytes: number } }) => n + j.read.io_bytes, 0)).toBe(16 * MiB);
    const write = await devices.client.submit({ analysis: 'uniformity', filename: device.device, chunks: 4, probe: '1m', write: true });
    expect(write.status).toBe(403);
    const sweep = await devices.client.submit({ analysis: 'sweep', jobs: [{ name: 'w', filename: device.device, rw: 'randwrite', bs: '4k', direct: 1, runtime: '100ms', time_based: 1 }], max_depth: 2 });
    expect(sweep.status).toBe(403);
    const rotational = await devices.client.submit({ analysis: 'rotational', filename: device.device, force: true, samples: 8 }, '?wait=60');
    expect(rotational.body.status).toBe('finished');
    expect(rotational.body.result.volbench.rotational).toMatchObject({ forced: true, long_samples: 8, short_samples: 8 });
    expect(existsSync(device.device)).toBe(true);
  });
});
