/**
 * The report budgets (security review, third round: a report drawn on the event loop stalled
 * the service and grew it to 1.17 GB). Reports render on threads of their own; expected:
 * - a render past --report-timeout, one that outgrows --report-memory and an answer over
 *   --report-max-size are each answered 422 `report-too-large`, `field` naming the budget, and
 *   a thread ended for its deadline or its memory takes its memory with it;
 * - past --report-concurrency renders and --report-queue-limit waiting ones, a request is
 *   refused at once with 429 `report-queue-full` and Retry-After;
 * - a request whose client went away leaves the queue (its render ends if it had started);
 * - ?run= naming one run fifty times is that run's report (one row).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { serveConfig } from '../../src/cli/serve-command.js';
import { limitsOf, reportBudgetsOf } from '../../src/server/config.js';
import { errorOf } from '../helpers/errors.js';
import { requires } from '../helpers/requires.js';
import { assertMatchesOpenApi } from './helpers/openapi.js';
import { startServer, type StartOptions, type TestServer } from './helpers/server.js';
import { jobs64Result, storeFinishedRun } from '../helpers/stored-runs.js';

const needs = requires('tmpfs', 'serial');

const MiB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const heavy = jobs64Result();
const dirs: string[] = [];
let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const small = readFileSync(new URL('../fixtures/publish/custom-randrw.json', import.meta.url), 'utf8');

/**
 * A server whose store holds the 64-job run twice (two distinct reports) and a small run (its
 * report renders in milliseconds: it starts the render thread).
 */
async function serverWithHeavyRuns(options: StartOptions): Promise<{ server: TestServer; ids: string[]; small: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), `volbench-budgets-${process.pid}-`));
  dirs.push(dataDir);
  const ids = [storeFinishedRun(dataDir, heavy), storeFinishedRun(dataDir, heavy)];
  return { server: await startServer({ dataDir, ...options }), ids, small: storeFinishedRun(dataDir, small) };
}

/** The service's report render threads alive (its volbench_report_threads gauge). */
async function renderThreads(s: TestServer): Promise<number> {
  const text = (await s.client.get('/v1/metrics')).text;
  return Number(/^volbench_report_threads (\d+)$/m.exec(text)?.[1]);
}

/** Waits until the service has at most `count` render threads (a terminated one goes at its exit). */
async function threadsBackTo(s: TestServer, count: number): Promise<number> {
  const deadline = Date.now() + 10_000;
  let now = await renderThreads(s);
  while (now > count && Date.now() < deadline) {
    await sleep(50);
    now = await renderThreads(s);
  }
  return now;
}

describe('a report over a budget', () => {
  it('past --report-timeout is 422 report-too-large naming it, and its thread ends', async () => {
    const started = await serverWithHeavyRuns({ reportTimeoutSec: 1 });
    server = started.server;
    const res = await server.client.get(`/v1/runs/${started.ids[0]}/report?format=html`);
    assertMatchesOpenApi('GET', '/v1/runs/{id}/report', res);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ type: 'urn:volbench:problem:report-too-large', status: 422, field: '--report-timeout' });
    expect(res.body.detail).toContain('within 1 s');
    // The thread was terminated, not left to finish (a new one starts only for the next render).
    expect(await threadsBackTo(server, 0)).toBe(0);
  }, 60_000);

  it('outgrowing --report-memory or over --report-max-size is 422 report-too-large naming it', async () => {
    // The small run's HTML report is tens of KiB, its Markdown under 1 KiB, its result in fio's JSON
    // 9 KiB; the 64-job run's result alone needs more heap than 48 MiB to parse.
    const started = await serverWithHeavyRuns({ reportMemoryBytes: 48 * MiB, reportMaxBytes: 4 * 1024 });
    server = started.server;
    const md = await server.client.get(`/v1/runs/${started.small}/report?format=md`);
    expect(md.status).toBe(200);
    expect(md.text).toContain('| Label |');
    const html = await server.client.get(`/v1/runs/${started.small}/report?format=html`);
    expect(html.status).toBe(422);
    expect(html.body).toMatchObject({ type: 'urn:volbench:problem:report-too-large', field: '--report-max-size' });
    expect(html.body.detail).toMatch(/^the report is \d+ KiB, more than the 4 KiB a report may be/);
    // A run's own result is its data: the answer budget does not cut it.
    const result = await server.client.get(`/v1/runs/${started.small}/result`);
    expect(result.status).toBe(200);
    expect(result.text.length).toBeGreaterThan(4 * 1024);
    expect(result.body.jobs[0].jobname).toBe('mixed');
    // Each thread V8 ends holds at least its 48 MiB heap: none of it may stay behind. (The
    // allocator keeps what the first one used for the threads after it: a plateau, not growth.)
    const rss: number[] = [];
    for (const path of [1, 2, 3].map((i) => (i % 2 ? `/v1/report?run=${started.ids[0]}&format=html` : `/v1/runs/${started.ids[0]}/result?format=json`))) {
      const heavy = await server.client.get(path);
      expect(heavy.status, path).toBe(422);
      expect(heavy.body, path).toMatchObject({ type: 'urn:volbench:problem:report-too-large', field: '--report-memory' });
      expect(await threadsBackTo(server, 0)).toBe(0);
      rss.push(process.memoryUsage().rss);
    }
    expect(rss[2] - rss[0]).toBeLessThan(96 * MiB);
    assertMatchesOpenApi('GET', '/v1/report', html);
    // The thread V8 ended is replaced for the next report.
    expect((await server.client.get(`/v1/runs/${started.small}/report?format=csv`)).status).toBe(200);
  }, 60_000);
});

