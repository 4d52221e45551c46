/**
 * The HTML report in a real browser: it opens with no console error and no request beyond the
 * file itself, with a chart (an SVG) and a table for each chart the report model lists; a
 * reader sees the verdicts first, rows named by their volumes, the label and price columns in
 * view however far the table scrolls, one grouped chart for the suite, and the unit asked for.
 */
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildPublishReport, catalogPricer, groupCharts, renderHtml, verdictText, type ReportInput } from '../../src/publish/index.js';
import { requires } from '../helpers/requires.js';
import { fixture, withCloud } from '../publish/helpers.js';
import { artifactsDir, launch, watch, type PageGlobals } from './browser.js';

const needs = requires('child', 'chromium');

/** Four volumes of the aws-ssd suite, as run --volume names them (the report prices them from the catalog). */
function fourVolumes(): ReportInput[] {
  const types = [['gp3', 100, 3000, 125], ['gp3', 500, 6000, 250], ['io2', 100, 16000, undefined], ['gp2', 1000, undefined, undefined]] as const;
  return ['a', 'b', 'c', 'd'].map((v, i) => {
    const [type, size, iops, mibps] = types[i];
    const doc = withCloud(fixture(`aws-ssd-vol-${v}.json`), {
      provider: 'aws', label: `${type}-${size}g`, volume: { type, size_gib: size, iops, throughput_mibps: mibps },
    });
    return { source: `aws-ssd-vol-${v}.json`, result: doc };
  });
}

declare const document: PageGlobals;

let browser: Browser;

