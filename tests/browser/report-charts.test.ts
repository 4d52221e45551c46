/**
 * The report's charts and table as a reader sees them in chromium.
 *
 * Broke: the p99 ◆ was in its bar's colour at the middle of the group, lost inside its own bar
 * and stacked with the others between the bars; scatter labels covered one another; legends
 * covered the axes' labels; titles read "write write"; the source line under a chart was cut at
 * its right edge; a long label (a target path) was drawn over the first value of its row.
 * Expected: each ◆ over its own bar and of a contrasting colour, no text over other text in any
 * chart, the source line whole within the chart, and the label column wrapped before the values.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildPublishReport, catalogPricer, renderHtml, type Report, type ReportInput } from '../../src/publish/index.js';
import { pricesLine } from '../../src/publish/render-text.js';
import { fixture, withCloud } from '../publish/helpers.js';
import { requires } from '../helpers/requires.js';
import { artifactsDir, launch, watch, type PageGlobals } from './browser.js';

const needs = requires('child', 'chromium');

declare const document: PageGlobals;

/** Four aws-ssd volumes (the report prices them from the catalog), and kdiskmark on a long path. */
function inputs(): ReportInput[] {
  const types = [['gp3', 100, 3000, 125], ['gp3', 500, 6000, 250], ['io2', 100, 16000, undefined], ['gp2', 1000, undefined, undefined]] as const;
  const four = ['a', 'b', 'c', 'd'].map((v, i) => {
    const [type, size, iops, mibps] = types[i];
    const doc = withCloud(fixture(`aws-ssd-vol-${v}.json`), { provider: 'aws', label: `${type}-${size}g`, volume: { type, size_gib: size, iops, throughput_mibps: mibps } });
    // Six seconds of series (the fixtures' tests ran two), so that the per-second charts are drawn too.
    for (const job of doc.volbench!.jobs) job.series = [0, 1, 2].flatMap((k) => (job.series ?? []).map((p) => ({ ...p, t_ms: p.t_ms + k * 2000 })));
    return { source: `aws-ssd-vol-${v}.json`, result: doc };
  });
  return [...four, { source: 'kdiskmark-shm.json', label: LONG_LABEL, result: fixture('kdiskmark-shm.json') }];
}

/** A target path with no place a browser would break it. */
const LONG_LABEL = '/mnt/averyveryverylongmountpointname/withalongsubdirectoryname/kdiskmark.tmp';

interface Box { left: number; right: number; top: number; bottom: number }

