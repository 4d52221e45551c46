/**
 * A report group as a table of strings: the one layout Markdown, CSV and HTML share, so the
 * three formats cannot disagree on a cell. Numbers are rounded for reading; JSON keeps them whole.
 */
import type { Metric } from './suite-columns.js';
import type { ReportCell, ReportColumn, ReportGroup, ReportRow } from './model.js';
import { dollars, inUnit, type ThroughputUnit } from './units.js';

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

/** A cell as read: rounded, in the table's throughput unit, ⚑ where it is above what the volume allows. */
export function cellText(cell: ReportCell | undefined, metric: Metric, unit: ThroughputUnit = 'MiB/s'): string {
  if (!cell) return '';
  if (cell.state === 'failed' || cell.state === 'cancelled') return cell.state;
  const value = metric === 'mibps' && cell.value !== null ? inUnit(cell.value, unit) : cell.value;
  return `${fixed(value, METRIC_DIGITS[metric])}${cell.flag ? ' ⚑' : ''}`;
}

export function statusText(row: ReportRow): string {
  return row.status === 'finished' || !row.error ? row.status : `${row.status}: ${row.error}`;
}

/** A column's header in the table's unit. */
export function columnLabel(c: ReportColumn, unit: ThroughputUnit): string {
  return c.metric === 'mibps' && unit !== 'MiB/s' ? c.label.replace(/MiB\/s$/, unit) : c.label;
}

/** `1.02 at RND4K-Q32T1-read`: the summary's ratio names the test it comes from. */
function summaryRatio(r: ReportRow): string {
  if (r.measured_vs_entitled === null) return '';
  return `${r.measured_vs_entitled.toFixed(2)}${r.measured_vs_entitled_test ? ` at ${r.measured_vs_entitled_test}` : ''}`;
}

function summaryBound(r: ReportRow): string {
  if (!r.bound_by) return '';
  return r.measured_vs_entitled_test && r.measured_vs_entitled === null ? `${r.bound_by} at ${r.measured_vs_entitled_test}` : r.bound_by;
}

/** `not the named volume: SEQ1M-Q8T1-read MiB/s 4.97×, …`: the flagged cells, by cause. */
function flagsText(r: ReportRow): string {
  const byCause = new Map<string, string[]>();
  for (const [key, cell] of Object.entries(r.cells)) {
    if (!cell.flag || cell.measured_vs_entitled === null) continue;
    const [test, , metric] = key.split(':');
    byCause.set(cell.flag, [...(byCause.get(cell.flag) ?? []), `${test} ${metric === 'iops' ? 'IOPS' : 'MiB/s'} ${cell.measured_vs_entitled.toFixed(2)}×`]);
  }
  return [...byCause].map(([cause, cells]) => `${cause}: ${cells.join(', ')}`).join('; ');
}

/** Under a table with flagged cells: what ⚑ means. */
export const FLAG_LEGEND = '⚑ measured above 1.10× what the volume allows: the Flags column names the likely cause.';

export function hasFlags(group: ReportGroup): boolean {
  return group.rows.some((r) => r.flags.length > 0);
}

interface FixedColumn {
  header: (unit: ThroughputUnit) => string;
  text: (r: ReportRow, unit: ThroughputUnit) => string;
  /** Whether the column says anything in this group (price and volume columns are left out without a volume). */
  has: (r: ReportRow) => boolean;
}

const perUnit = (r: ReportRow, unit: ThroughputUnit): number | null => (r.usd_per_mibps === null ? null : r.usd_per_mibps / inUnit(1, unit));

/** First, and kept in view in the HTML: what a reader decides by. */
export const LEADING: readonly FixedColumn[] = [
  { header: () => 'Label', text: (r) => r.label, has: () => true },
  { header: () => '$ per 1,000 IOPS', text: (r) => dollars(r.usd_per_1000_iops), has: (r) => r.usd_per_1000_iops !== null },
  { header: (u) => `$ per ${u}`, text: (r, u) => dollars(perUnit(r, u)), has: (r) => r.usd_per_mibps !== null },
  { header: () => 'Measured / entitled', text: summaryRatio, has: (r) => r.measured_vs_entitled !== null },
  { header: () => 'Bound by', text: summaryBound, has: (r) => r.bound_by !== null },
];

const VOLUME: readonly FixedColumn[] = [
  { header: () => 'Type', text: (r) => r.type ?? '', has: (r) => r.type !== null },
  { header: () => 'Size GiB', text: (r) => compact(r.size_gib), has: (r) => r.size_gib !== null },
  { header: () => 'Prov. IOPS', text: (r) => fixed(r.provisioned_iops, 0), has: (r) => r.provisioned_iops !== null },
  { header: () => 'Prov. MiB/s', text: (r) => compact(r.provisioned_mibps), has: (r) => r.provisioned_mibps !== null },
  { header: () => '$/month', text: (r) => fixed(r.usd_per_month, 2), has: (r) => r.usd_per_month !== null },
];

const TRAILING: readonly FixedColumn[] = [
  { header: () => 'Status', text: statusText, has: () => true },
  { header: () => 'Flags', text: flagsText, has: (r) => r.flags.length > 0 },
  { header: () => 'Notes', text: (r) => r.notes.join('; '), has: (r) => r.notes.length > 0 },
  { header: () => 'Source', text: (r) => r.source, has: () => true },
];

export interface TableOptions {
  units?: ThroughputUnit;
}

/** How many columns lead (label and price/performance): the HTML keeps them in view. */
export function leadingCount(group: ReportGroup): number {
  return LEADING.filter((c) => group.rows.some(c.has)).length;
}

export function groupTable(group: ReportGroup, options: TableOptions = {}): TextTable {
  const unit = options.units ?? 'MiB/s';
  const shown = (cols: readonly FixedColumn[]): FixedColumn[] => cols.filter((c) => group.rows.some(c.has));
  const [lead, volume, trail] = [shown(LEADING), shown(VOLUME), shown(TRAILING)];
  const header = [...lead, ...volume].map((c) => c.header(unit))
    .concat(group.columns.map((c) => columnLabel(c, unit)), trail.map((c) => c.header(unit)));
  const rows = group.rows.map((r) => [...lead, ...volume].map((c) => c.text(r, unit))
    .concat(group.columns.map((c) => cellText(r.cells[c.key], c.metric, unit)), trail.map((c) => c.text(r, unit))));
  return { header, rows };
}
