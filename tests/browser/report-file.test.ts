/**
 * The HTML report in a real browser: it opens with no console error and no request beyond the
 * file itself, with a chart (an SVG) and a table for each chart the report model lists.
 */
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildPublishReport, catalogPricer, groupCharts, renderHtml, type ReportInput } from '../../src/publish/index.js';
import { fixture, withCloud } from '../publish/helpers.js';
import { artifactsDir, launch, NO_BROWSER, watch, type PageGlobals } from './browser.js';

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

describe.skipIf(NO_BROWSER !== null)('HTML report in chromium', () => {
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
    const charts = report.groups.flatMap(groupCharts);
    // The fixtures' 2 s tests have two points a series: too few for a chart.
    expect(charts.map((c) => c.kind)).toEqual(['cost-iops', 'bars', 'bars', 'percentiles', 'percentiles']);

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
    expect(counts).toEqual({ figures: charts.length, svgs: charts.length, chartTables: charts.length, reportTables: 1, rows: 4, prices: `Prices: us-east-1 as of ${report.price_dates.join(', ')}.` });
    // Every volume priced from the catalog, with the date of its price list.
    expect(report.groups[0].rows.every((r) => (r.usd_per_month ?? 0) > 0 && r.price_as_of !== null)).toBe(true);
    expect(report.price_dates.length).toBe(1);
    expect(report.prices).toEqual([{ region: 'us-east-1', as_of: report.price_dates[0] }]);
    const figures = { html_bytes: statSync(file).size, render_ms: Math.round(renderMs), chromium_load_ms: Math.round(loadMs) };
    writeFileSync(join(artifactsDir(), 'report-figures.json'), `${JSON.stringify(figures, null, 2)}\n`);
    await page.close();
  });
});
