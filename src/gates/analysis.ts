/**
 * Gates on what an analysis found rather than on one job: `<analysis>.<metric> <op> <value>`,
 *
 *   sweep.optimal_depth >= 8
 *   uniformity.min_mbps >= 100
 *   rotational.rpm >= 7000
 *
 * read from the result's `volbench.<analysis>` section. Plain numbers (a depth, MB/s, RPM) take
 * a bare number, optionally with k, M or G; latencies take a time (2ms, 500us).
 */
import { VolbenchError } from '../errors.js';
import { hasOwnKey, ownValue } from '../own-key.js';
import type { FioJson, VolbenchAssertion } from '../fio-output/fio-result.js';
import type { ComparisonOp } from './compare.js';
import { formatValue, parseValue } from './values.js';

export type AnalysisName = 'sweep' | 'uniformity' | 'rotational';

type AnalysisKind = 'number' | 'time';

interface AnalysisMetric {
  kind: AnalysisKind;
  /** Where the number is in the analysis section; null when the run found none. */
  read: (section: Record<string, unknown>) => number | null;
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** `section[key]`, or `section[outer][key]` when outer is given. */
function field(outer: string | null, key: string): AnalysisMetric['read'] {
  return (section) => {
    const holder = outer === null ? section : section[outer];
    return typeof holder === 'object' && holder !== null ? num((holder as Record<string, unknown>)[key]) : null;
  };
}

const ANALYSIS_METRICS: Record<AnalysisName, Record<string, AnalysisMetric>> = {
  sweep: {
    optimal_depth: { kind: 'number', read: field('optimum', 'value') },
    optimal_iops: { kind: 'number', read: field('optimum', 'iops') },
    optimal_mbps: { kind: 'number', read: (s) => { const bw = field('optimum', 'bw_bytes')(s); return bw === null ? null : bw / 1e6; } },
    optimal_p99: { kind: 'time', read: field('optimum', 'clat_p99_ns') },
    optimal_latency: { kind: 'time', read: field('optimum', 'clat_mean_ns') },
    speedup: { kind: 'number', read: field('optimum', 'speedup') },
    max_iops: { kind: 'number', read: field(null, 'max_iops') },
    points: { kind: 'number', read: (s) => (Array.isArray(s.points) ? s.points.length : null) },
  },
  uniformity: {
    min_mbps: { kind: 'number', read: field(null, 'min_mbps') },
    avg_mbps: { kind: 'number', read: field(null, 'avg_mbps') },
    max_mbps: { kind: 'number', read: field(null, 'max_mbps') },
    spread: { kind: 'number', read: field(null, 'spread') },
    chunks: { kind: 'number', read: (s) => (Array.isArray(s.series) ? s.series.length : null) },
  },
  rotational: {
    rpm: { kind: 'number', read: field(null, 'rpm') },
    revolution_time: { kind: 'time', read: field(null, 'revolution_ns') },
    seek_time: { kind: 'time', read: field(null, 'full_stroke_seek_ns') },
    track_to_track: { kind: 'time', read: field(null, 'track_to_track_ns') },
  },
};

export const ANALYSIS_NAMES = Object.keys(ANALYSIS_METRICS) as AnalysisName[];

function metricOf(analysis: string, metric: string): AnalysisMetric | null {
  if (!hasOwnKey(ANALYSIS_METRICS, analysis)) return null;
  return ownValue(ANALYSIS_METRICS[analysis], metric) ?? null;
}

/** The metrics one analysis can be gated on, for messages. */
export function analysisMetricsAccepted(analysis: AnalysisName): string {
  return Object.keys(ANALYSIS_METRICS[analysis]).map((m) => `${analysis}.${m}`).join(', ');
}

export const ANALYSIS_ACCEPTED =
  `an analysis result: ${ANALYSIS_NAMES.map((a) => analysisMetricsAccepted(a)).join('; ')}`;

/** `sweep.optimal_depth` → its parts, when it names an analysis metric; else null. */
export function analysisSubject(subject: string): { analysis: AnalysisName; metric: string } | null {
  const dot = subject.indexOf('.');
  if (dot < 0) return null;
  const analysis = subject.slice(0, dot);
  const metric = subject.slice(dot + 1);
  return metricOf(analysis, metric) ? { analysis: analysis as AnalysisName, metric } : null;
}

/** The unit an analysis metric's numbers are in: ns for times, '' for plain numbers. */
export function analysisUnit(analysis: AnalysisName, metric: string): string {
  return metricOf(analysis, metric)?.kind === 'time' ? 'ns' : '';
}

const NUMBER_ACCEPTED = 'a number, optionally with k, M or G (8, 100, 7.2k)';

/** The value an analysis metric is compared with, in its base unit (a number, or ns). */
export function parseAnalysisValue(analysis: AnalysisName, metric: string, text: string, expr: string): { value: number; unit: string } {
  const kind = metricOf(analysis, metric)!.kind;
  try {
    return parseValue(text, kind === 'time' ? 'time' : 'count', '--assert');
  } catch (err) {
    if (!(err instanceof VolbenchError)) throw err;
    throw new VolbenchError('EINVALID_VALUE', `assertion '${expr}': '${text}' is not ${kind === 'time' ? 'a time' : 'a number'}`, {
      field: '--assert',
      accepted: kind === 'time' ? (err.accepted ?? 'a time') : NUMBER_ACCEPTED,
    });
  }
}

function formatAnalysisValue(value: number, kind: AnalysisKind, unit: string): string {
  if (kind === 'time') return formatValue(value, 'time', unit);
  return Number.isInteger(value) ? String(value) : value.toFixed(2).replace(/\.?0+$/, '');
}

interface AnalysisAssertionLike {
  expr: string;
  job: string;
  metric: string;
  op: ComparisonOp;
  wanted: number;
  wantedUnit: string;
}

/** Judges one analysis assertion on a result; `compare` is the gates' own comparison. */
export function evaluateAnalysis(
  a: AnalysisAssertionLike, result: FioJson, compare: (m: number, op: ComparisonOp, w: number) => boolean,
): VolbenchAssertion {
  const metric = metricOf(a.job, a.metric)!;
  const unit = analysisUnit(a.job as AnalysisName, a.metric);
  const base = { expr: a.expr, job: a.job, dir: null, metric: a.metric, op: a.op, wanted: a.wanted, unit };
  const section = (result.volbench as Record<string, unknown> | undefined)?.[a.job];
  if (typeof section !== 'object' || section === null) {
    return { ...base, measured: null, passed: false, message: `the result holds no ${a.job} (it was not made by volbench ${a.job})` };
  }
  const measured = metric.read(section as Record<string, unknown>);
  if (measured === null) return { ...base, measured: null, passed: false, message: `the ${a.job} found no ${a.metric}` };
  const passed = compare(measured, a.op, a.wanted);
  const shown = (v: number) => formatAnalysisValue(v, metric.kind, a.wantedUnit);
  return { ...base, measured, passed, message: `measured ${shown(measured)}, wanted ${a.op} ${shown(a.wanted)}` };
}