describe('the render queue', () => {
  let queued: { server: TestServer; ids: string[]; small: string };
  beforeAll(async () => {
    queued = await serverWithHeavyRuns({ reportConcurrency: 1, reportQueueLimit: 1 });
  }, 60_000);
  afterAll(async () => queued?.server.close());

  it('refuses a render past the threads and the queue with 429 and Retry-After', async () => {
    const { server: s, ids: [a, b], small: c } = queued;
    // Three different reports at once: one renders, one waits, the third has no room.
    const answers = await Promise.all([
      s.client.get(`/v1/runs/${a}/report?format=json`),
      s.client.get(`/v1/runs/${b}/report?format=json`),
      s.client.get(`/v1/report?run=${a}&run=${b}&format=json`),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 429]);
    // A small report (not HTML) is drawn at once on the event loop: it never waits for a thread.
    const rendering = new AbortController();
    const busy = fetch(`${s.url}/v1/runs/${a}/report?format=html`, { headers: { authorization: `Bearer ${s.token}` }, signal: rendering.signal }).catch(() => null);
    await sleep(200);
    const small = await Promise.all([s.client.get(`/v1/runs/${c}/report?format=csv`), s.client.get(`/v1/runs/${c}/result?format=normal`)]);
    expect(small.map((r) => r.status)).toEqual([200, 200]);
    expect(small[1].text).toContain('mixed: (groupid=0');
    rendering.abort();
    await busy;
    const refused = answers.find((r) => r.status === 429)!;
    expect(refused.body).toMatchObject({ type: 'urn:volbench:problem:report-queue-full', status: 429 });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    assertMatchesOpenApi('GET', '/v1/report', refused);
  }, 60_000);

  it('drops a waiting request whose client went away, and ends a render no one waits for', async () => {
    const { server: s, ids: [a, b], small: c } = queued;
    const headers = { authorization: `Bearer ${s.token}` };
    const rendering = new AbortController();
    const waiting = new AbortController();
    const first = fetch(`${s.url}/v1/runs/${a}/report?format=html`, { headers, signal: rendering.signal }).catch((e: Error) => e);
    await sleep(300);
    const second = fetch(`${s.url}/v1/runs/${b}/report?format=html`, { headers, signal: waiting.signal }).catch((e: Error) => e);
    await sleep(300);
    waiting.abort();
    await second;
    await sleep(200);
    // The queue has room again: a third report is taken (it waits behind the first).
    const third = s.client.get(`/v1/report?run=${a}&run=${c}&format=csv`);
    rendering.abort();
    await first;
    const res = await third;
    expect(res.status).toBe(200);
    expect(res.text.split('\r\n')[0]).toMatch(/^Suite,Label,/);
    // The abandoned HTML render's thread was ended; the CSV one took a thread (idle now).
    expect(await threadsBackTo(s, 1)).toBe(1);
  }, 60_000);

  it('takes ?run= naming one run fifty times as that run: one row, not fifty', async () => {
    const { server: s, ids: [a] } = queued;
    const res = await s.client.get(`/v1/report?${Array.from({ length: 50 }, () => `run=${a}`).join('&')}&format=json`);
    expect(res.status).toBe(200);
    expect(res.body.groups).toHaveLength(1);
    // One row, named by its target; the run it came from is its source.
    expect(res.body.groups[0].rows.map((r: { source: string }) => r.source)).toEqual([a]);
  }, 60_000);
});

describe('the budgets as an operator sets them', () => {
  const quiet = { stdout: process.stdout, stderr: { write: () => true } as unknown as NodeJS.WriteStream };
  const flags = (argv: string[]) => serveConfig(['--data-dir', tmpdir(), '--target-root', tmpdir(), ...argv], { VOLBENCH_TOKEN: 't' }, quiet);

  it('default to a 30 s deadline, a 20 MiB answer, a 256 MiB heap, two threads and eight waiting', () => {
    expect(reportBudgetsOf(limitsOf(flags([])))).toEqual({ timeoutMs: 30_000, maxBytes: 20 * MiB, memoryBytes: 256 * MiB, concurrency: 2, queueLimit: 8 });
  });

  it('are changed by the flags of volbench serve', () => {
    const config = flags(['--report-timeout', '500ms', '--report-max-size', '5m', '--report-memory', '1g', '--report-concurrency', '1', '--report-queue-limit', '0']);
    expect(reportBudgetsOf(limitsOf(config))).toEqual({ timeoutMs: 500, maxBytes: 5 * MiB, memoryBytes: 1024 * MiB, concurrency: 1, queueLimit: 0 });
    for (const [flag, value] of [['--report-timeout', '0'], ['--report-max-size', '0'], ['--report-memory', 'lots'], ['--report-concurrency', '0']]) {
      expect(errorOf(() => flags([flag, value])).field, flag).toBe(flag);
    }
  });
});
