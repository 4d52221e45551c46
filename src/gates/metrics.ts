/**
 * The numbers a gate or a comparison can read from a fio job entry, by name: `iops`, `bw`,
 * `io_bytes`, `error`, and latency statistics such as `clat_ns.mean` or `lat_ns.p99.9`. The
 * same code reads volbench's results and real fio's JSON.
 */
import { HIST_BUCKETS, bucketIndex, percentiles } from '../fio-output/histogram.js';
import type { FioDirStats, FioJob, FioLatStats } from '../fio-output/fio-result.js';
import { formatFixed } from '../fio-output/printf.js';
import type { ValueKind } from './values.js';

export type Direction = 'read' | 'write' | 'trim' | 'sync' | 'mixed';
export const DIRECTIONS: readonly Direction[] = ['read', 'write', 'trim', 'sync', 'mixed'];
/** Directions that carry data, in fio's order; `mixed` is unified_rw_reporting's. */
export const DATA_DIRECTIONS = ['read', 'write', 'trim', 'mixed'] as const;
export type DataDirection = (typeof DATA_DIRECTIONS)[number];

export type LatencyKind = 'clat_ns' | 'lat_ns' | 'slat_ns';
export type LatencyStat = 'mean' | 'min' | 'max' | 'stddev';

export type Metric =
  | { name: string; kind: 'iops' | 'bw' | 'io_bytes' | 'error' }
  | { name: string; kind: 'latency'; latency: LatencyKind; stat: LatencyStat }
  | { name: string; kind: 'percentile'; latency: LatencyKind; percentile: number };

export const METRICS_ACCEPTED =
  'iops, bw, io_bytes, error, or clat_ns / lat_ns / slat_ns followed by .mean, .min, .max, .stddev ' +
  'or a percentile such as .p99, .p99.9, .p50';

/** Parses a metric name; null when it is not one. `clat`, `lat`, `slat` stand for the _ns forms. */
export function parseMetric(text: string): Metric | null {
  if (text === 'iops' || text === 'bw' || text === 'io_bytes' || text === 'error') return { name: text, kind: text };
  const m = /^(clat|lat|slat)(?:_ns)?\.(mean|min|max|stddev|p(\d+(?:\.\d+)?))$/.exec(text);
  if (!m) return null;
  const latency = `${m[1]}_ns` as LatencyKind;
  if (m[3] === undefined) return { name: `${latency}.${m[2]}`, kind: 'latency', latency, stat: m[2] as LatencyStat };
  const percentile = Number(m[3]);
  if (!(percentile > 0 && percentile <= 100)) return null;
  return { name: `${latency}.p${m[3]}`, kind: 'percentile', latency, percentile };
}

export function metricValueKind(metric: Metric): ValueKind {
  switch (metric.kind) {
    case 'iops':
      return 'count';
    case 'bw':
      return 'bandwidth';
    case 'io_bytes':
      return 'bytes';
    case 'error':
      return 'errno';
    default:
      return 'time';
  }
}

/** True when a larger value is better (throughput); latencies and errors are better smaller. */
export function higherIsBetter(metric: Metric): boolean {
  return metric.kind === 'iops' || metric.kind === 'bw' || metric.kind === 'io_bytes';
}

/** fio's percentile key: printf("%f") of the value, "99.900000", as the report prints it. */
export function percentileKey(percentile: number): string {
  return formatFixed(percentile, 6);
}

/**
 * A percentile of a latency: fio's own value when it printed that percentile, otherwise
 * computed from the json+ histogram bins with fio's rule (the first bucket whose running count
 * reaches p/100 of N, reported as the bucket's value). Null when neither is there.
 */
export function latencyPercentile(stats: FioLatStats, percentile: number): number | null {
  const printed = stats.percentile?.[percentileKey(percentile)];
  if (printed !== undefined) return printed;
  if (!stats.bins || stats.N <= 0) return null;
  const hist = new Float64Array(HIST_BUCKETS);
  for (const [value, count] of Object.entries(stats.bins)) hist[bucketIndex(Number(value))] += count;
  return percentiles(hist, stats.N, [percentile])[0];
}

/** The stats of one direction of an entry; `sync` has only lat_ns. */
export function directionStats(job: FioJob, dir: Direction): FioDirStats | FioJob['sync'] | undefined {
  return job[dir];
}

/** Directions of an entry that did I/O, in fio's order. */
export function directionsWithIo(job: FioJob): DataDirection[] {
  return DATA_DIRECTIONS.filter((d) => (job[d]?.total_ios ?? 0) > 0 || (job[d]?.io_bytes ?? 0) > 0);
}

export type Measurement = { value: number } | { missing: string };

type LatencyMetric = Extract<Metric, { latency: LatencyKind }>;

function measureLatency(stats: object, dir: Direction, metric: LatencyMetric): Measurement {
  const lat = (stats as Partial<Record<LatencyKind, FioLatStats>>)[metric.latency];
  if (!lat) return { missing: `${dir} has no ${metric.latency}` };
  if (lat.N === 0) return { missing: `${dir}.${metric.latency} has no samples` };
  if (metric.kind === 'latency') return { value: lat[metric.stat] };
  const value = latencyPercentile(lat, metric.percentile);
  if (value === null) {
    return { missing: `${dir}.${metric.latency} has no percentile ${metric.percentile} and no histogram bins to compute it from (json+)` };
  }
  return { value };
}

/** Reads `metric` from `job`'s direction `dir` (ignored for `error`). */
export function measure(job: FioJob, dir: Direction | null, metric: Metric): Measurement {
  if (metric.kind === 'error') return { value: job.error };
  if (dir === null) return { missing: 'no direction' };
  const stats = directionStats(job, dir);
  if (!stats) return { missing: `job ${job.jobname} has no ${dir} section` };
  if (metric.kind === 'latency' || metric.kind === 'percentile') return measureLatency(stats, dir, metric);
  if (!('iops' in stats)) return { missing: `${dir} has no ${metric.kind} (only lat_ns)` };
  return { value: metric.kind === 'bw' ? stats.bw_bytes : metric.kind === 'iops' ? stats.iops : stats.io_bytes };
}