describe.skipIf(needs.missing('chromium') !== undefined)('HTML report in chromium', () => {
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(async () => browser?.close());

  it('opens with no console error and no network request, with every chart and table', async () => {
    const report = buildPublishReport(fourVolumes(), { priceVolume: catalogPricer() });
    const started = performance.now();
    const html = await renderHtml(report);
    const renderMs = performance.now() - started;
    const file = join(artifactsDir(), 'report-aws-ssd-4-volumes.html');
    writeFileSync(file, html);
    const charts = report.groups.flatMap((g) => groupCharts(g));
    // The fixtures' 2 s tests have two points a series: too few for a chart.
    expect(charts.map((c) => c.kind)).toEqual(['cost-iops', 'grouped', 'percentiles', 'percentiles']);

    const page = await browser.newPage();
    const seen = watch(page);
    await page.setViewport({ width: 1280, height: 900 });
    const loadStart = performance.now();
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    const loadMs = performance.now() - loadStart;
    const counts = await page.evaluate(() => ({
      figures: document.querySelectorAll('figure.chart').length,
      svgs: document.querySelectorAll('figure.chart svg').length,
      chartTables: document.querySelectorAll('figure.chart table').length,
      reportTables: document.querySelectorAll('table.report').length,
      rows: document.querySelectorAll('table.report tbody tr').length,
      prices: document.querySelector('.prices')?.textContent,
    }));
    await page.screenshot({ path: join(artifactsDir(), 'report-aws-ssd-4-volumes.png'), fullPage: true });
    expect(seen.errors).toEqual([]);
    expect(seen.requests).toEqual([pathToFileURL(file).href]);
    // The least sure price of the list is named (the catalog holds some figures at M).
    const conf = report.prices[0].confidence;
    const sure = conf === 'M' ? ' (confidence M: a secondary or remembered source)' : conf === 'L' ? ' (confidence L: not verified)' : '';
    expect(counts).toEqual({ figures: charts.length, svgs: charts.length, chartTables: charts.length, reportTables: 1, rows: 4, prices: `Prices: us-east-1 as of ${report.price_dates.join(', ')}${sure}; $/month and $ per unit are the volume alone, 730 h a month (AWS's basis, 8,760 / 12).` });
    // Every volume priced from the catalog, with the date of its price list.
    expect(report.groups[0].rows.every((r) => (r.usd_per_month ?? 0) > 0 && r.price_as_of !== null)).toBe(true);
    expect(report.price_dates.length).toBe(1);
    expect(report.prices).toEqual([{ region: 'us-east-1', as_of: report.price_dates[0], ...(conf ? { confidence: conf } : {}) }]);
    const figures = { html_bytes: statSync(file).size, render_ms: Math.round(renderMs), chromium_load_ms: Math.round(loadMs) };
    writeFileSync(join(artifactsDir(), 'report-figures.json'), `${JSON.stringify(figures, null, 2)}\n`);
    await page.close();
  });

  it('shows the verdicts first, rows by volume, the label and price columns in view, one grouped chart, in MB/s when asked', async () => {
    const report = buildPublishReport(fourVolumes(), { priceVolume: catalogPricer() });
    const file = join(artifactsDir(), 'report-aws-ssd-4-volumes-mbs.html');
    writeFileSync(file, await renderHtml(report, { units: 'MB/s' }));
    const page = await browser.newPage();
    const seen = watch(page);
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    await page.screenshot({ path: join(artifactsDir(), 'report-first-screen.png') });
    // A laptop's narrow window: the table has to scroll sideways.
    await page.setViewport({ width: 800, height: 900 });
    const seenByReader = await page.evaluate(() => {
      const verdicts = [...document.querySelectorAll('.verdicts li')].map((li: any) => li.textContent);
      const verdictBox = document.querySelector('.verdicts').getBoundingClientRect();
      const labels = [...document.querySelectorAll('table.report tbody th')].map((th: any) => th.textContent);
      const header = [...document.querySelectorAll('table.report thead th')].map((th: any) => th.textContent);
      const scroller = document.querySelector('.scroll');
      const label = document.querySelector('table.report tbody th');
      const price = document.querySelector('table.report tbody td');
      const before = [label.getBoundingClientRect().left, price.getBoundingClientRect().left];
      scroller.scrollLeft = scroller.scrollWidth;
      const after = [label.getBoundingClientRect().left, price.getBoundingClientRect().left];
      const grouped = document.querySelectorAll('figure.chart[data-kind="grouped"] svg');
      const groupedText = grouped[0]?.textContent ?? '';
      const folded = document.querySelector('details.detail');
      return {
        verdicts, verdictTop: verdictBox.top, verdictBottom: verdictBox.bottom, labels, header,
        scrolled: scroller.scrollLeft > 0, before, after, grouped: grouped.length, groupedText,
        detailOpen: folded?.open ?? null, downloads: document.querySelectorAll('a.svg-download[download$=".svg"]').length,
      };
    });
    expect(seen.errors).toEqual([]);
    // One line per question of aws-ssd, as the model words them, above everything else and on the first screen.
    expect(seenByReader.verdicts).toEqual(report.verdicts.map((v) => verdictText(v, 'MB/s')));
    expect(seenByReader.verdicts[0]).toMatch(/^lowest \$ per 1,000 IOPS at 16 KiB random reads: /);
    expect(seenByReader.verdictBottom).toBeLessThan(900);
    expect(seenByReader.labels).toEqual(['gp3 100 GiB 3000/125', 'gp3 500 GiB 6000/250', 'io2 100 GiB 16000 IOPS', 'gp2 1000 GiB']);
    // aws-ssd has no MiB/s test: no $ per MB/s column to leave empty.
    expect(seenByReader.header.slice(0, 3)).toEqual(['Label', '$ per 1,000 IOPS at RND16K-Q1T16-read', 'Type']);
    // Scrolled to the far right, the label and the first price column have not moved.
    expect(seenByReader.scrolled).toBe(true);
    expect(seenByReader.after).toEqual(seenByReader.before);
    expect(seenByReader.grouped).toBe(1);
    expect(seenByReader.groupedText).toContain('MB/s');
    expect(seenByReader.groupedText).toContain('RND16K-Q1T16');
    expect(seenByReader.detailOpen).toBe(false);
    expect(seenByReader.downloads).toBe(groupCharts(report.groups[0]).length);
    await page.screenshot({ path: join(artifactsDir(), 'report-aws-ssd-4-volumes-full.png'), fullPage: true });
    await page.close();
  });
});
