/**
 * The web view's studies page in chromium, against a real service whose studies run against moto
 * server (the members' objects written by the test as a member would): the study token asked
 * for, the list, one study live with each member's test, progress and the ETA, Cancel, and the
 * finished study's report with its verdict and context line. Screenshots go to tests/artifacts/.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';

import { startServer, type ApiClient, type TestServer } from '../api/helpers/server.js';
import { awsDefaultVpc, freshMoto } from '../helpers/moto.js';
import { requires } from '../helpers/requires.js';
import { PlayedMembers } from '../helpers/study-members.js';
import { artifactsDir, launch, watch, type PageGlobals } from './browser.js';

const needs = requires('tmpfs', 'moto', 'chromium');

declare const document: PageGlobals;

const BUCKET = 'volbench-studies-page';
const REGION = 'us-east-1';
const STUDY_TOKEN = `page-study-${process.pid}`;

describe.skipIf(needs.missing('moto', 'chromium') !== undefined)('the studies page in chromium', () => {
  let server: TestServer;
  let studies: ApiClient;
  let browser: Browser;
  let page: Page;
  let s3: S3Client;
  let work: string;
  const saved = { ...process.env };

  const text = (sel: string): Promise<string> => page.$eval(sel, (e: PageGlobals) => e.textContent);
  async function until(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
    const end = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 150));
    }
  }
  const step = async (id: string) => (await studies.request('GET', `/v1/studies/${id}`)).body.step;

  beforeAll(async () => {
    const moto = await freshMoto(REGION);
    // An internet gateway and its route, as every AWS default VPC has (preflight reads them).
    await awsDefaultVpc(moto, REGION);
    Object.assign(process.env, moto.env);
    s3 = new S3Client({ region: REGION, endpoint: moto.endpoint, forcePathStyle: true, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    work = mkdtempSync(join(tmpdir(), `volbench-studies-page-${process.pid}-`));
    writeFileSync(join(work, 'volbench-0.0.0-linux-x64.tar.gz'), 'a stand-in for the bundle');
    server = await startServer({
      studies: {
        token: STUDY_TOKEN, bucket: BUCKET, maxCostUsd: 5, maxConcurrent: 3, regions: [REGION], packages: { files: { x64: join(work, 'volbench-0.0.0-linux-x64.tar.gz') } },
        driver: 'loop', index: 'store', pollMs: 300, runningPollMs: 300, leaseSec: 8,
      },
    });
    studies = server.client.withToken(STUDY_TOKEN);
    browser = await launch();
    page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    s3?.destroy();
    process.env = saved;
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('lists the studies, shows one live with its members, progress and ETA, cancels one, and shows the report with its verdict and context line', async () => {
    const seen = watch(page);
    const a = (await studies.request('POST', '/v1/studies', { json: { volumes: ['gp3:1g', 'io2:4g:iops=400'], runtime: '2s' } })).body.id;
    const b = (await studies.request('POST', '/v1/studies', { json: { volumes: ['gp3:1g'], runtime: '2s' } })).body.id;
    await until('both running', async () => (await step(a)) === 'running' && (await step(b)) === 'running');
    const members = new PlayedMembers(s3, BUCKET);
    await members.progress(a, 'gp3-1g', 2, 4, 50, 125);
    await members.progress(a, 'io2-4g-400iops', 1, 4, 25, 190);

    // The run token logs in; the studies page asks for the study token, a wrong one refused.
    await page.goto(`${server.url}/#/studies`, { waitUntil: 'load' });
    await page.type('#token', server.token);
    await page.click('#login-form button');
    await page.waitForSelector('#study-login:not([hidden])');
    await page.type('#study-token', 'not-the-study-token');
    await page.click('#study-login button');
    await page.waitForFunction(() => document.querySelector('#study-login-error').textContent.includes('refused'));
    await page.type('#study-token', STUDY_TOKEN);
    await page.click('#study-login button');
    await page.waitForSelector(`#studies-table:not([hidden]) tr[data-study="${a}"]`);
    expect(await page.$$eval('#studies-table tbody tr', (rows: PageGlobals[]) => rows.map((r) => r.dataset.study))).toEqual([b, a]);
    expect(await text(`tr[data-study="${a}"]`)).toContain('gp3:1g, io2:4g:iops=400');
    await page.screenshot({ path: join(artifactsDir(), 'studies-list.png') });

    // One study live: each member's test, share done and ETA; the study's ETA is the slowest member's.
    await page.click(`tr[data-study="${a}"] a`);
    await page.waitForFunction(() => document.querySelectorAll('#study-members tbody tr').length === 2 && document.querySelector('#study-eta').textContent.includes('left'));
    expect(await text('#study-title')).toBe(`Study ${a}: running`);
    expect(await text('tr[data-member="gp3-1g"]')).toMatch(/running test 2 \(2\/4\).*50%.*2m 05s.*3,000/);
    expect(await text('tr[data-member="io2-4g-400iops"]')).toMatch(/test 1 \(1\/4\).*25%.*3m 10s/);
    expect(await text('#study-eta')).toBe('38% done, about 3m 10s left');
    expect(await page.$eval('#study-actions', (e: PageGlobals) => e.hidden)).toBe(false);
    await page.screenshot({ path: join(artifactsDir(), 'study-live.png') });

    // Done: the live page moves on by itself to the report, its verdict and context line.
    for (const label of ['gp3-1g', 'io2-4g-400iops']) await members.done(a, label);
    await page.waitForSelector('#study-report:not([hidden]) iframe', { timeout: 40_000 });
    expect(await text('#study-title')).toBe(`Study ${a}: done`);
    expect(await page.$eval('#study-actions', (e: PageGlobals) => e.hidden)).toBe(true);
    expect(await text('#study-context')).toMatch(/m6i\.large/);
    const verdicts = await page.$$eval('#study-verdicts li', (li: PageGlobals[]) => li.map((x) => x.textContent));
    expect(verdicts.length).toBeGreaterThan(0);
    expect(await text('tr[data-member="gp3-1g"]')).toContain('collected');
    await page.screenshot({ path: join(artifactsDir(), 'study-report.png'), fullPage: true });

    // Cancel: the other study is torn down.
    await page.goto(`${server.url}/#/studies/${b}`, { waitUntil: 'load' });
    await page.waitForSelector('#study-actions:not([hidden]) #study-cancel');
    await page.click('#study-cancel');
    await page.waitForFunction(() => document.querySelector('#study-cancel-state').textContent.includes('cancelled'));
    await page.waitForFunction(() => document.querySelector('#study-title').textContent.endsWith(': failed'), { timeout: 40_000 });
    expect(await text('#study-failure')).toBe('Failed: cancelled (DELETE /v1/studies)');
    expect(await step(b)).toBe('failed');
    // Nothing but the service was asked; nothing failed but the wrong token's 401.
    expect(seen.requests.filter((u) => !u.startsWith(server.url) && !u.startsWith('about:'))).toEqual([]);
    expect(seen.errors.filter((e) => !/401/.test(e))).toEqual([]);
  }, 120_000);
});
