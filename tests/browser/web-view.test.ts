/**
 * The service's web view in chromium: log in with the token, see the runs list with a run that
 * is still running, watch that run's chart gain points from its event stream, compare two
 * finished runs and download their report. Nothing is requested from anywhere but the service.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { randreadSpec, startServer, type TestServer } from '../api/helpers/server.js';
import { artifactsDir, launch, NO_BROWSER, watch, type PageGlobals, type Watched } from './browser.js';

declare const document: PageGlobals;
declare const echarts: PageGlobals;
declare const sessionStorage: PageGlobals;

let server: TestServer;
let browser: Browser;
let page: Page;
let seen: Watched;
const finished: string[] = [];
let running = '';

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(NO_BROWSER !== null)('web view in chromium', () => {
  beforeAll(async () => {
    server = await startServer();
    for (let i = 0; i < 2; i++) {
      const res = await server.client.submit(randreadSpec());
      finished.push(res.body.id);
      await server.client.waitForEnd(res.body.id);
    }
    browser = await launch();
    page = await browser.newPage();
    seen = watch(page);
    await page.setViewport({ width: 1280, height: 900 });
  });

  afterAll(async () => {
    await browser?.close();
    if (running) await server?.client.request('DELETE', `/v1/runs/${running}`);
    await server?.close();
  });

  it('logs in with the token, kept in sessionStorage only', async () => {
    const started = performance.now();
    await page.goto(`${server.url}/`, { waitUntil: 'load' });
    const loadMs = Math.round(performance.now() - started);
    writeFileSync(join(artifactsDir(), 'web-view-figures.json'), `${JSON.stringify({ page_load_ms: loadMs }, null, 2)}\n`);
    expect(await page.$eval('#login', (e: PageGlobals) => e.hidden)).toBe(false);
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

  it('lists a running run, and its page charts points as they arrive', async () => {
    const res = await server.client.submit(randreadSpec({ runtime: '30s' }));
    running = res.body.id;
    await server.client.waitForStatus(running, 'running');
    await page.click('#filters button');
    await page.waitForSelector(`#runs-table tr[data-run="${running}"]`);
    const rows = await page.$$eval('#runs-table tbody tr', (trs: PageGlobals[]) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(rows.map((r: string[]) => r[2])).toEqual(['running', 'finished', 'finished']);
    expect(Number(rows[1][6])).toBeGreaterThan(0);
    await page.click(`#runs-table tr[data-run="${running}"] a`);
    await page.waitForSelector('#live:not([hidden])');
    const points = async (): Promise<number> => page.evaluate(() => {
      const chart = echarts.getInstanceByDom(document.querySelector('#live-chart'));
      return chart ? chart.getOption().series[0].data.length : 0;
    });
    await waitFor('a first point', async () => (await points()) >= 1);
    const first = await points();
    await waitFor('more points from the stream', async () => (await points()) >= first + 2);
    expect(Number(await page.$eval('#live-chart', (e: PageGlobals) => e.dataset.points))).toBeGreaterThanOrEqual(first + 2);
    expect(await page.$$eval('#live-chart svg', (s: PageGlobals[]) => s.length)).toBe(1);
    await page.screenshot({ path: join(artifactsDir(), 'web-view-live-run.png'), fullPage: true });
    // Cancelled, the run's page turns into its report.
    await server.client.request('DELETE', `/v1/runs/${running}`);
    await page.waitForSelector('#run .report-area iframe', { timeout: 20_000 });
    expect(await page.$eval('#run-facts', (e: PageGlobals) => e.textContent)).toMatch(/^cancelled/);
  });

  it('stays logged in across a reload and filters the list as GET /v1/runs does', async () => {
    await page.goto(`${server.url}/#/`, { waitUntil: 'load' });
    await page.waitForSelector(`#runs-table tr[data-run="${running}"]`);
    expect(await page.$eval('#login', (e: PageGlobals) => e.hidden)).toBe(true);
    await page.select('#filters select[name="status"]', 'finished');
    await page.click('#filters button');
    await page.waitForFunction((id: string) => !document.querySelector(`#runs-table tr[data-run="${id}"]`), {}, running);
    const ids = await page.$$eval('#runs-table tbody tr', (trs: PageGlobals[]) => trs.map((tr) => tr.dataset.run));
    expect(ids).toEqual([...finished].reverse());
  });

  it('compares two runs and downloads their report', async () => {
    await page.waitForSelector(`#runs-table tr[data-run="${finished[0]}"]`);
    for (const id of finished) await page.click(`input[data-run="${id}"]`);
    await page.click('#compare');
    await page.waitForSelector('#compare-view:not([hidden]) iframe');
    const frame = await (await page.$('#compare-view iframe'))!.contentFrame();
    await frame.waitForSelector('table.report');
    const labels = await frame.$$eval('table.report tbody th', (ths: PageGlobals[]) => ths.map((th) => th.textContent));
    expect(labels.sort()).toEqual([...finished].sort());
    expect(await frame.$$eval('figure.chart svg', (s: PageGlobals[]) => s.length)).toBeGreaterThan(0);
    await page.screenshot({ path: join(artifactsDir(), 'web-view-compare.png'), fullPage: true });

    const downloads = mkdtempSync(join(artifactsDir(), 'downloads-'));
    const cdp = await page.createCDPSession();
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });
    await page.click('#compare-view button[data-format="md"]');
    await waitFor('the download', async () => readdirSync(downloads).includes('volbench-report.md'));
    const ids = new URLSearchParams(await page.evaluate(() => document.location.hash.split('?')[1]));
    const expected = await server.client.get(`/v1/report?${ids}&format=md`);
    expect(readFileSync(join(downloads, 'volbench-report.md'), 'utf8')).toBe(expected.text);
  });

  it('asked nothing of any other origin and logged no error', () => {
    expect(seen.requests.filter((u) => !u.startsWith(server.url) && !u.startsWith('blob:') && u !== 'about:srcdoc')).toEqual([]);
    expect(seen.errors).toEqual([]);
  });
});
