/**
 * A report group as a table of strings: the one layout Markdown and HTML share, so the formats
 * cannot disagree on a cell. Numbers are rounded for reading, a measured figure with what the
 * volume allows it beside (`1,415 / 1,500 (0.94×)`); JSON keeps them whole, and the CSV
 * (csv-table.ts) gives each its own numeric column.
 */
import type { CellEntitlement } from './entitled.js';
import type { PriceMetric, ReportCell, ReportColumn, ReportGroup, ReportRow } from './model.js';
import type { Metric } from './suite-columns.js';
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

/** A figure as read: IOPS grouped by thousands, MiB/s with a decimal, latency with one. */
function figure(v: number | null, metric: Metric, unit: ThroughputUnit): string {
  if (v === null || !Number.isFinite(v)) return '';
  const x = metric === 'mibps' ? inUnit(v, unit) : v;
  return metric === 'iops' ? Math.round(x).toLocaleString('en-US') : x.toLocaleString('en-US', { minimumFractionDigits: METRIC_DIGITS[metric], maximumFractionDigits: METRIC_DIGITS[metric] });
}

/** `1,415 / 1,500 (0.94×)`: measured beside entitled, where the volume entitles it; `named` adds the unit after the figures. */
function measuredText(value: number | null, c: CellEntitlement, metric: Metric, unit: ThroughputUnit, named = ''): string {
  const measured = figure(value, metric, unit);
  if (c.entitled === null || c.measured_vs_entitled === null) return `${measured}${named}`;
  return `${measured} / ${figure(c.entitled, metric, unit)}${named} (${c.measured_vs_entitled.toFixed(2)}×)${c.flag ? ' ⚑' : ''}`;
}

/** A cell as read: measured against entitled, EBS's p99 beside volbench's, ⚑ where it is above what the volume allows. */
export function cellText(cell: ReportCell | undefined, metric: Metric, unit: ThroughputUnit = 'MiB/s'): string {
  if (!cell) return '';
  if (cell.state === 'failed' || cell.state === 'cancelled') return cell.state;
  const ebs = cell.ebs_p99_us !== undefined ? ` (EBS ${figure(cell.ebs_p99_us, metric, unit)})` : '';
  const flag = cell.flag && cell.entitled === null ? ' ⚑' : '';
  return `${measuredText(cell.value, cell, metric, unit)}${ebs}${flag}`;
}

const pct = (share: number): string => `${Math.round(share * 100)}%`;

/**
 * What bound a test, in words: the limit and where the answer comes from (`volume-iops
 * (measured: 97% of the time)`, `volume-iops (model)`), `latency (40 in flight needed)`, or a
 * shortfall nothing explains, saying whether the volume's statistics were read.
 */
export function boundText(c: CellEntitlement): string {
  if (!c.bound_by) return '';
  if (c.bound_by_source === 'ebs-stats') {
    const model = c.bound_by_model && c.bound_by_model !== c.bound_by ? `; model: ${c.bound_by_model}` : '';
    return `${c.bound_by} (measured${c.exceeded_share !== undefined ? `: ${pct(c.exceeded_share)} of the time` : ''}${model})`;
  }
  if (c.bound_by === 'below-entitlement') {
    return c.exceeded_share !== undefined ? `below entitlement, no EBS limit exceeded (at most ${pct(c.exceeded_share)} of the time)` : 'below entitlement, cause not measured';
  }
  if (c.bound_by === 'latency' && c.depth_needed !== undefined) return `latency (${c.depth_needed.toLocaleString('en-US')} in flight needed; model)`;
  return `${c.bound_by} (model)`;
}

export function statusText(row: ReportRow): string {
  return row.status === 'finished' || !row.error ? row.status : `${row.status}: ${row.error}`;
}

/** A column's header in the table's unit. */
export function columnLabel(c: ReportColumn, unit: ThroughputUnit): string {
  return c.metric === 'mibps' && unit !== 'MiB/s' ? c.label.replace(/MiB\/s$/, unit) : c.label;
}

