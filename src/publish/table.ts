/**
 * A report group as a table of strings: the one layout Markdown, CSV and HTML share, so the
 * three formats cannot disagree on a cell. Numbers are rounded for reading; JSON keeps them whole.
 */
import type { Metric } from './suite-columns.js';
import type { ReportCell, ReportGroup, ReportRow } from './model.js';

export interface TextTable {
  header: string[];
  rows: string[][];
}

function fixed(v: number | null, digits: number): string {
  return v === null || !Number.isFinite(v) ? '' : v.toFixed(digits);
}

/** At most one decimal, none when whole. */
function compact(v: number | null): string {
  if (v === null || !Number.isFinite(v)) return '';
  return Number.isInteger(v) ? String(v) : v.toFixed(1);
}

const METRIC_DIGITS: Record<Metric, number> = { iops: 0, mibps: 1, p50_us: 1, p99_us: 1 };

export function cellText(cell: ReportCell | undefined, metric: Metric): string {
  if (!cell) return '';
  if (cell.state === 'failed' || cell.state === 'cancelled') return cell.state;
  return fixed(cell.value, METRIC_DIGITS[metric]);
}

export function statusText(row: ReportRow): string {
  return row.status === 'finished' || !row.error ? row.status : `${row.status}: ${row.error}`;
}

export const LEADING_HEADERS = ['Label', 'Type', 'Size GiB', 'Prov. IOPS', 'Prov. MiB/s', '$/month'];
export const TRAILING_HEADERS = ['$ per 1,000 IOPS', '$ per MiB/s', 'Measured/entitled', 'Bound by', 'Status', 'Notes'];

export function groupTable(group: ReportGroup): TextTable {
  const header = [...LEADING_HEADERS, ...group.columns.map((c) => c.label), ...TRAILING_HEADERS];
  const rows = group.rows.map((r) => [
    r.label,
    r.type ?? '',
    compact(r.size_gib),
    fixed(r.provisioned_iops, 0),
    compact(r.provisioned_mibps),
    fixed(r.usd_per_month, 2),
    ...group.columns.map((c) => cellText(r.cells[c.key], c.metric)),
    fixed(r.usd_per_1000_iops, 2),
    fixed(r.usd_per_mibps, 3),
    fixed(r.measured_vs_entitled, 2),
    r.bound_by ?? '',
    statusText(r),
    r.notes.join('; '),
  ]);
  return { header, rows };
}
