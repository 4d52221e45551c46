/**
 * The HTML report as a file: self-contained (no script, no URL it would fetch), every chart an
 * inline SVG with its table beside it, prices' dates under the table, and text from the
 * results escaped.
 */
import { describe, expect, it } from 'vitest';

import { buildPublishReport, groupCharts, renderHtml } from '../../src/publish/index.js';
import { fixture, mixedInputs, priceIo2, withCloud } from './helpers.js';

function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

describe('HTML report', () => {
  it('has the expected charts, each an SVG with its table, and the group tables', async () => {
    const report = buildPublishReport(mixedInputs(), { priceVolume: priceIo2 });
    const html = await renderHtml(report);
    // aws-ssd: cost/IOPS (no MiB/s column, so no cost/MiB/s), 2 bars, 2 percentile curves; its
    // 2 s tests have two points a series, too few for a chart.
    expect(report.groups[0].suite).toBe('aws-ssd');
    expect(groupCharts(report.groups[0]).map((c) => c.kind)).toEqual(['cost-iops', 'bars', 'bars', 'percentiles', 'percentiles']);
    const charts = report.groups.reduce((n, g) => n + groupCharts(g).length, 0);
    expect(count(html, '<figure class="chart"')).toBe(charts);
    expect(count(html, '<svg')).toBe(charts);
    expect(count(html, '<table class="chart-data"')).toBe(charts);
    expect(count(html, '<table class="report"')).toBe(report.groups.length);
    expect(count(html, 'Prices: us-east-1 as of 2026-10-15; as of 2026-11-01 (region not recorded).')).toBe(report.groups.length);
  });

  it('asks for nothing over the network', async () => {
    const html = await renderHtml(buildPublishReport(mixedInputs()));
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\((?!#)/i);
    expect(html).not.toMatch(/(src|href)=["']?(https?:)?\/\//i);
    expect(html).toContain("default-src 'none'");
  });

  it('escapes labels that come from results', async () => {
    const doc = withCloud(fixture('aws-ssd-vol-a.json'), { provider: 'aws', label: '<img src=x onerror=alert(1)>&', price: { usd_per_month: 10, as_of: '2026-01-01' } });
    const html = await renderHtml(buildPublishReport([{ source: 'x.json', result: doc }]));
    expect(html).not.toContain('<img');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;&#38;');
  });

  it('draws sweep curves when a result carries them, and nothing for a malformed sweep', async () => {
    const doc = fixture('custom-randrw.json') as any;
    doc.volbench.sweep = { name: 'randread 4k', points: [{ iodepth: 1, iops: 100 }, { iodepth: 4, iops: 350 }, { iodepth: 'x' }] };
    const bad = fixture('custom-randrw.json') as any;
    bad.volbench.sweep = 'not a sweep';
    const good = buildPublishReport([{ source: 's.json', result: doc }]);
    expect(groupCharts(good.groups[0]).filter((c) => c.kind === 'sweep').map((c) => c.table.rows)).toEqual([[['1', '100'], ['4', '350']]]);
    const none = buildPublishReport([{ source: 's.json', result: bad }]);
    expect(groupCharts(none.groups[0]).filter((c) => c.kind === 'sweep')).toEqual([]);
  });
});
