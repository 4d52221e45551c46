/**
 * The report's charts as ECharts options, each with the table it was drawn from. The same
 * options render to SVG in Node (the HTML report) and live in the browser (the web view), so a
 * chart looks the same in a file and on the service's pages.
 *
 * What a storage engineer reads first (fio-plot and KDiskMark are the models): one grouped chart
 * per suite, tests across and a bar per volume, reads beside writes, with each bar's p99
 * latency on the same chart; the price scatter; the sweep on a log2 axis with its optimum and
 * p99. Per-second series (throughput with latency) and percentile curves are the detail.
 */
import type { Report, ReportGroup, ReportRow, TestFigures } from './model.js';
import type { TextTable } from './table.js';
import { mergeFactor, mergePoints } from './downsample.js';
import type { Dir } from './suite-columns.js';
import { inUnit, type ThroughputUnit } from './units.js';

/** An ECharts option object; kept loose here, ECharts checks it. */
export type ChartOption = Record<string, unknown>;

export interface ReportChart {
  /** cost-iops, cost-mibps, grouped, percentiles, series, sweep */
  kind: string;
  title: string;
  option: ChartOption;
  table: TextTable;
  /** Detail: drawn folded away in the HTML. */
  detail?: boolean;
  /** Pixels, where the chart needs more than the default. */
  width?: number;
  height?: number;
}

export interface ChartOptions {
  units?: ThroughputUnit;
  /** The source line a downloaded chart carries (`volbench report, 2026-11-27; prices: …`). */
  source?: string;
}

function num(v: number | null | undefined, digits: number): string {
  return v === null || v === undefined || !Number.isFinite(v) ? '' : v.toFixed(digits);
}

const BASE = { animation: false, textStyle: { fontFamily: 'sans-serif' } };
const TITLE_STYLE = { fontSize: 14 };

function withSource(option: ChartOption, source: string | undefined): ChartOption {
  if (!source) return option;
  return { ...option, graphic: [{ type: 'text', left: 8, bottom: 4, style: { text: source, fontSize: 10, fill: '#777' } }] };
}

function costChart(group: ReportGroup, metric: 'iops' | 'mibps', unit: ThroughputUnit): ReportChart | null {
  const unitText = metric === 'iops' ? 'IOPS' : unit;
  const points = group.rows
    .map((r) => ({ r, x: metric === 'iops' ? r.headline_iops : r.headline_mibps, y: r.usd_per_month }))
    .filter((p): p is { r: ReportRow; x: number; y: number } => p.x !== null && p.y !== null)
    .map((p) => ({ ...p, x: metric === 'mibps' ? inUnit(p.x, unit) : p.x }));
  // One volume is one dot: its figures are in the table already.
  if (points.length < 2) return null;
  const title = `$/month against ${unitText} (${group.title})`;
  return {
    kind: `cost-${metric}`,
    title,
    width: 600,
    height: 340,
    option: {
      ...BASE,
      title: { text: title, left: 'center', textStyle: TITLE_STYLE },
      // Room on the right for the last point's label: labels are never clipped at the edge.
      grid: { left: 70, right: 170, top: 50, bottom: 60 },
      xAxis: { type: 'value', name: unitText, nameLocation: 'middle', nameGap: 28, axisLabel: { hideOverlap: true } },
      yAxis: { type: 'value', name: '$/month' },
      series: [{
        type: 'scatter',
        symbolSize: 10,
        data: points.map((p) => ({ name: p.r.label, value: [p.x, p.y] })),
        label: { show: true, position: 'right', formatter: '{b}', width: 160, overflow: 'break' },
        labelLayout: { moveOverlap: 'shiftY' },
      }],
    },
    table: {
      header: ['Label', `Best ${unitText}`, '$/month'],
      rows: points.map((p) => [p.r.label, num(p.x, metric === 'iops' ? 0 : 1), num(p.y, 2)]),
    },
  };
}

