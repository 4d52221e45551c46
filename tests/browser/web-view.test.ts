/**
 * The service's web view in chromium, against a real service, asserting on what a user sees.
 *
 * Broke: a run's page said only "Run <uuid>" (no spec, no target), showed no fio output, said
 * "gate passed" without the assertions, had no Cancel, drew a write line at 0 for a read job,
 * kept the newest seconds at the bottom of a scroll box; the runs list never refreshed; the
 * compare view named runs by UUID only. Expected: the spec and target in the run page's title,
 * fio's normal text and JSON, each assertion measured against wanted, a Cancel that cancels,
 * a live view with IOPS, MiB/s, latency, % done and ETA (newest first, only the directions the
 * job does), a list that shows new runs and changed statuses by itself, and runs compared by
 * target (or volume) with the run id beside it. Nothing is requested from anywhere but the
 * service. Screenshots go to tests/artifacts/.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { randreadSpec, startServer, type TestServer } from '../api/helpers/server.js';
import { requires } from '../helpers/requires.js';
import { artifactsDir, launch, watch, type PageGlobals, type Watched } from './browser.js';

const needs = requires('child', 'tmpfs', 'chromium');

declare const document: PageGlobals;
declare const echarts: PageGlobals;
declare const sessionStorage: PageGlobals;

let server: TestServer;
let browser: Browser;
let page: Page;
let seen: Watched;
/** Ended runs: one with assertions (one holds, one fails), one on a named volume. */
const ids = { gated: '', volume: '', live: '', late: '' };

