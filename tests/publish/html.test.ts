/**
 * The HTML report as a file: self-contained (no script, no URL it would fetch), every chart an
 * inline SVG with its table beside it, prices' dates under the table, and text from the
 * results escaped.
 */
import { describe, expect, it } from 'vitest';

import { buildPublishReport, groupCharts, renderHtml } from '../../src/publish/index.js';
import { requires } from '../helpers/requires.js';
import { fixture, mixedInputs, priceIo2, withCloud } from './helpers.js';

requires();

function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

describe('HTML report', () => {
  it('has the expected charts, each an SVG with its table, and the group tables', async () => {
    const report = buildPublishReport(mixedInputs(), { priceVolume: priceIo2 });
    const html = await renderHtml(report);
    // aws-ssd: cost/IOPS (no MiB/s column, so no cost/MiB/s), one grouped chart of its tests,
    // 2 percentile curves (folded detail); its 2 s tests have two points a series, too few for a chart.
    expect(report.groups[0].suite).toBe('aws-ssd');
    expect(groupCharts(report.groups[0]).map((c) => c.kind)).toEqual(['cost-iops', 'grouped', 'percentiles', 'percentiles']);
    expect(groupCharts(report.groups[0]).map((c) => c.detail ?? false)).toEqual([false, false, true, true]);
    const charts = report.groups.reduce((n, g) => n + groupCharts(g).length, 0);
    expect(count(html, '<figure class="chart"')).toBe(charts);
    expect(count(html, '<svg')).toBe(charts);
    expect(count(html, '<table class="chart-data"')).toBe(charts);
    expect(count(html, '<table class="report"')).toBe(report.groups.length);
    expect(count(html, 'Prices: us-east-1 as of 2026-10-15; as of 2026-11-01 (region not recorded); $/month and $ per unit are the volume alone, 730 h a month')).toBeGreaterThanOrEqual(report.groups.length);
    // Every chart can be saved as an SVG of its own, drawn with its source line.
    expect(count(html, 'class="svg-download" download="')).toBe(charts);
    const saved = /href="data:image\/svg\+xml;base64,([^"]+)"/.exec(html)!;
    const svg = Buffer.from(saved[1], 'base64').toString();
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain(`${report.title}, `);
    // The first screen: the report's title and what it measured on.
    expect(html).toContain(`<h1>${report.title}</h1>`);
    expect(html).toContain('<p class="context">gp3 100 GiB 3000/125, io2 50 GiB 16000 IOPS · aws-ssd, kdiskmark · ');
  });

  it('asks for nothing over the network', async () => {
    const html = await renderHtml(buildPublishReport(mixedInputs()));
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\((?!#)/i);
    expect(html).not.toMatch(/(src|href)=["']?(https?:)?\/\//i);
    expect(html).toContain("default-src 'none'");
  });

  it('escapes labels that come from results', async () => {
    const doc = withCloud(fixture('aws-ssd-vol-a.json'), { provider: 'aws', fleet: { id: 'f', label: '<img src=x onerror=alert(1)>&' }, price: { usd_per_month: 10, as_of: '2026-01-01', source: 'x' } });
    const html = await renderHtml(buildPublishReport([{ source: 'x.json', result: doc }]));
    expect(html).not.toContain('<img');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;&#38;');
  });

  it('draws sweep curves when a result carries them; a malformed sweep fails its row, naming where', async () => {
    const point = (depth: number, iops: number, p99: number) => ({
      value: depth, iodepth: depth, numjobs: 1, job: `qd${depth}`, iops, bw_bytes: iops * 4096, clat_mean_ns: p99 / 2, clat_p50_ns: p99 / 2,
      clat_p99_ns: p99, clat_p999_ns: p99, throughput_norm: iops / 350, latency_norm: 1, score: 1,
    });
    const doc = fixture('custom-randrw.json') as any;
    doc.volbench.sweep = {
      over: 'iodepth', alpha: 0.5, max_depth: 4, max_p99_ns: null, stopped: 'max_depth', max_iops: 350,
      points: [point(1, 100, 20000), point(4, 350, 45000)], optimum: { ...point(4, 350, 45000), speedup: 3.5 },
    };
    const bad = fixture('custom-randrw.json') as any;
    bad.volbench.sweep = 'not a sweep';
    const good = buildPublishReport([{ source: 's.json', label: 's.json', result: doc }]);
    const [sweep] = groupCharts(good.groups[0]).filter((c) => c.kind === 'sweep');
    // IOPS and p99 by depth, the optimum named on its row; the depth on a log2 axis, the optimum marked.
    expect(sweep.table.header).toEqual(['iodepth', 's.json', 'optimum', 's.json p99 µs']);
    expect(sweep.table.rows).toEqual([['1', '100', '', '20.0'], ['4', '350', 's.json', '45.0']]);
    expect(sweep.option.xAxis).toMatchObject({ type: 'log', logBase: 2 });
    const lines = sweep.option.series as Array<{ markPoint?: { data: Array<{ coord: number[] }> }; yAxisIndex?: number }>;
    expect(lines[0].markPoint?.data[0].coord).toEqual([4, 350]);
    expect(lines[1].yAxisIndex).toBe(1);
    const none = buildPublishReport([{ source: 's.json', result: bad }]);
    expect(groupCharts(none.groups[0]).filter((c) => c.kind === 'sweep')).toEqual([]);
    expect(none.groups[0].rows[0]).toMatchObject({ status: 'failed', error: expect.stringMatching(/^s\.json: volbench\.sweep: /) });
  });
});
