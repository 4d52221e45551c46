/**
 * A comparison as a table: job, direction, metric, A, B, change and a verdict per row, then the
 * jobs that did not pair and one line with the outcome.
 */
import { metricValueKind, parseMetric } from '../gates/metrics.js';
import { formatValue } from '../gates/values.js';
import type { Comparison, ComparisonRow } from './compare.js';

function cell(value: number | null, metric: string): string {
  if (value === null) return 'n/a';
  const kind = metricValueKind(parseMetric(metric)!);
  // The metric column already says IOPS.
  return kind === 'count' ? formatValue(value, kind, '').replace(/ IOPS$/, '') : formatValue(value, kind);
}

function verdict(r: ComparisonRow): string {
  if (r.worse) return 'WORSE';
  if (r.a === null || r.b === null) return 'missing';
  if (r.changePct === null) return r.a === r.b ? 'ok' : '';
  const better = r.higherIsBetter ? r.changePct > 0 : r.changePct < 0;
  return better && r.changePct !== 0 ? 'better' : 'ok';
}

function change(r: ComparisonRow): string {
  if (r.changePct === null) return '-';
  return `${r.changePct >= 0 ? '+' : ''}${r.changePct.toFixed(1)}%`;
}

/** The comparison as text, newline-terminated. */
export function formatComparison(c: Comparison, names: [string, string] = ['A', 'B']): string {
  const header = ['job', 'dir', 'metric', names[0], names[1], 'change', ''];
  const rows = c.rows.map((r) => [r.job, r.dir ?? '-', r.metric, cell(r.a, r.metric), cell(r.b, r.metric), change(r), verdict(r)]);
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  const text = all.map((r) => r.map((v, i) => (i < 3 || i === 6 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join('  ').trimEnd());
  if (c.onlyInA.length) text.push(`only in ${names[0]}: ${c.onlyInA.join(', ')}`);
  if (c.onlyInB.length) text.push(`only in ${names[1]}: ${c.onlyInB.join(', ')}`);
  const worse = c.rows.filter((r) => r.worse).length;
  text.push(worse
    ? `${worse} of ${c.rows.length} figures are worse in ${names[1]} than in ${names[0]} by more than ${c.tolerancePct}%`
    : `no figure is worse in ${names[1]} than in ${names[0]} by more than ${c.tolerancePct}%`);
  return `${text.join('\n')}\n`;
}
