/**
 * The verdicts: for each question a suite answers (the suite manifest's: a test, a metric, and
 * whether higher or lower is better), which volume wins, by how much over the runner-up, and
 * over how many repeats. Rows that share a label (`base_label`) are repeats of one volume: the
 * median ranks, the range shows, and a runner-up inside the winner's range is no clear winner.
 */
import { VolbenchError } from '../errors.js';
import { ownValue } from '../own-key.js';
import { QUESTION_METRICS, suiteManifest, type SuiteQuestion } from '../suites/manifest.js';
import type { AboveCause } from './entitled.js';
import type { Dir } from './suite-columns.js';
import { dollars, inUnit, type ThroughputUnit } from './units.js';

/** What a verdict reads of a report row (the model's VerdictRow has these; the model calls this module). */
export interface VerdictRow {
  base_label: string;
  cells: Record<string, { value: number | null; flag: AboveCause | null }>;
  details: { tests: Array<{ test: string; dir: Dir; iops: number; mibps: number; clat_p99_us: number | null }> };
}

export interface VerdictGroup {
  suite: string | null;
  rows: readonly VerdictRow[];
}

export type VerdictMetric = (typeof QUESTION_METRICS)[number];

export interface Verdict {
  suite: string;
  question: string;
  test: string;
  metric: VerdictMetric;
  better: 'higher' | 'lower';
  /** The winning volume's label, its figure (the median of its repeats) and their range. */
  winner: string;
  value: number;
  range: [number, number];
  /** Repeats of the winner. */
  n: number;
  runner_up: string | null;
  runner_up_value: number | null;
  /** How far ahead the winner is: > 1, whichever way is better. */
  ratio: number | null;
  /** False when the runner-up's figure lies within the winner's range. */
  clear: boolean;
  /** The winner's figure is above what its volume allows (⚑): the likely cause, and the verdict is not the volume's. */
  flag: AboveCause | null;
}

const METRIC_WORDS: Readonly<Record<VerdictMetric, string>> = {
  iops: 'IOPS', mibps: 'MiB/s', p50_us: 'p50 latency', p99_us: 'p99 latency',
  usd_per_1000_iops: '$ per 1,000 IOPS', usd_per_mibps: '$ per MiB/s',
};

export function betterOf(metric: VerdictMetric): 'higher' | 'lower' {
  return metric === 'iops' || metric === 'mibps' ? 'higher' : 'lower';
}

/** `--rank-by`: one of the question metrics. */
export function parseRankBy(text: string, field = '--rank-by'): VerdictMetric {
  if ((QUESTION_METRICS as readonly string[]).includes(text)) return text as VerdictMetric;
  throw new VolbenchError('EINVALID_VALUE', `${field} takes ${QUESTION_METRICS.join(', ')}, not '${text}'`, { field, accepted: QUESTION_METRICS.join(', ') });
}

const isPrice = (metric: VerdictMetric): metric is 'usd_per_1000_iops' | 'usd_per_mibps' => metric === 'usd_per_1000_iops' || metric === 'usd_per_mibps';

/** A row's figure for a test and metric, or null (no result, no price): a price is the row's cell at that test, the one its table shows. */
export function rowFigure(row: VerdictRow, test: string, metric: VerdictMetric): number | null {
  if (isPrice(metric)) return ownValue(row.cells, `${test}:${metric}`)?.value ?? null;
  const figures = row.details.tests.filter((t) => t.test === test);
  const f = figures.find((t) => test.endsWith(`-${t.dir}`)) ?? figures[0];
  if (!f) return null;
  if (metric === 'iops') return f.iops;
  if (metric === 'mibps') return f.mibps;
  if (metric === 'p99_us') return f.clat_p99_us;
  const cell = Object.entries(row.cells).find(([key]) => key === `${test}:${f.dir}:p50_us`)?.[1];
  return cell?.value ?? null;
}

interface Candidate {
  label: string;
  values: number[];
  value: number;
  flag: AboveCause | null;
}

/** The flag of the cell the figure is read from (a price figure: its own cell, the test's whole rate against its entitlement). */
function figureFlag(row: VerdictRow, test: string, metric: VerdictMetric): AboveCause | null {
  if (isPrice(metric)) return ownValue(row.cells, `${test}:${metric}`)?.flag ?? null;
  return Object.entries(row.cells).find(([key, c]) => key.startsWith(`${test}:`) && key.endsWith(`:${metric}`) && c.flag)?.[1].flag ?? null;
}

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

