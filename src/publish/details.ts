/**
 * What the charts of a row draw besides its cells: each test's figures, its latency
 * percentiles, its per-second series and any sweep.
 */
import type { FioDirStats } from '../fio-output/fio-result.js';
import { dirStats, dirsDone, entryState, metricValue } from './cells.js';
import { sweepCurves, type SweepCurve } from './cloud-fields.js';
import type { Draft } from './drafts.js';
import type { Dir } from './suite-columns.js';

const MIB = 1024 * 1024;

export interface SeriesPoint {
  /** The end of the interval the point measures, seconds into the job: the first is about 1. */
  t_s: number;
  iops: number;
  mibps: number;
  /** Completion latency over the interval, µs: the mean, and the p99 (an upper bound for numjobs > 1). */
  clat_mean_us: number;
  clat_p99_us: number;
}

/** Fewer points than this draw no line worth a chart (a sub-second test has one). */
export const MIN_SERIES_POINTS = 3;

/** What the charts of one row draw besides its cells. */
/** One test and direction's figures, for the grouped chart. */
export interface TestFigures {
  test: string;
  dir: Dir;
  iops: number;
  mibps: number;
  clat_mean_us: number | null;
  clat_p99_us: number | null;
}

export interface RowDetails {
  /** Per test and direction done (`SEQ1M-Q8T1-read read`), in the document's order. */
  tests: TestFigures[];
  /** Per test and direction (`RND4K-Q1T1-read read`): [percentile, µs] pairs of clat. */
  percentiles: Record<string, Array<[number, number]>>;
  /** Per test and direction: the per-second series. */
  series: Record<string, SeriesPoint[]>;
  sweep: SweepCurve[];
}

export function details(d: Draft): RowDetails {
  const percentiles: RowDetails['percentiles'] = {};
  const series: RowDetails['series'] = {};
  const tests: TestFigures[] = [];
  for (const [name, e] of d.tests) {
    // A test that failed or was cancelled draws nothing, as its cells show no number.
    if (entryState(e) !== 'ok') continue;
    for (const dir of dirsDone(e)) {
      const most = e.jobs.map((j) => dirStats(j, dir)).filter((s): s is FioDirStats => s !== undefined)
        .reduce<FioDirStats | undefined>((a, s) => (a === undefined || s.total_ios > a.total_ios ? s : a), undefined);
      const mean = most?.clat_ns?.mean ?? most?.lat_ns?.mean;
      tests.push({
        test: name, dir, iops: metricValue(e, dir, 'iops') ?? 0, mibps: metricValue(e, dir, 'mibps') ?? 0,
        clat_mean_us: typeof mean === 'number' ? mean / 1000 : null, clat_p99_us: metricValue(e, dir, 'p99_us'),
      });
      const pct = most?.clat_ns?.percentile ?? most?.lat_ns?.percentile;
      if (pct) {
        percentiles[`${name} ${dir}`] = Object.entries(pct)
          .map(([k, ns]): [number, number] => [Number(k), ns / 1000])
          .filter(([p, us]) => Number.isFinite(p) && Number.isFinite(us))
          .sort((a, b) => a[0] - b[0]);
      }
      const points = e.vb[0]?.series;
      if (Array.isArray(points) && points.length >= MIN_SERIES_POINTS) {
        series[`${name} ${dir}`] = points.map((p) => ({
          // t_ms is the interval's end already. Tenths of a second: the volumes' samples line up
          // in the chart's table.
          t_s: Math.round(p.t_ms / 100) / 10,
          iops: p[dir]?.iops ?? 0,
          mibps: (p[dir]?.bw_bytes ?? 0) / MIB,
          clat_mean_us: (p[dir]?.clat_mean_ns ?? 0) / 1000,
          clat_p99_us: (p[dir]?.clat_p99_ns ?? 0) / 1000,
        }));
      }
    }
  }
  const sweep = sweepCurves(d.doc?.volbench?.sweep);
  return { tests, percentiles, series, sweep };
}