/** WCAG's contrast ratio of two #rrggbb colours. */
function contrast(a: string, b: string): number {
  const lum = (hex: string): number => {
    const [r, g, bl] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [lum(a), lum(b)].sort((m, n) => n - m);
  return (x + 0.05) / (y + 0.05);
}

const overlap = (a: Box, b: Box): boolean => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;

let browser: Browser;
let page: Page;
let report: Report;

describe.skipIf(needs.missing('chromium') !== undefined)('the report in chromium, as a reader sees it', () => {
  beforeAll(async () => {
    report = buildPublishReport(inputs(), { priceVolume: catalogPricer() });
    const file = join(artifactsDir(), 'report-charts.html');
    writeFileSync(file, await renderHtml(report));
    browser = await launch();
    page = await browser.newPage();
    const seen = watch(page);
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    await page.evaluate(() => document.querySelectorAll('details').forEach((d: PageGlobals) => (d.open = true)));
    await page.screenshot({ path: join(artifactsDir(), 'report-charts-first-screen.png') });
    await page.screenshot({ path: join(artifactsDir(), 'report-charts-full.png'), fullPage: true });
    expect(seen.errors).toEqual([]);
  });
  afterAll(async () => browser?.close());

  it('draws each p99 ◆ over its own bar, in a colour that stands out from it', async () => {
    const grouped = await page.$$('figure.chart[data-kind="grouped"] svg');
    expect(grouped).toHaveLength(2);
    for (const [g, svg] of grouped.entries()) {
      await svg.screenshot({ path: join(artifactsDir(), `report-charts-grouped-${g}.png`) });
      const found = await svg.evaluate((el: PageGlobals) => {
        const box = (e: PageGlobals) => { const r = e.getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top, bottom: r.bottom }; };
        const meta = (e: PageGlobals) => [Number(e.getAttribute('ecmeta_series_index')), Number(e.getAttribute('ecmeta_data_index'))];
        const bars = [...el.querySelectorAll('path[ecmeta_series_index]')].filter((p: PageGlobals) => /^M[\d.]+ [\d.]+l/.test(p.getAttribute('d')));
        const diamonds = [...el.querySelectorAll('polygon[ecmeta_series_index]')];
        return {
          bars: bars.map((b: PageGlobals) => ({ at: meta(b), box: box(b), fill: b.getAttribute('fill') })),
          diamonds: diamonds.map((d: PageGlobals) => {
            const r = box(d);
            const [x, y] = [(r.left + r.right) / 2, (r.top + r.bottom) / 2];
            return { at: meta(d), box: r, fill: d.getAttribute('fill'), stroke: d.getAttribute('stroke'), onTop: document.elementFromPoint(x, y) === d };
          }),
        };
      });
      expect(found.diamonds.length).toBeGreaterThan(0);
      for (const d of found.diamonds) {
        // A volume's ◆s are the series after its bars, one per test.
        const bar = found.bars.find((b: { at: number[] }) => b.at[0] === d.at[0] - 1 && b.at[1] === d.at[1])!;
        expect(bar, JSON.stringify(d.at)).toBeDefined();
        const centre = (d.box.left + d.box.right) / 2;
        expect(centre).toBeGreaterThan(bar.box.left);
        expect(centre).toBeLessThan(bar.box.right);
        expect(contrast(d.fill, bar.fill)).toBeGreaterThanOrEqual(3);
        expect(contrast(d.fill, '#ffffff')).toBeGreaterThanOrEqual(3);
        expect(d.stroke).not.toBe(d.fill);
        expect(d.onTop).toBe(true);
      }
    }
  });

  it('sets no text over other text in any chart, and keeps each source line whole within its chart', async () => {
    const charts = await page.$$eval('figure.chart', (figures: PageGlobals[]) => figures.map((f) => {
      const svg = f.querySelector('svg');
      const frame = svg.getBoundingClientRect();
      const texts = [...svg.querySelectorAll('text')].filter((t: PageGlobals) => t.textContent.trim() !== '').map((t: PageGlobals) => {
        const r = t.getBoundingClientRect();
        return { text: t.textContent, box: { left: r.left, right: r.right, top: r.top, bottom: r.bottom } };
      });
      return { kind: f.dataset.kind, title: f.querySelector('figcaption').textContent, frame: { left: frame.left, right: frame.right, top: frame.top, bottom: frame.bottom }, texts };
    }));
    expect(new Set(charts.map((c: { kind: string }) => c.kind))).toEqual(new Set(['cost-iops', 'grouped', 'series', 'percentiles']));
    for (const chart of charts) {
      const clashes: string[] = [];
      chart.texts.forEach((a: { text: string; box: Box }, i: number) => chart.texts.slice(i + 1).forEach((b: { text: string; box: Box }) => {
        if (overlap(a.box, b.box)) clashes.push(`'${a.text}' over '${b.text}'`);
      }));
      expect(clashes, chart.title).toEqual([]);
      for (const t of chart.texts) {
        expect(t.box.left, `${chart.title}: '${t.text}'`).toBeGreaterThanOrEqual(chart.frame.left - 1);
        expect(t.box.right, `${chart.title}: '${t.text}'`).toBeLessThanOrEqual(chart.frame.right + 1);
      }
      // All of the source line, on as many lines (text elements) as it takes.
      const bare = (t: string): string => t.replace(/\s/g, '');
      const whole = bare(`${report.title}, ${report.generated_at.slice(0, 10)}. ${pricesLine(report)}`);
      const at = chart.texts.findIndex((t: { text: string }) => t.text.startsWith(`${report.title}, `));
      expect(at, chart.title).toBeGreaterThanOrEqual(0);
      let joined = '';
      for (const t of chart.texts.slice(at)) {
        if (!whole.startsWith(joined + bare(t.text))) break;
        joined += bare(t.text);
      }
      expect(joined, chart.title).toBe(whole);
      // Titles say each thing once ("write write" was the test's direction twice).
      expect(chart.title).not.toMatch(/\b(\w+) \1\b/);
    }
  });

  it('wraps a long label in the sticky column, so the first value of its row stays readable', async () => {
    const row = await page.evaluate((label: string) => {
      const th = [...document.querySelectorAll('table.report tbody th')].find((e: PageGlobals) => e.textContent === label);
      const td = th.nextElementSibling;
      const range = document.createRange();
      range.selectNodeContents(th);
      const textRight = Math.max(...[...range.getClientRects()].map((r: PageGlobals) => r.right));
      const cell = td.getBoundingClientRect();
      const inner = document.createRange();
      inner.selectNodeContents(td);
      const value = inner.getBoundingClientRect();
      return {
        labelRight: th.getBoundingClientRect().right, textRight, valueLeft: cell.left, value: td.textContent,
        valueSeen: document.elementFromPoint((value.left + value.right) / 2, (value.top + value.bottom) / 2) === td,
      };
    }, LONG_LABEL);
    expect(row.textRight).toBeLessThanOrEqual(row.labelRight);
    expect(row.labelRight).toBeLessThanOrEqual(row.valueLeft + 1);
    expect(row.value).not.toBe('');
    expect(row.valueSeen).toBe(true);
  });
});
