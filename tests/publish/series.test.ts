/**
 * The per-second series the report draws, from real runs on tmpfs.
 *
 * Broke: the points were placed at t_ms + dur_ms, but t_ms is already the end of the interval
 * a point measures, so a 4 s job was drawn from 2 s to 5 s; and a sub-second test (one point)
 * drew a one-dot chart. Expected: the first point at 1 s, the last at the job's runtime, and no
 * series (so no chart) for fewer than three points.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { runJobs } from '../../src/index.js';
import { buildPublishReport, groupCharts, MIN_SERIES_POINTS } from '../../src/publish/index.js';
import { requires } from '../helpers/requires.js';

const needs = requires('tmpfs', 'serial');

const dir = mkdtempSync(join('/dev/shm', `volbench-series-${process.pid}-`));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function spec(name: string, runtime: string) {
  return {
    global: { filename: join(dir, `${name}.bin`), size: '8m', direct: 1, ioengine: 'psync', time_based: true, runtime },
    jobs: [{ name, rw: 'randread', bs: '4k' }],
  };
}

describe('per-second series in the report', () => {
  it('starts at 1 s and ends at the runtime', async () => {
    const result = await runJobs(spec('four-seconds', '4s'));
    const raw = result.volbench.jobs[0].series ?? [];
    expect(raw.length).toBeGreaterThanOrEqual(MIN_SERIES_POINTS);
    const report = buildPublishReport([{ source: 'four-seconds.json', result }]);
    const points = report.groups[0].rows[0].details.series['four-seconds read'];
    expect(points.length).toBe(raw.length);
    // About one point a second, each at the end of its interval.
    expect(points[0].t_s).toBeGreaterThanOrEqual(0.9);
    expect(points[0].t_s).toBeLessThanOrEqual(1.1);
    expect(points.at(-1)!.t_s).toBeGreaterThanOrEqual(3.9);
    expect(points.at(-1)!.t_s).toBeLessThanOrEqual(4.2);
    for (const p of points) {
      expect(p.iops).toBeGreaterThan(0);
      expect(p.clat_mean_us).toBeGreaterThan(0);
      expect(p.clat_p99_us).toBeGreaterThan(0);
    }
    const chart = groupCharts(report.groups[0]).find((c) => c.kind === 'series')!;
    expect(chart.table.rows[0][0]).toBe(points[0].t_s.toFixed(1));
  });

  it('draws no series chart for a sub-second test', async () => {
    const result = await runJobs(spec('half-second', '500ms'));
    expect(result.volbench.jobs[0].series?.length ?? 0).toBeLessThan(MIN_SERIES_POINTS);
    const report = buildPublishReport([{ source: 'half-second.json', result }]);
    expect(report.groups[0].rows[0].details.series).toEqual({});
    expect(groupCharts(report.groups[0]).filter((c) => c.kind === 'series')).toEqual([]);
    // The test's other charts are still drawn.
    expect(groupCharts(report.groups[0]).map((c) => c.kind)).toContain('grouped');
  });
});