/** `SEQ1M-Q8T1-read` → `SEQ1M-Q8T1`: the test without the direction its name ends in. */
function stemOf(t: TestFigures): string {
  return t.test.endsWith(`-${t.dir}`) ? t.test.slice(0, -(t.dir.length + 1)) : t.test;
}

const GROUPED_WIDTH = 1000;
const GROUPED_HEIGHT = 440;

/**
 * Tests across, a bar per volume, reads (left) beside writes (right), every bar in the one
 * throughput unit (KDiskMark's way: small random blocks read low, as they are), and each bar's
 * p99 completion latency as a mark on a log axis of its own.
 */
function groupedChart(group: ReportGroup, unit: ThroughputUnit): ReportChart | null {
  const dirs = (['read', 'write'] as Dir[]).filter((d) => group.rows.some((r) => r.details.tests.some((t) => t.dir === d)));
  if (dirs.length === 0) return null;
  const stems = dirs.map((d) => [...new Set(group.rows.flatMap((r) => r.details.tests.filter((t) => t.dir === d).map(stemOf)))]);
  const fig = (r: ReportRow, d: Dir, stem: string): TestFigures | undefined => r.details.tests.find((t) => t.dir === d && stemOf(t) === stem);
  const width = 100 / dirs.length;
  const grid = dirs.map((_, i) => ({ left: `${i * width + 6}%`, width: `${width - 12}%`, top: 60, bottom: 90 }));
  const xAxis = dirs.map((d, i) => ({
    type: 'category', gridIndex: i, data: stems[i], name: `${d}s`, nameLocation: 'middle', nameGap: 30,
    axisLabel: { interval: 0, fontSize: 11 },
  }));
  const yAxis = dirs.flatMap((_, i) => [
    { type: 'value', gridIndex: i, name: unit },
    { type: 'log', gridIndex: i, name: 'p99 µs', position: 'right', splitLine: { show: false } },
  ]);
  const series = dirs.flatMap((d, i) => group.rows.flatMap((r) => [
    {
      type: 'bar', name: r.label, xAxisIndex: i, yAxisIndex: 2 * i,
      data: stems[i].map((s) => { const f = fig(r, d, s); return f ? Number(inUnit(f.mibps, unit).toFixed(1)) : null; }),
    },
    {
      type: 'scatter', name: r.label, xAxisIndex: i, yAxisIndex: 2 * i + 1, symbol: 'diamond', symbolSize: 9,
      data: stems[i].map((s) => fig(r, d, s)?.clat_p99_us ?? null),
    },
  ]));
  const title = `${group.title}: ${unit} (bars) and p99 latency (◆), per test`;
  const cols = dirs.flatMap((d, i) => stems[i].map((s) => ({ d, s })));
  return {
    kind: 'grouped',
    title,
    width: GROUPED_WIDTH,
    height: GROUPED_HEIGHT,
    option: {
      ...BASE,
      title: { text: title, left: 'center', textStyle: TITLE_STYLE },
      legend: { bottom: 22, itemGap: 28, data: group.rows.map((r) => r.label) },
      grid, xAxis, yAxis, series,
    },
    table: {
      header: ['Label', ...cols.flatMap(({ d, s }) => [`${s} ${d} ${unit}`, `${s} ${d} p99 µs`])],
      rows: group.rows.map((r) => [r.label, ...cols.flatMap(({ d, s }) => {
        const f = fig(r, d, s);
        return [num(f ? inUnit(f.mibps, unit) : null, 1), num(f?.clat_p99_us, 1)];
      })]),
    },
  };
}

interface Line { name: string; points: Array<[number, number]> }

