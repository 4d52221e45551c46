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
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { serveConfig } from '../../src/cli/serve-command.js';
import { limitsOf, reportBudgetsOf } from '../../src/server/config.js';
import { errorOf } from '../helpers/errors.js';
import { assertMatchesOpenApi } from './helpers/openapi.js';
import { startServer, type StartOptions, type TestServer } from './helpers/server.js';
import { jobs64Result, storeFinishedRun } from '../helpers/stored-runs.js';

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

function threads(): number {
  return readdirSync('/proc/self/task').length;
}

/** Waits until the process has at most `count` threads (a terminated worker's goes at its exit). */
async function threadsBackTo(count: number): Promise<number> {
  const deadline = Date.now() + 10_000;
  while (threads() > count && Date.now() < deadline) await sleep(50);
  return threads();
}

describe('a report over a budget', () => {
  it('past --report-timeout is 422 report-too-large naming it, and its thread and memory go', async () => {
    const started = await serverWithHeavyRuns({ reportTimeoutSec: 1 });
    server = started.server;
    const [id] = started.ids;
    // A small report first: the thread is up (ECharts loaded), the baseline counts it.
    expect((await server.client.get(`/v1/runs/${started.small}/report?format=md`)).status).toBe(200);
    const baseline = threads();
    const rssBefore = process.memoryUsage().rss;
    const res = await server.client.get(`/v1/runs/${id}/report?format=html`);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ type: 'urn:volbench:problem:report-too-large', status: 422, field: '--report-timeout' });
    expect(res.body.detail).toContain('within 1 s');
    assertMatchesOpenApi('GET', '/v1/runs/{id}/report', res);
    // The killed thread is gone (a new one replaces it only for the next render), and the
    // hundred MiB or more of heap it held mid-render with it.
    expect(await threadsBackTo(baseline - 1)).toBeLessThanOrEqual(baseline - 1);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(64 * MiB);
  }, 60_000);

  it('outgrowing --report-memory or over --report-max-size is 422 report-too-large naming it', async () => {
    // The small run's HTML report is 46 KiB, its Markdown under 1 KiB, its result in fio's JSON
    // 9 KiB; the 64-job run's result alone needs more heap than 48 MiB to parse.
    const started = await serverWithHeavyRuns({ reportMemoryBytes: 48 * MiB, reportMaxBytes: 4 * 1024 });
    server = started.server;
    const md = await server.client.get(`/v1/runs/${started.small}/report?format=md`);
    expect(md.status).toBe(200);
    expect(md.text).toContain('| Label |');
    const html = await server.client.get(`/v1/runs/${started.small}/report?format=html`);
    expect(html.status).toBe(422);
    expect(html.body).toMatchObject({ type: 'urn:volbench:problem:report-too-large', field: '--report-max-size' });
    expect(html.body.detail).toMatch(/^the report is 4\d KiB, more than the 4 KiB a report may be/);
    // A run's own result is its data: the answer budget does not cut it.
    const result = await server.client.get(`/v1/runs/${started.small}/result`);
    expect(result.status).toBe(200);
    expect(result.text.length).toBeGreaterThan(4 * 1024);
    expect(result.body.jobs[0].jobname).toBe('mixed');
    for (const path of [`/v1/report?run=${started.ids[0]}&format=html`, `/v1/runs/${started.ids[0]}/result?format=json`]) {
      const heavy = await server.client.get(path);
      expect(heavy.status, path).toBe(422);
      expect(heavy.body, path).toMatchObject({ type: 'urn:volbench:problem:report-too-large', field: '--report-memory' });
    }
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
    const { server: s, ids: [a, b] } = queued;
    // Three different reports at once: one renders, one waits, the third has no room.
    const answers = await Promise.all([
      s.client.get(`/v1/runs/${a}/report?format=json`),
      s.client.get(`/v1/runs/${b}/report?format=json`),
      s.client.get(`/v1/report?run=${a}&run=${b}&format=json`),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 429]);
    const refused = answers.find((r) => r.status === 429)!;
    expect(refused.body).toMatchObject({ type: 'urn:volbench:problem:report-queue-full', status: 429 });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    assertMatchesOpenApi('GET', '/v1/report', refused);
  }, 60_000);

  it('drops a waiting request whose client went away, and ends a render no one waits for', async () => {
    const { server: s, ids: [a, b], small: c } = queued;
    const headers = { authorization: `Bearer ${s.token}` };
    expect((await s.client.get(`/v1/runs/${c}/report?format=md`)).status).toBe(200);
    const baseline = threads();
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
    // The abandoned HTML render's thread was ended; the CSV one took a new thread.
    expect(await threadsBackTo(baseline)).toBeLessThanOrEqual(baseline);
  }, 60_000);

  it('takes ?run= naming one run fifty times as that run: one row, not fifty', async () => {
    const { server: s, ids: [a] } = queued;
    const res = await s.client.get(`/v1/report?${Array.from({ length: 50 }, () => `run=${a}`).join('&')}&format=json`);
    expect(res.status).toBe(200);
    expect(res.body.groups).toHaveLength(1);
    expect(res.body.groups[0].rows.map((r: { label: string }) => r.label)).toEqual([a]);
  }, 60_000);
});

describe('the budgets as an operator sets them', () => {
  const quiet = { stdout: process.stdout, stderr: { write: () => true } as unknown as NodeJS.WriteStream };
  const flags = (argv: string[]) => serveConfig(['--data-dir', tmpdir(), ...argv], { VOLBENCH_TOKEN: 't' }, quiet);

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