/** `not the named volume: SEQ1M-Q8T1-read MiB/s 4.97×, …`: the flagged cells, by cause. */
function flagsText(r: ReportRow): string {
  const byCause = new Map<string, string[]>();
  for (const [key, cell] of Object.entries(r.cells)) {
    if (!cell.flag || cell.measured_vs_entitled === null || key.split(':').length !== 3) continue;
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

/** The price cell a row's price column reads, and the test it is at. */
export function priceCell(r: ReportRow, metric: PriceMetric): { cell: ReportCell; test: string } | null {
  const test = r.priced_at[metric];
  const cell = test === null ? undefined : r.cells[`${test}:${metric}`];
  return test !== null && cell ? { cell, test } : null;
}

/** The test the summary columns (measured / entitled, bound by) read: the IOPS price's, else the MiB/s price's. */
export function summaryCell(r: ReportRow): { cell: ReportCell; test: string; metric: 'iops' | 'mibps' } | null {
  const iops = priceCell(r, 'usd_per_1000_iops');
  if (iops && iops.cell.state === 'ok') return { ...iops, metric: 'iops' };
  const mibps = priceCell(r, 'usd_per_mibps');
  return mibps && mibps.cell.state === 'ok' ? { ...mibps, metric: 'mibps' } : null;
}

interface FixedColumn {
  header: (group: ReportGroup, unit: ThroughputUnit) => string;
  text: (r: ReportRow, group: ReportGroup, unit: ThroughputUnit) => string;
  /** Whether the column says anything in this row (a column no row fills is left out). */
  has: (r: ReportRow) => boolean;
}

/** ` at TEST` after a header where every row reads the one test; in the cell where each reads its own. */
const atGroup = (g: ReportGroup, metric: PriceMetric): string => (g.price_tests[metric] ? ` at ${g.price_tests[metric]}` : '');
const atRow = (g: ReportGroup, metric: PriceMetric, test: string): string => (g.price_tests[metric] ? '' : ` at ${test}`);
const summaryMetric = (g: ReportGroup): PriceMetric => (g.price_tests.usd_per_1000_iops || !g.price_tests.usd_per_mibps ? 'usd_per_1000_iops' : 'usd_per_mibps');

/** ` (unscaled)` after a price's name where a row's volume was emulated: priced on its rates unscaled (cells.ts). */
export function unscaledNote(g: ReportGroup, metric: PriceMetric): string {
  return g.rows.some((r) => priceCell(r, metric)?.cell.unscaled !== undefined) ? ' (unscaled)' : '';
}

function priceColumn(metric: PriceMetric): FixedColumn {
  const per = (r: ReportRow, unit: ThroughputUnit): number | null => {
    const v = priceCell(r, metric)?.cell.value ?? null;
    return v === null || metric === 'usd_per_1000_iops' ? v : v / inUnit(1, unit);
  };
  return {
    header: (g, u) => `${metric === 'usd_per_1000_iops' ? '$ per 1,000 IOPS' : `$ per ${u}`}${unscaledNote(g, metric)}${atGroup(g, metric)}`,
    text: (r, g, u) => {
      const p = priceCell(r, metric);
      const v = per(r, u);
      return p && v !== null ? `${dollars(v)}${atRow(g, metric, p.test)}` : '';
    },
    has: (r) => priceCell(r, metric)?.cell.value != null,
  };
}

/** First, and kept in view in the HTML: what a reader decides by, all at the price column's test. */
export const LEADING: readonly FixedColumn[] = [
  { header: () => 'Label', text: (r) => r.label, has: () => true },
  priceColumn('usd_per_1000_iops'),
  priceColumn('usd_per_mibps'),
  {
    header: (g) => `Measured / entitled${atGroup(g, summaryMetric(g))}`,
    text: (r, g, u) => {
      const s = summaryCell(r);
      if (!s || s.cell.entitled === null) return '';
      return `${measuredText(s.cell.measured ?? null, s.cell, s.metric, u, s.metric === 'iops' ? ' IOPS' : ` ${u}`)}${atRow(g, summaryMetric(g), s.test)}`;
    },
    has: (r) => summaryCell(r)?.cell.entitled != null,
  },
  { header: (g) => `Bound by${atGroup(g, summaryMetric(g))}`, text: (r) => boundText(summaryCell(r)?.cell ?? { bound_by: null } as CellEntitlement), has: (r) => !!summaryCell(r)?.cell.bound_by },
];

const VOLUME: readonly FixedColumn[] = [
  { header: () => 'Type', text: (r) => r.type ?? '', has: (r) => r.type !== null },
  { header: () => 'Size GiB', text: (r) => compact(r.size_gib), has: (r) => r.size_gib !== null },
  { header: () => 'Prov. IOPS', text: (r) => fixed(r.provisioned_iops, 0), has: (r) => r.provisioned_iops !== null },
  { header: () => 'Prov. MiB/s', text: (r) => compact(r.provisioned_mibps), has: (r) => r.provisioned_mibps !== null },
  { header: () => '$/month', text: (r) => fixed(r.usd_per_month, 2), has: (r) => r.usd_per_month !== null },
  { header: () => 'Price', text: (r) => r.price_source ?? '', has: (r) => r.price_source !== null },
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
  const header = [...lead, ...volume].map((c) => c.header(group, unit))
    .concat(group.columns.map((c) => columnLabel(c, unit)), trail.map((c) => c.header(group, unit)));
  const rows = group.rows.map((r) => [...lead, ...volume].map((c) => c.text(r, group, unit))
    .concat(group.columns.map((c) => cellText(r.cells[c.key], c.metric, unit)), trail.map((c) => c.text(r, group, unit))));
  return { header, rows };
}