/** Lines of several rows over a shared x, and the table of x against each row. */
function linesChart(kind: string, title: string, xName: string, yName: string, logY: boolean,
  lines: Line[], xDigits: number, yDigits: number): ReportChart {
  const xs = [...new Set(lines.flatMap((l) => l.points.map((p) => p[0])))].sort((a, b) => a - b);
  const lookup = lines.map((l) => new Map(l.points.map(([x, y]) => [x, y])));
  return {
    kind,
    title,
    option: {
      ...BASE,
      title: { text: title, left: 'center', textStyle: TITLE_STYLE },
      legend: { top: 32, itemGap: 24 },
      grid: { left: 70, right: 70, top: 80, bottom: 60 },
      xAxis: { type: 'value', name: xName, nameLocation: 'middle', nameGap: 28, scale: true },
      yAxis: { type: logY ? 'log' : 'value', name: yName },
      series: lines.map((l) => ({ type: 'line', name: l.name, showSymbol: l.points.length < 40, data: l.points })),
    },
    table: {
      header: [xName, ...lines.map((l) => l.name)],
      rows: xs.map((x) => [num(x, xDigits), ...lookup.map((m) => num(m.get(x) ?? null, yDigits))]),
    },
  };
}

/** The same chart with `extra` lines (dashed) on a second y axis at the right, and their columns in the table. */
function withRightAxis(chart: ReportChart, axisName: string, extra: Line[], digits: number): ReportChart {
  const option = chart.option;
  const series = [...(option.series as object[]), ...extra.map((l) => ({
    type: 'line', name: l.name, yAxisIndex: 1, showSymbol: false, lineStyle: { type: 'dashed', width: 1 }, data: l.points,
  }))];
  const lookup = extra.map((l) => new Map(l.points.map(([x, y]) => [x, y])));
  const rows = chart.table.rows.map((row) => [...row, ...lookup.map((m) => num(m.get(Number(row[0])) ?? null, digits))]);
  return {
    ...chart,
    option: { ...option, series, yAxis: [option.yAxis, { type: 'value', name: axisName, position: 'right', splitLine: { show: false } }] },
    table: { header: [...chart.table.header, ...extra.map((l) => l.name)], rows },
  };
}

function detailKeys(group: ReportGroup, pick: (r: ReportRow) => Record<string, unknown>): string[] {
  const keys: string[] = [];
  for (const r of group.rows) for (const k of Object.keys(pick(r))) if (!keys.includes(k)) keys.push(k);
  return keys;
}

/** Percentiles on a scale of nines (90 → 1, 99 → 2, 99.9 → 3), where the tail has room. */
function nines(p: number): number {
  return -Math.log10(1 - p / 100);
}

function percentileCharts(group: ReportGroup): ReportChart[] {
  return detailKeys(group, (r) => r.details.percentiles).map((key) => {
    const lines = group.rows.filter((r) => r.details.percentiles[key]).map((r) => ({ name: r.label, points: r.details.percentiles[key] }));
    const chart = linesChart('percentiles', `${key}: completion latency percentiles`, 'percentile', 'µs', true, lines, 2, 1);
    // The table keeps fio's percentiles; the chart spreads them by nines (100 has no place there).
    const series = (chart.option.series as Array<Record<string, unknown>>).map((line, i) => ({
      ...line,
      data: lines[i].points.filter(([p]) => p < 100).map(([p, us]) => [nines(p), us]),
    }));
    const axisLabel = { formatter: (v: number) => `${Number((100 * (1 - 10 ** -v)).toPrecision(6))}` };
    chart.option = { ...chart.option, series, xAxis: { ...(chart.option.xAxis as object), scale: false, min: 0, interval: 1, axisLabel } };
    return { ...chart, detail: true };
  });
}

