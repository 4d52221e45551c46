/**
 * The report's charts as ECharts options, each with the table it was drawn from. The same
 * options render to SVG in Node (the HTML report) and live in the browser (the web view), so a
 * chart looks the same in a file and on the service's pages.
 */
import type { Report, ReportColumn, ReportGroup, ReportRow } from './model.js';
import type { TextTable } from './table.js';
import { cellText } from './table.js';
import { mergeFactor, mergePoints } from './downsample.js';

/** An ECharts option object; kept loose here, ECharts checks it. */
export type ChartOption = Record<string, unknown>;

export interface ReportChart {
  /** cost-iops, cost-mibps, bars, percentiles, series, sweep */
  kind: string;
  title: string;
  option: ChartOption;
  table: TextTable;
}

function num(v: number | null | undefined, digits: number): string {
  return v === null || v === undefined || !Number.isFinite(v) ? '' : v.toFixed(digits);
}

const BASE = { animation: false, textStyle: { fontFamily: 'sans-serif' } };

function costChart(group: ReportGroup, metric: 'iops' | 'mibps'): ReportChart | null {
  const unit = metric === 'iops' ? 'IOPS' : 'MiB/s';
  const points = group.rows
    .map((r) => ({ r, x: metric === 'iops' ? r.headline_iops : r.headline_mibps, y: r.usd_per_month }))
    .filter((p): p is { r: ReportRow; x: number; y: number } => p.x !== null && p.y !== null);
  if (points.length === 0) return null;
  const title = `$/month against ${unit} (${group.title})`;
  return {
    kind: `cost-${metric}`,
    title,
    option: {
      ...BASE,
      title: { text: title, left: 'center', textStyle: { fontSize: 14 } },
      grid: { left: 70, right: 40, top: 50, bottom: 50 },
      xAxis: { type: 'value', name: unit, nameLocation: 'middle', nameGap: 28 },
      yAxis: { type: 'value', name: '$/month' },
      series: [{
        type: 'scatter',
        symbolSize: 10,
        data: points.map((p) => ({ name: p.r.label, value: [p.x, p.y] })),
        label: { show: true, position: 'right', formatter: '{b}' },
      }],
    },
    table: {
      header: ['Label', `Best ${unit}`, '$/month'],
      rows: points.map((p) => [p.r.label, num(p.x, metric === 'iops' ? 0 : 1), num(p.y, 2)]),
    },
  };
}

/** One bar chart per test: its first column, a bar per row; the table has all its columns. */
function barCharts(group: ReportGroup): ReportChart[] {
  const tests = new Map<string, ReportColumn[]>();
  for (const c of group.columns) tests.set(c.test, [...(tests.get(c.test) ?? []), c]);
  const out: ReportChart[] = [];
  for (const [test, cols] of tests) {
    const main = cols[0];
    const title = `${test}: ${main.dir} ${main.unit}`;
    out.push({
      kind: 'bars',
      title,
      option: {
        ...BASE,
        title: { text: title, left: 'center', textStyle: { fontSize: 14 } },
        grid: { left: 70, right: 30, top: 50, bottom: 60 },
        xAxis: { type: 'category', data: group.rows.map((r) => r.label), axisLabel: { interval: 0, rotate: group.rows.length > 4 ? 30 : 0 } },
        yAxis: { type: 'value', name: main.unit },
        series: [{
          type: 'bar',
          data: group.rows.map((r) => r.cells[main.key]?.value ?? null),
          label: { show: true, position: 'top', formatter: (p: { value: unknown }) => (typeof p.value === 'number' ? p.value.toFixed(main.metric === 'iops' ? 0 : 1) : '') },
        }],
      },
      table: {
        header: ['Label', ...cols.map((c) => c.label)],
        rows: group.rows.map((r) => [r.label, ...cols.map((c) => cellText(r.cells[c.key], c.metric))]),
      },
    });
  }
  return out;
}

/** Lines of several rows over a shared x, and the table of x against each row. */
function linesChart(kind: string, title: string, xName: string, yName: string, logY: boolean,
  lines: Array<{ name: string; points: Array<[number, number]> }>, xDigits: number, yDigits: number): ReportChart {
  const xs = [...new Set(lines.flatMap((l) => l.points.map((p) => p[0])))].sort((a, b) => a - b);
  const lookup = lines.map((l) => new Map(l.points.map(([x, y]) => [x, y])));
  return {
    kind,
    title,
    option: {
      ...BASE,
      title: { text: title, left: 'center', textStyle: { fontSize: 14 } },
      legend: { top: 32, type: 'scroll' },
      grid: { left: 70, right: 30, top: 75, bottom: 50 },
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
    return chart;
  });
}

function seriesCharts(group: ReportGroup): ReportChart[] {
  return detailKeys(group, (r) => r.details.series).map((key) => {
    const test = key.slice(0, key.lastIndexOf(' '));
    const bandwidth = group.columns.find((c) => c.test === test)?.metric === 'mibps';
    const perSecond = group.rows.filter((r) => r.details.series[key]).map((r) => ({
      name: r.label,
      points: r.details.series[key].map((p): [number, number] => [p.t_s, bandwidth ? p.mibps : p.iops]),
    }));
    // A long run's seconds merged so a line has about as many points as the chart has room for.
    const k = mergeFactor(perSecond);
    const lines = perSecond.map((l) => ({ name: l.name, points: mergePoints(l.points, k) }));
    const per = k === 1 ? 'per second' : `per ${k} s (mean)`;
    return linesChart('series', `${key}: ${bandwidth ? 'MiB/s' : 'IOPS'} ${per}`, 'seconds', bandwidth ? 'MiB/s' : 'IOPS', false, lines, 1, bandwidth ? 1 : 0);
  });
}

function sweepCharts(group: ReportGroup): ReportChart[] {
  const names = [...new Set(group.rows.flatMap((r) => r.details.sweep.map((s) => s.name)))];
  return names.map((name) => linesChart('sweep', `${name}: IOPS by queue depth`, 'iodepth', 'IOPS', false,
    group.rows.flatMap((r) => r.details.sweep.filter((s) => s.name === name).map((s) => ({
      name: r.label,
      points: s.points.filter((p) => p.iops !== undefined).map((p): [number, number] => [p.iodepth, p.iops ?? 0]),
    }))), 0, 0));
}

export function groupCharts(group: ReportGroup): ReportChart[] {
  const costs = [costChart(group, 'iops'), costChart(group, 'mibps')].filter((c): c is ReportChart => c !== null);
  return [...costs, ...barCharts(group), ...percentileCharts(group), ...seriesCharts(group), ...sweepCharts(group)];
}

export function reportCharts(report: Report): ReportChart[][] {
  return report.groups.map(groupCharts);
}