const text = (sel: string): Promise<string> => page.$eval(sel, (e: PageGlobals) => e.textContent);

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(needs.missing('chromium') !== undefined)('web view in chromium', () => {
  beforeAll(async () => {
    server = await startServer();
    const gated = await server.client.submit({ ...randreadSpec({ iodepth: 8 }), assert: ['rr.iops >= 1', 'rr.clat_ns.p99 <= 1ns'] }, '?wait=30');
    ids.gated = gated.body.id;
    const volume = await server.client.submit({ ...randreadSpec({ runtime: '500ms' }), volume: { type: 'gp3', size_gib: 200, iops: 5000 } }, '?wait=30');
    ids.volume = volume.body.id;
    browser = await launch();
    page = await browser.newPage();
    seen = watch(page);
    await page.setViewport({ width: 1280, height: 900 });
  });

  afterAll(async () => {
    await browser?.close();
    for (const id of [ids.live, ids.late]) if (id) await server?.client.request('DELETE', `/v1/runs/${id}`);
    await server?.close();
  });

  it('logs in with the token, kept in sessionStorage only', async () => {
    await page.goto(`${server.url}/`, { waitUntil: 'load' });
    expect(await page.$eval('#login', (e: PageGlobals) => e.hidden)).toBe(false);
    // Where to find the token, on the page that asks for it.
    expect(await text('#token-where')).toContain('~/.local/share/volbench/token');
    await page.type('#token', 'wrong-token');
    await page.click('#login-form button');
    await page.waitForFunction(() => document.querySelector('#login-error').textContent.includes('refused'));
    await page.type('#token', server.token);
    await page.click('#login-form button');
    await page.waitForSelector('#runs:not([hidden]) #runs-table tbody tr');
    expect(await page.evaluate(() => sessionStorage.getItem('volbench-token'))).toBe(server.token);
    // The refused token's 401 is the only console error a browser logs here; nothing else.
    seen.errors.splice(0);
  });

  it('the runs list shows a new run and its end by itself', async () => {
    const refreshes = async (): Promise<number> => Number(await page.$eval('#refreshed', (e: PageGlobals) => e.dataset.refreshes ?? 0));
    const before = await refreshes();
    const res = await server.client.submit(randreadSpec({ runtime: '2s' }));
    ids.late = res.body.id;
    // No click: the list asks the service again on its own.
    await page.waitForSelector(`#runs-table tr[data-run="${ids.late}"]`, { timeout: 15_000 });
    expect(await refreshes()).toBeGreaterThan(before);
    const firstRow = await page.$eval('#runs-table tbody tr', (tr: PageGlobals) => tr.dataset.run);
    expect(firstRow).toBe(ids.late);
    await page.waitForSelector(`#runs-table tr[data-run="${ids.late}"][data-status="finished"]`, { timeout: 20_000 });
    const iops = await page.$eval(`#runs-table tr[data-run="${ids.late}"] td.num`, (td: PageGlobals) => td.textContent);
    expect(Number(iops.replace(/,/g, ''))).toBeGreaterThan(0);
    ids.late = '';
  });

  it('stays logged in across a reload, and filters as GET /v1/runs does, refresh after refresh', async () => {
    await page.goto(`${server.url}/#/`, { waitUntil: 'load' });
    await page.waitForSelector('#runs-table tbody tr');
    expect(await page.$eval('#login', (e: PageGlobals) => e.hidden)).toBe(true);
    const long = await server.client.submit(randreadSpec({ runtime: '30s' }));
    await server.client.waitForStatus(long.body.id, 'running');
    await page.select('#filters select[name="status"]', 'finished');
    await page.click('#filters button');
    const expected = (await server.client.get('/v1/runs?status=finished')).body.runs.map((r: { id: string }) => r.id);
    const shown = (): Promise<string[]> => page.$$eval('#runs-table tbody tr', (trs: PageGlobals[]) => trs.map((tr) => tr.dataset.run));
    await waitFor('the filtered list', async () => JSON.stringify(await shown()) === JSON.stringify(expected));
    const count = Number(await page.$eval('#refreshed', (e: PageGlobals) => e.dataset.refreshes));
    await page.waitForFunction((n: number) => Number(document.querySelector('#refreshed').dataset.refreshes) > n, { timeout: 10_000 }, count);
    expect(await shown()).toEqual(expected);
    await server.client.request('DELETE', `/v1/runs/${long.body.id}`);
    await server.client.waitForEnd(long.body.id);
    await page.select('#filters select[name="status"]', '');
    await page.click('#filters button');
  });

  it("a finished run's page says what ran, its assertions, fio's text and JSON, and its report", async () => {
    const run = (await server.client.get(`/v1/runs/${ids.gated}`)).body;
    await page.goto(`${server.url}/#/runs/${ids.gated}`, { waitUntil: 'load' });
    await page.waitForSelector('#run-report:not([hidden]) iframe');
    const title = await text('#run-title');
    expect(title).toBe(`rr: randread bs=4k iodepth=8 on ${server.root}`);
    expect(await page.title()).toBe(`${title} · volbench`);
    expect(await text('#run-id')).toBe(ids.gated);
    expect(await text('#run-facts')).toMatch(/^finished · started .* · took \dm \d\ds · gate failed$/);
    // Each assertion: measured against wanted, as the service judged it.
    const rows = await page.$$eval('#assertions tbody tr', (trs: PageGlobals[]) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
    expect(rows.map((r: string[]) => [r[0], r[3]])).toEqual([['rr.iops >= 1', 'passed'], ['rr.clat_ns.p99 <= 1ns', 'failed']]);
    for (const [i, outcome] of run.assertions.entries()) expect(`measured ${rows[i][1]}, wanted ${rows[i][2]}`).toBe(outcome.message);
    // fio's normal text as the service stores it, and its JSON.
    const normal = (await server.client.get(`/v1/runs/${ids.gated}/result?format=normal`)).text;
    expect(await text('#fio-normal')).toBe(normal);
    expect(normal).toMatch(/^rr: \(groupid=0, jobs=1\): err= 0: /m);
    const json = JSON.parse(await text('#fio-json pre'));
    expect(json.jobs[0].jobname).toBe('rr');
    expect(json.jobs[0].read.iops).toBe(run.result?.jobs?.[0]?.read?.iops ?? json.jobs[0].read.iops);
    expect(await page.$eval('#live', (e: PageGlobals) => e.hidden)).toBe(true);
    expect(await page.$eval('#run-actions', (e: PageGlobals) => e.hidden)).toBe(true);
    const frame = await (await page.$('#run-report iframe'))!.contentFrame();
    await frame.waitForSelector('table.report');
    await page.screenshot({ path: join(artifactsDir(), 'web-run-finished.png'), fullPage: true });
  });

  it('a run on a named volume says the volume in its title', async () => {
    await page.goto(`${server.url}/#/runs/${ids.volume}`, { waitUntil: 'load' });
    await page.waitForSelector('#run-report:not([hidden]) iframe');
    expect(await text('#run-title')).toBe(`rr: randread bs=4k on ${server.root} (gp3 200 GiB, 5000 IOPS)`);
    expect(await text('#run-facts')).toContain('volume gp3 200 GiB, 5000 IOPS');
  });

  it('a running run shows IOPS, MiB/s, latency, % done and ETA, newest first, and Cancel stops it', async () => {
    const res = await server.client.submit(randreadSpec({ runtime: '30s' }));
    ids.live = res.body.id;
    await server.client.waitForStatus(ids.live, 'running');
    await page.goto(`${server.url}/#/runs/${ids.live}`, { waitUntil: 'load' });
    await page.waitForSelector('#live:not([hidden])');
    const points = async (): Promise<number> => Number(await page.$eval('#live-chart', (e: PageGlobals) => e.dataset.points));
    await waitFor('three points', async () => (await points()) >= 3);
    // What is on screen now, each figure by name.
    const figures: Record<string, string> = await page.$$eval('#live-now .figure', (fs: PageGlobals[]) =>
      Object.fromEntries(fs.map((f) => [f.dataset.figure, f.querySelector('.value').textContent])));
    expect(Object.keys(figures)).toEqual(['done', 'eta', 'read-iops', 'read-mibps', 'read-lat']);
    expect(Number(figures['read-iops'].replace(/,/g, ''))).toBeGreaterThan(0);
    expect(figures['read-mibps']).toMatch(/^[\d.]+ MiB\/s$/);
    expect(figures['read-lat']).toMatch(/^[\d.]+ (ns|µs|ms) \/ [\d.]+ (ns|µs|ms)$/);
    const done = Number(figures.done.replace('%', ''));
    expect(done).toBeGreaterThan(0);
    expect(done).toBeLessThan(100);
    expect(figures.eta).toMatch(/^0m [0-2]\ds$/);
    // A read job: no write line, no write column.
    const series: string[] = await page.evaluate(() => echarts.getInstanceByDom(document.querySelector('#live-chart')).getOption().series.map((s: PageGlobals) => s.name));
    expect(series).toEqual(['read IOPS', 'read MiB/s', 'read p99 µs', 'read mean µs']);
    const head = await page.$$eval('#live-table thead th', (ths: PageGlobals[]) => ths.map((th) => th.textContent));
    expect(head.some((h: string) => h.startsWith('write'))).toBe(false);
    // Newest first.
    const seconds = await page.$$eval('#live-table tbody tr td:first-child', (tds: PageGlobals[]) => tds.map((td) => Number(td.textContent)));
    expect(seconds.length).toBeGreaterThanOrEqual(3);
    expect([...seconds].sort((a, b) => b - a)).toEqual(seconds);
    expect(await text('#run-title')).toBe(`rr: randread bs=4k on ${server.root}`);
    await page.screenshot({ path: join(artifactsDir(), 'web-run-live.png'), fullPage: true });

    // Cancel, from the page: the service has the run cancelled, and the page shows its ending.
    await page.click('#cancel');
    const ended = await server.client.waitForEnd(ids.live);
    expect(ended.status).toBe('cancelled');
    await page.waitForSelector('#run-report:not([hidden]) iframe', { timeout: 20_000 });
    expect(await text('#run-facts')).toMatch(/^cancelled/);
    expect(await page.$eval('#run-actions', (e: PageGlobals) => e.hidden)).toBe(true);
    expect(await text('#fio-normal')).toMatch(/^rr: \(groupid=0/m);
    ids.live = '';
  });

  it('compares runs by volume or target, the run id beside it, and so does the report in its frame', async () => {
    await page.goto(`${server.url}/#/compare?run=${ids.gated}&run=${ids.volume}`, { waitUntil: 'load' });
    await page.waitForSelector('#compare-view:not([hidden]) iframe');
    const rows = await page.$$eval('#compare-runs tbody tr', (trs: PageGlobals[]) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    expect(rows).toEqual([
      [server.root, 'rr: randread bs=4k iodepth=8', 'finished', ids.gated],
      // The volume as a report row names it, gp3's default 125 MiB/s resolved.
      ['gp3 200 GiB 5000/125', 'rr: randread bs=4k', 'finished', ids.volume],
    ]);
    expect(await text('#compare-title')).toBe(`Compare: ${server.root} vs gp3 200 GiB 5000/125`);
    const frame = await (await page.$('#compare-view iframe'))!.contentFrame();
    await frame.waitForSelector('table.report');
    // The report's rows: the target and the volume, never a run id; the run id is the row's source.
    const framed = await frame.$$eval('table.report tbody tr', (trs: PageGlobals[]) => trs.map((tr) => [tr.children[0].textContent, tr.children[tr.children.length - 1].textContent]));
    expect(framed.map(([label]) => label.startsWith(server.root))).toEqual([true, false]);
    expect(framed[1][0]).toBe('gp3 200 GiB 5000/125');
    expect(framed.map(([, source]) => source)).toEqual([ids.gated, ids.volume]);
    await page.screenshot({ path: join(artifactsDir(), 'web-compare.png'), fullPage: true });
    const downloads = mkdtempSync(join(artifactsDir(), 'downloads-'));
    const cdp = await page.createCDPSession();
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });
    await page.click('#compare-view button[data-format="md"]');
    await waitFor('the download', async () => readdirSync(downloads).includes('volbench-report.md'));
    const expected = await server.client.get(`/v1/report?run=${ids.gated}&run=${ids.volume}&format=md`);
    expect(readFileSync(join(downloads, 'volbench-report.md'), 'utf8')).toBe(expected.text);
    // The same target twice: the short run id tells them apart.
    await page.goto(`${server.url}/#/compare?run=${ids.gated}&run=${ids.gated}`, { waitUntil: 'load' });
    const twice = `Compare: ${server.root} · ${ids.gated.slice(0, 8)} vs ${server.root} · ${ids.gated.slice(0, 8)}`;
    await page.waitForFunction((t: string) => document.querySelector('#compare-title').textContent === t, { timeout: 10_000 }, twice);
  });

  it('asked nothing of any other origin and logged no error', () => {
    expect(seen.requests.filter((u) => !u.startsWith(server.url) && !u.startsWith('blob:') && u !== 'about:srcdoc')).toEqual([]);
    expect(seen.errors).toEqual([]);
  });
});
