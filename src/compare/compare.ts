/**
 * compareResults: two fio results (a baseline A and a candidate B) job by job and direction by
 * direction, with the change of each metric and whether B is worse than A beyond a tolerance.
 * Higher is better for iops, bw and io_bytes; lower for latencies and error.
 */
import { VolbenchError } from '../errors.js';
import { directionsWithIo, higherIsBetter, measure, parseMetric, METRICS_ACCEPTED, type DataDirection, type Metric } from '../gates/metrics.js';
import type { FioJob, FioJson } from '../fio-output/fio-result.js';

export interface CompareOptions {
  /** Allowed change for the worse, in percent (default 5). */
  tolerancePct?: number;
  /** Metric names as in assertions (default iops, bw, clat_ns.p99). */
  metrics?: readonly string[];
}

export const DEFAULT_COMPARE_METRICS = ['iops', 'bw', 'clat_ns.p99'] as const;

export interface ComparisonRow {
  /** The job's name, with `#n` when several entries share it. */
  job: string;
  dir: DataDirection | null;
  metric: string;
  a: number | null;
  b: number | null;
  /** (b - a) / a in percent; null when either is missing or a is 0. */
  changePct: number | null;
  higherIsBetter: boolean;
  /** B is worse than A by more than the tolerance. */
  worse: boolean;
}

export interface Comparison {
  tolerancePct: number;
  rows: ComparisonRow[];
  /** Jobs (by name) present in only one of the results. */
  onlyInA: string[];
  onlyInB: string[];
  /** Any row worse beyond the tolerance. */
  worse: boolean;
}

/** Entries keyed by name, with `#n` for the n-th repeat of a name (numjobs without group_reporting). */
function keyed(jobs: readonly FioJob[]): Map<string, FioJob> {
  const seen = new Map<string, number>();
  const out = new Map<string, FioJob>();
  for (const job of jobs) {
    const n = seen.get(job.jobname) ?? 0;
    seen.set(job.jobname, n + 1);
    out.set(n === 0 ? job.jobname : `${job.jobname}#${n + 1}`, job);
  }
  return out;
}

function parseMetrics(names: readonly string[]): Metric[] {
  return names.map((name) => {
    const metric = parseMetric(name);
    if (!metric) throw new VolbenchError('EINVALID_ARGS', `unknown metric '${name}'`, { field: '--metric', accepted: METRICS_ACCEPTED });
    return metric;
  });
}

function row(job: string, dir: DataDirection | null, metric: Metric, ja: FioJob, jb: FioJob, tolerancePct: number): ComparisonRow {
  const ma = measure(ja, dir, metric);
  const mb = measure(jb, dir, metric);
  const a = 'value' in ma ? ma.value : null;
  const b = 'value' in mb ? mb.value : null;
  const changePct = a !== null && b !== null && a !== 0 ? ((b - a) / Math.abs(a)) * 100 : null;
  const higher = higherIsBetter(metric);
  // A metric that was 0 and is not now (errors, mostly) is worse with no percentage to show.
  const fromZero = a === 0 && b !== null && b !== 0 && !higher;
  const worse = fromZero || (changePct !== null && (higher ? changePct < -tolerancePct : changePct > tolerancePct));
  return { job, dir, metric: metric.name, a, b, changePct, higherIsBetter: higher, worse };
}

function rowsFor(job: string, ja: FioJob, jb: FioJob, metrics: Metric[], tolerancePct: number): ComparisonRow[] {
  const dirs = [...new Set([...directionsWithIo(ja), ...directionsWithIo(jb)])];
  const out: ComparisonRow[] = [];
  for (const metric of metrics.filter((m) => m.kind === 'error')) out.push(row(job, null, metric, ja, jb, tolerancePct));
  for (const dir of dirs) {
    for (const metric of metrics.filter((m) => m.kind !== 'error')) out.push(row(job, dir, metric, ja, jb, tolerancePct));
  }
  return out;
}

/** Compares B against baseline A; throws when no job of B pairs with one of A. */
export function compareResults(a: FioJson, b: FioJson, options: CompareOptions = {}): Comparison {
  const tolerancePct = options.tolerancePct ?? 5;
  if (!(tolerancePct >= 0)) {
    throw new VolbenchError('EINVALID_VALUE', `tolerance must be 0% or more, not ${tolerancePct}%`, { field: '--tolerance', accepted: 'a percentage such as 5%' });
  }
  const metrics = parseMetrics(options.metrics ?? DEFAULT_COMPARE_METRICS);
  const ka = keyed(a.jobs);
  const kb = keyed(b.jobs);
  const paired = [...ka.keys()].filter((k) => kb.has(k));
  if (paired.length === 0) {
    throw new VolbenchError('EINVALID_ARGS', `no job of the second result has the name of a job of the first (first: ${[...ka.keys()].join(', ') || 'none'}; second: ${[...kb.keys()].join(', ') || 'none'})`, {});
  }
  const rows = paired.flatMap((k) => rowsFor(k, ka.get(k)!, kb.get(k)!, metrics, tolerancePct));
  return {
    tolerancePct,
    rows,
    onlyInA: [...ka.keys()].filter((k) => !kb.has(k)),
    onlyInB: [...kb.keys()].filter((k) => !ka.has(k)),
    worse: rows.some((r) => r.worse),
  };
}
