/**
 * Per-second series of long runs are cut down to what a chart can show (a 600 s run of 64 jobs
 * drew 128 series charts of 600 points each, every point an SVG segment and a table row): each
 * line keeps at most MAX_CHART_POINTS points, runs of k seconds merged into their mean at the
 * time the run ends, the same k for every line of a chart so the table keeps one row per time.
 */
import { describe, expect, it } from 'vitest';

import { buildPublishReport, groupCharts } from '../../src/publish/index.js';
import { MAX_CHART_POINTS, mergeFactor, mergePoints } from '../../src/publish/downsample.js';
import type { FioJson } from '../../src/fio-output/fio-result.js';
import { requires } from '../helpers/requires.js';
import { jobs64Result } from '../helpers/stored-runs.js';

requires();

describe('series downsampling', () => {
  it('merges runs of k seconds into their mean, at the end of the run', () => {
    const points: Array<[number, number]> = Array.from({ length: 7 }, (_, i) => [i + 1, i < 4 ? 3000 : 300]);
    expect(mergePoints(points, 1)).toEqual(points);
    expect(mergePoints(points, 2)).toEqual([[2, 3000], [4, 3000], [6, 300], [7, 300]]);
    expect(mergePoints(points, 3)).toEqual([[3, 3000], [6, 1200], [7, 300]]);
    expect(mergeFactor([{ points: Array(300) }])).toBe(1);
    expect(mergeFactor([{ points: Array(301) }, { points: Array(5) }])).toBe(2);
    expect(mergeFactor([{ points: Array(3600) }])).toBe(12);
  });

  it("keeps a 600 s run of 64 jobs within what a chart shows, its totals intact", () => {
    const doc = JSON.parse(jobs64Result()) as FioJson;
    const report = buildPublishReport([{ source: 'run', result: doc }]);
    const series = groupCharts(report.groups[0]).filter((c) => c.kind === 'series');
    expect(series).toHaveLength(128);
    for (const chart of series) {
      expect(chart.title).toMatch(/per 2 s \(mean\)$/);
      const lines = chart.option.series as Array<{ data: Array<[number, number]> }>;
      for (const line of lines) expect(line.data.length).toBeLessThanOrEqual(MAX_CHART_POINTS);
      expect(chart.table.rows.length).toBe(300);
    }
    // The mean over the run is the mean of the merged points (every run of 2 s is whole).
    const key = Object.keys(report.groups[0].rows[0].details.series)[0];
    const perSecond = report.groups[0].rows[0].details.series[key].map((p) => p.iops);
    const merged = (series.find((c) => c.title.startsWith(`${key}:`))!.option.series as Array<{ data: Array<[number, number]> }>)[0].data;
    const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
    expect(mean(merged.map((p) => p[1]))).toBeCloseTo(mean(perSecond), 9);
  });
});