/** Per second: throughput (solid, left) and the interval's p99 completion latency (dashed, right). */
function seriesCharts(group: ReportGroup, unit: ThroughputUnit): ReportChart[] {
  return detailKeys(group, (r) => r.details.series).map((key) => {
    const test = key.slice(0, key.lastIndexOf(' '));
    const bandwidth = group.columns.find((c) => c.test === test)?.metric === 'mibps';
    const yName = bandwidth ? unit : 'IOPS';
    const rows = group.rows.filter((r) => r.details.series[key]);
    const perSecond = rows.map((r) => ({
      name: r.label,
      points: r.details.series[key].map((p): [number, number] => [p.t_s, bandwidth ? inUnit(p.mibps, unit) : p.iops]),
    }));
    const p99 = rows.map((r) => ({ name: `${r.label} p99 µs`, points: r.details.series[key].map((p): [number, number] => [p.t_s, p.clat_p99_us]) }));
    // A long run's seconds merged so a line has about as many points as the chart has room for.
    const k = mergeFactor(perSecond);
    const merge = (ls: Line[]): Line[] => ls.map((l) => ({ name: l.name, points: mergePoints(l.points, k) }));
    const per = k === 1 ? 'per second' : `per ${k} s (mean)`;
    const chart = linesChart('series', `${key}: ${yName} and p99 latency ${per}`, 'seconds', yName, false, merge(perSecond), 1, bandwidth ? 1 : 0);
    return { ...withRightAxis(chart, 'p99 µs', merge(p99), 1), detail: true };
  });
}

/** IOPS by depth on a log2 axis, p99 (dashed) at the right, each curve's optimum marked. */
function sweepCharts(group: ReportGroup): ReportChart[] {
  const names = [...new Set(group.rows.flatMap((r) => r.details.sweep.map((s) => s.name)))];
  return names.map((name) => {
    const curves = group.rows.flatMap((r) => r.details.sweep.filter((s) => s.name === name).map((s) => ({ r, s })));
    const lines = curves.map(({ r, s }) => ({
      name: r.label,
      points: s.points.filter((p) => p.iops !== undefined).map((p): [number, number] => [p.iodepth, p.iops ?? 0]),
    }));
    const p99 = curves.map(({ r, s }) => ({
      name: `${r.label} p99 µs`,
      points: s.points.filter((p) => p.clat_p99_ns !== undefined).map((p): [number, number] => [p.iodepth, (p.clat_p99_ns ?? 0) / 1000]),
    })).filter((l) => l.points.length > 0);
    const base = linesChart('sweep', `${name}: IOPS by queue depth (optimum ★)`, 'iodepth', 'IOPS', false, lines, 0, 0);
    const series = (base.option.series as Array<Record<string, unknown>>).map((line, i) => {
      const best = curves[i].s.optimum;
      const at = lines[i].points.find(([x]) => x === best);
      return at ? { ...line, markPoint: { symbol: 'pin', symbolSize: 36, data: [{ name: 'optimum', coord: at, value: `★ ${at[0]}` }] } } : line;
    });
    const chart: ReportChart = {
      ...base,
      option: { ...base.option, series, xAxis: { ...(base.option.xAxis as object), type: 'log', logBase: 2, scale: false } },
      table: {
        ...base.table,
        header: [...base.table.header, 'optimum'],
        rows: base.table.rows.map((row) => [...row, curves.filter(({ s }) => s.optimum === Number(row[0])).map(({ r }) => r.label).join(', ')]),
      },
    };
    return p99.length ? withRightAxis(chart, 'p99 µs', p99, 1) : chart;
  });
}

export function groupCharts(group: ReportGroup, options: ChartOptions = {}): ReportChart[] {
  const unit = options.units ?? 'MiB/s';
  const main = [costChart(group, 'iops', unit), costChart(group, 'mibps', unit), groupedChart(group, unit)]
    .filter((c): c is ReportChart => c !== null);
  const charts = [...main, ...sweepCharts(group), ...seriesCharts(group, unit), ...percentileCharts(group)];
  return charts.map((c) => ({ ...c, option: withSource(c.option, options.source) }));
}

export function reportCharts(report: Report, options: ChartOptions = {}): ReportChart[][] {
  return report.groups.map((g) => groupCharts(g, options));
}
