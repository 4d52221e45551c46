/**
 * A report group as the CSV has it: every figure a number in a column of its own (a measured
 * figure, what the volume allows it, their ratio), so a spreadsheet can sort and chart them;
 * the price and summary columns name the test they read in their header, or, where each row
 * reads its own (ad hoc jobs), in a column beside them.
 */
import type { PriceMetric, ReportCell, ReportColumn, ReportGroup, ReportRow } from './model.js';
import { columnLabel, priceCell, statusText, summaryCell, unscaledNote, type TableOptions, type TextTable } from './table.js';
import { inUnit, type ThroughputUnit } from './units.js';

/** A number as a spreadsheet reads it: up to 4 decimals, nothing where there is none. */
function num(v: number | null | undefined): string {
  return v === null || v === undefined || !Number.isFinite(v) ? '' : String(Math.round(v * 1e4) / 1e4);
}

interface CsvColumn {
  header: string;
  value: (r: ReportRow) => string;
}

function perUnit(v: number | null | undefined, metric: string, unit: ThroughputUnit): number | null | undefined {
  return v === null || v === undefined || metric !== 'mibps' ? v : inUnit(v, unit);
}

function priceColumns(g: ReportGroup, metric: PriceMetric, unit: ThroughputUnit): CsvColumn[] {
  if (!g.rows.some((r) => priceCell(r, metric)?.cell.value != null)) return [];
  const test = g.price_tests[metric];
  const name = `${metric === 'usd_per_1000_iops' ? '$ per 1,000 IOPS' : `$ per ${unit}`}${unscaledNote(g, metric)}`;
  const value = (r: ReportRow): string => {
    const v = priceCell(r, metric)?.cell.value;
    return num(v == null || metric === 'usd_per_1000_iops' ? v : v / inUnit(1, unit));
  };
  if (test) return [{ header: `${name} at ${test}`, value }];
  return [{ header: name, value }, { header: `${name} test`, value: (r) => priceCell(r, metric)?.test ?? '' }];
}

function summaryColumns(g: ReportGroup, unit: ThroughputUnit): CsvColumn[] {
  if (!g.rows.some((r) => summaryCell(r)?.cell.bound_by)) return [];
  const metric: PriceMetric = g.price_tests.usd_per_1000_iops || !g.price_tests.usd_per_mibps ? 'usd_per_1000_iops' : 'usd_per_mibps';
  const at = g.price_tests[metric] ? ` at ${g.price_tests[metric]}` : '';
  const figure = (r: ReportRow, pick: (c: ReportCell) => number | null | undefined): string => {
    const s = summaryCell(r);
    return s ? num(perUnit(pick(s.cell), s.metric, unit)) : '';
  };
  return [
    { header: `Measured${at}`, value: (r) => figure(r, (c) => c.measured) },
    { header: `Entitled${at}`, value: (r) => figure(r, (c) => c.entitled) },
    { header: `Unit${at}`, value: (r) => { const s = summaryCell(r); return s ? (s.metric === 'iops' ? 'IOPS' : unit) : ''; } },
    { header: `Measured / entitled${at}`, value: (r) => num(summaryCell(r)?.cell.measured_vs_entitled) },
    { header: `Bound by${at}`, value: (r) => summaryCell(r)?.cell.bound_by ?? '' },
    { header: `Bound by source${at}`, value: (r) => summaryCell(r)?.cell.bound_by_source ?? '' },
    ...(at ? [] : [{ header: 'Summary test', value: (r: ReportRow) => summaryCell(r)?.test ?? '' }]),
  ];
}

const VOLUME: readonly CsvColumn[] = [
  { header: 'Type', value: (r) => r.type ?? '' },
  { header: 'Size GiB', value: (r) => num(r.size_gib) },
  { header: 'Prov. IOPS', value: (r) => num(r.provisioned_iops) },
  { header: 'Prov. MiB/s', value: (r) => num(r.provisioned_mibps) },
  { header: '$/month', value: (r) => num(r.usd_per_month) },
  { header: 'Price', value: (r) => r.price_source ?? '' },
];

/** A test column's figures: measured, and where the volume entitles it, entitled and their ratio; EBS's p99 beside volbench's. */
function testColumns(g: ReportGroup, c: ReportColumn, unit: ThroughputUnit): CsvColumn[] {
  const label = columnLabel(c, unit);
  const cell = (r: ReportRow): ReportCell | undefined => r.cells[c.key];
  const out: CsvColumn[] = [{ header: label, value: (r) => num(perUnit(cell(r)?.value, c.metric, unit)) }];
  if (g.rows.some((r) => cell(r)?.entitled != null)) {
    out.push({ header: `${label} entitled`, value: (r) => num(perUnit(cell(r)?.entitled, c.metric, unit)) },
      { header: `${label} measured/entitled`, value: (r) => num(cell(r)?.measured_vs_entitled) });
  }
  if (g.rows.some((r) => cell(r)?.ebs_p99_us !== undefined)) out.push({ header: `${label} EBS`, value: (r) => num(cell(r)?.ebs_p99_us) });
  return out;
}

const TRAILING: readonly CsvColumn[] = [
  { header: 'Status', value: statusText },
  { header: 'Flags', value: (r) => r.flags.join('; ') },
  { header: 'Notes', value: (r) => r.notes.join('; ') },
  { header: 'Source', value: (r) => r.source },
];

export function csvTable(group: ReportGroup, options: TableOptions = {}): TextTable {
  const unit = options.units ?? 'MiB/s';
  const volume = VOLUME.filter((c) => group.rows.some((r) => c.value(r) !== ''));
  const columns: CsvColumn[] = [
    { header: 'Label', value: (r) => r.label },
    ...priceColumns(group, 'usd_per_1000_iops', unit), ...priceColumns(group, 'usd_per_mibps', unit),
    ...summaryColumns(group, unit), ...volume,
    ...group.columns.flatMap((c) => testColumns(group, c, unit)),
    ...TRAILING.filter((c) => c.header === 'Status' || c.header === 'Source' || group.rows.some((r) => c.value(r) !== '')),
  ];
  return { header: columns.map((c) => c.header), rows: group.rows.map((r) => columns.map((c) => c.value(r))) };
}
