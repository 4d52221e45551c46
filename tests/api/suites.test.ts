/**
 * Suites over HTTP: GET /v1/suites lists the shipped job files; POST /v1/runs with "suite" runs
 * one through the same admission as a spec (roots, limits) and the library's suite runner, test
 * by test with loops, into one fio document; its events name each test and loop. Runs are
 * shortened (4 MiB, 1 s, one or two loops) on tmpfs.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { suitesDirectory } from '../../src/suites/index.js';
import { requires } from '../helpers/requires.js';
import { assertMatchesOpenApi } from './helpers/openapi.js';
import { attachLoop, type LoopDevice } from './helpers/loop.js';
import { startServer, type TestServer } from './helpers/server.js';
import { expectRefused } from './helpers/refused.js';
import { readEvents } from './helpers/sse.js';

const needs = requires('tmpfs', 'loop');

const MiB = 1024 * 1024;
const KDISKMARK_JOBS = [
  'SEQ1M-Q8T1-read', 'SEQ1M-Q1T1-read', 'RND4K-Q32T1-read', 'RND4K-Q1T1-read',
  'SEQ1M-Q8T1-write', 'SEQ1M-Q1T1-write', 'RND4K-Q32T1-write', 'RND4K-Q1T1-write',
];
const SHORT = { size: '4m', runtime: 1 };

let server: TestServer;
let outside: string;
beforeAll(async () => {
  server = await startServer({ maxRuntimeSec: 60, maxSizeBytes: 256 * MiB });
  outside = mkdtempSync(join('/dev/shm', `volbench-api-suite-outside-${process.pid}-`));
});
afterAll(async () => {
  await server?.close();
  rmSync(outside, { recursive: true, force: true });
});

describe('GET /v1/suites', () => {
  it('lists all six suites with their job names and job files', async () => {
    const res = await server.client.get('/v1/suites');
    expect(res.status).toBe(200);
    assertMatchesOpenApi('GET', '/v1/suites', res);
    const suites = res.body.suites;
    expect(suites.map((s: { name: string }) => s.name)).toEqual(['ars', 'kdiskmark', 'kdiskmark-nvme', 'aws-ssd', 'aws-hdd', 'initialize']);
    for (const suite of suites) {
      expect(suite.job_file).toBe(readFileSync(join(suitesDirectory(), suite.file), 'utf8'));
      for (const job of suite.jobs) expect(suite.job_file).toContain(`[${job}]`);
    }
    const kdiskmark = suites.find((s: { name: string }) => s.name === 'kdiskmark');
    expect(kdiskmark).toMatchObject({ loops: 5, target: 'any', file: 'kdiskmark.fio', jobs: KDISKMARK_JOBS });
    expect(suites.find((s: { name: string }) => s.name === 'initialize')).toMatchObject({ loops: 1, target: 'block_device', jobs: ['SEQ1M-Q32T1-read'] });
  });

  it('GET /v1/suites/{name} returns one; an unknown name is a 404 problem listing the names', async () => {
    const one = await server.client.get('/v1/suites/aws-ssd');
    expect(one.status).toBe(200);
    assertMatchesOpenApi('GET', '/v1/suites/{name}', one);
    expect(one.body.jobs).toEqual(['RND16K-Q1T16-write', 'RND16K-Q1T16-read']);
    const missing = await server.client.get('/v1/suites/crystal');
    expect(missing.status).toBe(404);
    assertMatchesOpenApi('GET', '/v1/suites/{name}', missing);
    expect(missing.body.accepted).toContain('kdiskmark');
  });
});

describe('POST /v1/runs with a suite', () => {
  it('runs kdiskmark test by test with loops and answers with the merged fio document and its gate', async () => {
    const assert = ['RND4K-Q32T1-read.iops > 0', 'SEQ1M-Q8T1-write.bw >= 1TB/s', 'RND4K-Q1T1-write.error == 0'];
    const res = await server.client.submit({ suite: 'kdiskmark', ...SHORT, loops: 2, assert }, '?wait=60');
    expect(res.status).toBe(200);
    assertMatchesOpenApi('POST', '/v1/runs', res);
    // An assertion fails, the I/O ran clean: finished, and the gate failed.
    expect(res.body.status).toBe('finished');
    expect(res.body.gate).toBe('failed');
    expect(res.body.assert).toEqual(assert);
    expect(res.body.assertions.map((a: { job: string; dir: string | null; passed: boolean }) => [a.job, a.dir, a.passed])).toEqual([
      ['RND4K-Q32T1-read', 'read', true], ['SEQ1M-Q8T1-write', 'write', false], ['RND4K-Q1T1-write', null, true],
    ]);
    expect(res.body.result.volbench.assertions).toEqual(res.body.assertions);
    expect(res.body.suite).toEqual({ name: 'kdiskmark', loops: 2, size: '4m', runtime: 1 });
    expect(res.body.targets).toEqual([server.root]);
    const result = res.body.result;
    expect(result.jobs.map((j: { jobname: string }) => j.jobname)).toEqual(KDISKMARK_JOBS);
    expect(result.jobs.every((j: { error: number }) => j.error === 0)).toBe(true);
    expect(result.volbench.suite).toMatchObject({ name: 'kdiskmark', loops: 2, runs: 16 });
    expect(result.volbench.jobs.map((j: { loops: { count: number } }) => j.loops.count)).toEqual(KDISKMARK_JOBS.map(() => 2));
    // The run's spec is the suite's job file with the overrides, in the default root.
    expect(res.body.spec.global).toMatchObject({ directory: server.root, size: '4m', runtime: '1', filename: 'kdiskmark.tmp' });
    // The suite's shared test file is removed after its last test, as the library does.
    expect(existsSync(join(server.root, 'kdiskmark.tmp'))).toBe(false);
    const stored = await server.client.get(`/v1/runs/${res.body.id}/result`);
    assertMatchesOpenApi('GET', '/v1/runs/{id}/result', stored);
    expect(stored.body.volbench.suite.runs).toBe(16);
    expect(stored.body.volbench.assertions).toEqual(res.body.assertions);
    const run = await server.client.get(`/v1/runs/${res.body.id}`);
    assertMatchesOpenApi('GET', '/v1/runs/{id}', run);
    expect(run.body).toMatchObject({ gate: 'failed', assertions: res.body.assertions, suite: res.body.suite });
  });

  it('streams a test event per test and loop, and progress naming the current test', async () => {
    const directory = join(server.root, 'hdd');
    mkdirSync(directory);
    const res = await server.client.submit({ suite: 'aws-hdd', directory, ...SHORT }, '?wait=60');
    expect(res.body.status).toBe('finished');
    const stream = await readEvents(`${server.url}/v1/runs/${res.body.id}/events`, { authorization: `Bearer ${server.token}` });
    const tests = stream.events.filter((e) => e.event === 'test').map((e) => e.data);
    expect(tests).toEqual([
      { id: res.body.id, test: 1, tests: 2, loop: 1, loops: 1, jobs: ['SEQ1M-Q8T1-read'] },
      { id: res.body.id, test: 2, tests: 2, loop: 1, loops: 1, jobs: ['SEQ1M-Q8T1-write'] },
    ]);
    const progress = stream.events.filter((e) => e.event === 'progress');
    expect(progress.length).toBeGreaterThan(0);
    for (const p of progress) expect(p.data.suite_test.tests).toBe(2);
    expect(stream.events[stream.events.length - 1]).toMatchObject({ event: 'finished', data: { gate: null } });
    expect(res.body.progress.suite_test).toMatchObject({ test: 2, jobs: ['SEQ1M-Q8T1-write'] });
    expect(readdirSync(directory)).toEqual([]);
  });

  it('takes ?target= as the default root, like a spec', async () => {
    const extra = mkdtempSync(join('/dev/shm', `volbench-api-suite-extra-${process.pid}-`));
    const second = await startServer({ extraRoots: [extra] });
    try {
      const res = await second.client.submit({ suite: 'aws-ssd', ...SHORT }, `?wait=60&target=${encodeURIComponent(extra)}`);
      expect(res.body.status).toBe('finished');
      expect(res.body.targets).toEqual([extra]);
      expect(res.body.result.volbench.targets.every((t: { path: string }) => t.path.startsWith(`${extra}/`))).toBe(true);
    } finally {
      await second.close();
      rmSync(extra, { recursive: true, force: true });
    }
  });
});

describe('suite runs refused before anything is queued', () => {
  const refused = (body: unknown, status: number, field: string) =>
    expectRefused(server.client, () => server.client.submit(body), status, field);

  it('an unknown suite is 400 naming suite, with the shape a suite run takes', async () => {
    const body = await refused({ suite: 'crystal', directory: server.root }, 400, 'suite');
    expect(body.accepted).toContain('kdiskmark');
  });

  it('a malformed assertion is 400 naming assert[i]; one naming a job the suite lacks is 422', async () => {
    const malformed = await refused({ suite: 'kdiskmark', ...SHORT, assert: ['SEQ1M-Q8T1-read.iops'] }, 400, 'assert[0]');
    expect(malformed.type).toBe('urn:volbench:problem:invalid-assertion');
    const unknown = await refused({ suite: 'kdiskmark', ...SHORT, assert: ['SEQ1M-Q8T1-read.iops > 0', 'RND4K-Q32T1.iops > 0'] }, 422, 'assert[1]');
    expect(unknown.accepted).toContain('RND4K-Q32T1-read');
  });

  it('a field of the wrong type or an unknown one is 400 naming it', async () => {
    await refused({ suite: 'kdiskmark', loops: 0 }, 400, 'loops');
    // The server decides block device writes from its roots, never from the request.
    await refused({ suite: 'kdiskmark', allow_block_write: true }, 400, 'allow_block_write');
    await refused({ suite: 'kdiskmark', jobs: [{ name: 'x' }] }, 400, 'jobs');
  });

  it('a directory outside the roots is 403 naming directory; a relative one is 400', async () => {
    const body = await refused({ suite: 'kdiskmark', directory: outside, ...SHORT }, 403, 'directory');
    expect(body.detail).toContain(outside);
    await refused({ suite: 'ars', filename: join(outside, 'f'), ...SHORT }, 403, 'filename');
    await refused({ suite: 'ars', directory: 'data', ...SHORT }, 400, 'directory');
    expect(readdirSync(outside)).toEqual([]);
  });

  it('counts every test and loop against --max-runtime (60s here)', async () => {
    // kdiskmark: 8 tests of 2 s, 5 loops: 80 s in all.
    const body = await refused({ suite: 'kdiskmark', size: '4m', runtime: 2 }, 422, 'runtime');
    expect(body.detail).toContain('over 5 loops');
  });

  it('a test longer than --max-runtime is 422 naming runtime; a shorter runtime fits', async () => {
    const body = await refused({ suite: 'aws-hdd', size: '4m' }, 422, 'runtime');
    expect(body.type).toBe('urn:volbench:problem:limit-exceeded');
    expect(body.detail).toMatch(/^suite aws-hdd: job SEQ1M-Q8T1-read would run 180s/);
  });

  it('a suite addressing more than --max-size is 422 naming size', async () => {
    const body = await refused({ suite: 'kdiskmark', runtime: 1 }, 422, 'size');
    expect(body.type).toBe('urn:volbench:problem:limit-exceeded');
  });

  it('initialize on a directory is 422: it reads a whole block device', async () => {
    const body = await refused({ suite: 'initialize' }, 422, 'filename');
    expect(body.code).toBe('ETARGET');
  });
});

const loopSkip = needs.missing('loop');

describe.skipIf(loopSkip !== undefined)(`suites on block devices${loopSkip ? `: skipped, ${loopSkip}` : ''}`, () => {
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

  it('initialize reads a device root that may not be written', async () => {
    const res = await devices.client.submit({ suite: 'initialize', filename: device.device }, '?wait=60');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('finished');
    expect(res.body.result.jobs[0].read.io_bytes).toBe(16 * MiB);
  });

  it('a suite that writes is refused on it with 403 naming filename', async () => {
    const res = await devices.client.submit({ suite: 'kdiskmark', filename: device.device, ...SHORT });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ type: 'urn:volbench:problem:block-write-not-allowed', field: 'filename' });
  });
});
