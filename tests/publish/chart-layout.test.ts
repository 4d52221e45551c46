/**
 * How the report's charts are laid out before ECharts draws them (the browser test sees the
 * result): a volume's colour on its p99 line too, titles that say a test once, labels clear of
 * one another, ◆s at their bars, legends and the source line below the plot.
 */
import { describe, expect, it } from 'vitest';

import { buildPublishReport, groupCharts, type ReportInput } from '../../src/publish/index.js';
import { colourOf, legendRows, wrapText } from '../../src/publish/chart-layout.js';
import { keyTitle } from '../../src/publish/chart-types.js';
import { barOffset } from '../../src/publish/grouped-chart.js';
import { niceEnd, placeLabels } from '../../src/publish/scatter-labels.js';
import { shortNumber } from '../../src/publish/charts.js';
import { requires } from '../helpers/requires.js';
import { fixture, withCloud } from './helpers.js';

requires();

/** Two aws-ssd volumes whose write test has six seconds of series (the fixtures have two). */
function twoWithSeries(): ReportInput[] {
  return ['a', 'b'].map((v) => {
    const doc = withCloud(fixture(`aws-ssd-vol-${v}.json`), { provider: 'aws', label: `vol-${v}` }) as any;
    const series = doc.volbench.jobs[0].series;
    doc.volbench.jobs[0].series = [0, 1, 2].flatMap((k: number) => series.map((p: any) => ({ ...p, t_ms: p.t_ms + k * 2000 })));
    return { source: `${v}.json`, result: doc };
  });
}

describe('chart layout', () => {
  it("draws a volume's p99 line in the volume's own colour, dashed", () => {
    const report = buildPublishReport(twoWithSeries());
    const chart = groupCharts(report.groups[0]).find((c) => c.kind === 'series')!;
    const series = chart.option.series as Array<{ name: string; lineStyle: { color: string; type?: string } }>;
    const labels = report.groups[0].rows.map((r) => r.label);
    labels.forEach((label, k) => {
      const line = series.find((s) => s.name === label)!;
      const p99 = series.find((s) => s.name === `${label} p99 µs`)!;
      expect([line.lineStyle.color, p99.lineStyle.color]).toEqual([colourOf(k), colourOf(k)]);
      expect(p99.lineStyle.type).toBe('dashed');
    });
    expect(chart.title).toBe('RND16K-Q1T16-write: IOPS and p99 latency (dashed) per second');
    expect((chart.option.legend as { data: string[] }).data).toEqual(labels);
  });

  it('says a test once in a title: the direction its name ends in is not repeated', () => {
    expect(keyTitle('RND16K-Q1T16-write write')).toBe('RND16K-Q1T16-write');
    expect(keyTitle('mixed-job read')).toBe('mixed-job read');
    expect(keyTitle('write write')).toBe('write');
  });

  it('places scatter labels clear of each other, inside the plot, even for points on one spot', () => {
    const plot = { left: 70, top: 50, right: 430, bottom: 280 };
    const at = [0, 1, 2, 3].map((i) => ({ x: 400, y: 278 - i, text: `volume number ${i}` }));
    const placed = placeLabels(at, plot, 600);
    const tops = placed.map((p, i) => at[i].y - 7.5 + p.dy);
    const sorted = [...tops].sort((a, b) => a - b);
    sorted.slice(1).forEach((t, i) => expect(t - sorted[i]).toBeGreaterThanOrEqual(15));
    for (const t of tops) {
      expect(t).toBeGreaterThanOrEqual(plot.top);
      expect(t + 15).toBeLessThanOrEqual(plot.bottom + 1);
    }
    // No room on the right: the label goes left of its point.
    expect(placeLabels([{ x: 590, y: 100, text: 'a long label' }], plot, 600)[0].position).toBe('left');
  });

  it('puts each ◆ where ECharts puts its bar: the bars of a category side by side, 30 % apart', () => {
    // One bar fills 80 % of its band; four: 0.8 / (4 + 0.9) of it each.
    expect(barOffset(100, 1, 0)).toBeCloseTo(0, 6);
    const w = 80 / 4.9;
    expect(barOffset(100, 4, 0)).toBeCloseTo(-40 + w / 2, 6);
    expect(barOffset(100, 4, 3)).toBeCloseTo(40 - w / 2, 6);
  });

  it('wraps the source line by words within the width, and counts the legend\'s rows', () => {
    const text = 'volbench report, 2026-11-29. Prices: us-east-1 as of 2026-11-22; $/month and $ per unit are the volume alone';
    const lines = wrapText(text, 200);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.join(' ')).toBe(text);
    for (const l of lines) expect(l.length * 10 * 0.62).toBeLessThanOrEqual(200);
    expect(legendRows(['a'], 600)).toBe(1);
    expect(legendRows(Array.from({ length: 8 }, (_, i) => `gp3 500 GiB 6000/250 #${i}`), 600)).toBeGreaterThan(2);
  });

  it('gives axes round ends and short labels', () => {
    expect([niceEnd(1_700_752), niceEnd(1052.5), niceEnd(8)]).toEqual([2_000_000, 2000, 10]);
    expect([shortNumber(1_600_000), shortNumber(400_000), shortNumber(950), shortNumber(0.25)]).toEqual(['1.6M', '400k', '950', '0.25']);
  });
});