function candidates(rows: readonly VerdictRow[], test: string, metric: VerdictMetric): Candidate[] {
  const byLabel = new Map<string, { values: number[]; flag: AboveCause | null }>();
  for (const r of rows) {
    const v = rowFigure(r, test, metric);
    if (v === null || !Number.isFinite(v) || (metric.endsWith('_us') && v <= 0)) continue;
    const c = byLabel.get(r.base_label) ?? { values: [], flag: null };
    byLabel.set(r.base_label, { values: [...c.values, v], flag: c.flag ?? figureFlag(r, test, metric) });
  }
  return [...byLabel].map(([label, c]) => ({ label, values: c.values, value: median(c.values), flag: c.flag }));
}

function verdictOf(suite: string, q: SuiteQuestion, rows: readonly VerdictRow[]): Verdict | null {
  const ranked = candidates(rows, q.test, q.metric).sort((a, b) => (q.better === 'higher' ? b.value - a.value : a.value - b.value));
  const [win, second] = ranked;
  if (!win) return null;
  const range: [number, number] = [Math.min(...win.values), Math.max(...win.values)];
  const ratio = second ? (q.better === 'higher' ? win.value / second.value : second.value / win.value) : null;
  const clear = !second || win.values.length < 2 || second.value < range[0] || second.value > range[1];
  return {
    suite, question: q.question, test: q.test, metric: q.metric, better: q.better,
    winner: win.label, value: win.value, range, n: win.values.length,
    runner_up: second?.label ?? null, runner_up_value: second?.value ?? null,
    ratio: ratio !== null && Number.isFinite(ratio) ? ratio : null, clear, flag: win.flag,
  };
}

/** The questions of a suite, or with `rankBy` each of its tests asked by that figure instead. */
function questionsOf(suite: string, rankBy: VerdictMetric | undefined): SuiteQuestion[] {
  const own = suiteManifest().find((s) => s.name === suite)?.questions ?? [];
  if (!rankBy) return own;
  const better = betterOf(rankBy);
  const tests = [...new Set(own.map((q) => q.test))];
  return tests.map((test) => ({ question: `${better === 'higher' ? 'most' : 'lowest'} ${METRIC_WORDS[rankBy]} at ${test}`, test, metric: rankBy, better }));
}

export function reportVerdicts(groups: readonly VerdictGroup[], rankBy?: VerdictMetric): Verdict[] {
  return groups.flatMap((g) => (g.suite === null ? [] : questionsOf(g.suite, rankBy)
    .map((q) => verdictOf(g.suite as string, q, g.rows)).filter((v): v is Verdict => v !== null)));
}

function figureText(v: number, metric: VerdictMetric, unit: ThroughputUnit): string {
  switch (metric) {
    case 'iops': return `${Math.round(v).toLocaleString('en-US')} IOPS`;
    case 'mibps': return `${inUnit(v, unit).toFixed(1)} ${unit}`;
    case 'p50_us': case 'p99_us': return `${v >= 100 ? v.toFixed(0) : v.toPrecision(3)} µs`;
    case 'usd_per_1000_iops': return `$${dollars(v)} per 1,000 IOPS`;
    case 'usd_per_mibps': return `$${dollars(v / inUnit(1, unit))} per ${unit}`;
  }
}

function aheadWord(metric: VerdictMetric): string {
  if (metric === 'iops') return 'more than';
  if (metric === 'mibps') return 'faster than';
  if (metric.startsWith('usd')) return 'cheaper than';
  return 'lower than';
}

/**
 * One line: `most IOPS at …: gp3 500 GiB 6000/250, 6,012 IOPS, 2.40× more than io2 … (2,505 IOPS)`;
 * with repeats `(n=3, 5,980–6,040)`, and `no clear winner` where the runner-up is within range.
 */
export function verdictText(v: Verdict, unit: ThroughputUnit = 'MiB/s'): string {
  return `${verdictHead(v, unit)}${v.flag ? ` ⚑ above what the volume allows (${v.flag})` : ''}`;
}

function verdictHead(v: Verdict, unit: ThroughputUnit): string {
  const fig = (x: number): string => figureText(x, v.metric, unit);
  const repeats = v.n > 1 ? ` (n=${v.n}, ${fig(v.range[0])} – ${fig(v.range[1])})` : '';
  const head = `${v.question}: ${v.winner}, ${fig(v.value)}${repeats}`;
  if (v.runner_up === null || v.runner_up_value === null) return `${head}; the only volume measured`;
  const runner = `${v.runner_up} (${fig(v.runner_up_value)})`;
  if (!v.clear) return `${v.question}: no clear winner: ${v.winner}, ${fig(v.value)}${repeats}, and ${runner} within its range`;
  // Apart by less than the last digit shown: a tie in words, whatever the order.
  if (v.ratio !== null && v.ratio < 1.005) return `${head}, level with ${runner}`;
  return `${head}, ${v.ratio === null ? '' : `${v.ratio.toFixed(2)}× `}${aheadWord(v.metric)} ${runner}`;
}
