/**
 * The report's charts as ECharts options, each with the table it was drawn from. The same
 * options render to SVG in Node (the HTML report, and the service's report pages), so a chart
 * looks the same in a file and on the service's pages.
 *
 * What a storage engineer reads first (fio-plot and KDiskMark are the models): one grouped chart
 * per suite, tests across and a bar per volume, reads beside writes, with each bar's p99
 * latency on the same chart; the price scatter; the sweep on a log2 axis with its optimum and
 * p99. Per-second series (throughput with latency) and percentile curves are the detail.
 *
 * Each chart is laid out for its size before it is drawn (chart-layout.ts): a volume has one
 * colour everywhere (its p99 line too), legends and the wrapped source line sit below the plot,
 * never on an axis, and labels are placed clear of one another.
 */
import type { Report, ReportGroup, ReportRow } from './model.js';
import { mergeFactor, mergePoints } from './downsample.js';
import { inUnit, type ThroughputUnit } from './units.js';
import { CHART_HEIGHT, CHART_WIDTH, colourOf, LEGEND_GAP, LEGEND_ROW, legendRows, sourceGraphic } from './chart-layout.js';
import { BASE, keyTitle, num, TITLE_STYLE, type ChartOption, type Frame, type ReportChart } from './chart-types.js';
import { GROUPED_HEIGHT, GROUPED_WIDTH, groupedChart } from './grouped-chart.js';
import { niceEnd, placeLabels } from './scatter-labels.js';

export type { ChartOption, ReportChart } from './chart-types.js';
export { CHART_HEIGHT, CHART_WIDTH } from './chart-layout.js';

export interface ChartOptions {
  units?: ThroughputUnit;
  /** The source line a downloaded chart carries (`volbench report, 2026-11-27; prices: …`). */
  source?: string;
}

/** 1.2M, 400k, 950: an axis label that stays short however large its value. */
export function shortNumber(v: number): string {
  const abs = Math.abs(v);
  if (abs >= 1e6) return `${Number((v / 1e6).toPrecision(3))}M`;
  if (abs >= 1e4) return `${Number((v / 1e3).toPrecision(3))}k`;
  return `${Number(v.toPrecision(4))}`;
}

const COST_WIDTH = 600;
const COST_HEIGHT = 340;

function costChart(group: ReportGroup, metric: 'iops' | 'mibps', unit: ThroughputUnit, sourceText: string | undefined): ReportChart | null {
  const unitText = metric === 'iops' ? 'IOPS' : unit;
  const points = group.rows
    .map((r, k) => ({ r, k, x: metric === 'iops' ? r.headline_iops : r.headline_mibps, y: r.usd_per_month }))
    .filter((p): p is { r: ReportRow; k: number; x: number; y: number } => p.x !== null && p.y !== null)
    .map((p) => ({ ...p, x: metric === 'mibps' ? inUnit(p.x, unit) : p.x }));
  // One volume is one dot: its figures are in the table already.
  if (points.length < 2) return null;
  const title = `$/month against ${unitText} (${group.title})`;
  const source = sourceGraphic(sourceText, COST_WIDTH);
  // Room on the right for the labels: they are never clipped at the edge.
  const plot = { left: 70, right: 170, top: 50, bottom: 44 + source.height };
  const [xMax, yMax] = [niceEnd(Math.max(...points.map((p) => p.x))), niceEnd(Math.max(...points.map((p) => p.y)))];
  const box = { left: plot.left, top: plot.top, right: COST_WIDTH - plot.right, bottom: COST_HEIGHT - plot.bottom };
  const placed = placeLabels(points.map((p) => ({
    x: box.left + (p.x / xMax) * (box.right - box.left), y: box.bottom - (p.y / yMax) * (box.bottom - box.top), text: p.r.label,
  })), box, COST_WIDTH);
  return {
    kind: `cost-${metric}`,
    title,
    width: COST_WIDTH,
    height: COST_HEIGHT,
    option: {
      ...BASE,
      title: { text: title, left: 'center', textStyle: TITLE_STYLE },
      grid: plot,
      xAxis: { type: 'value', name: unitText, nameLocation: 'middle', nameGap: 26, min: 0, max: xMax, interval: xMax / 5, axisLabel: { formatter: shortNumber } },
      yAxis: { type: 'value', name: '$/month', min: 0, max: yMax, interval: yMax / 5, axisLabel: { formatter: shortNumber } },
      series: [{
        type: 'scatter',
        symbolSize: 10,
        data: points.map((p, i) => ({
          name: p.r.label, value: [p.x, p.y], itemStyle: { color: colourOf(p.k) },
          label: { show: true, position: placed[i].position, formatter: '{b}', fontSize: 11 },
        })),
        // Moved clear of one another, each with a line back to its point.
        labelLayout: (params: { dataIndex: number }) => ({ dy: placed[params.dataIndex].dy }),
        labelLine: { show: true, lineStyle: { color: '#999' } },
      }],
      graphic: source.graphic,
    },
    table: {
      header: ['Label', `Best ${unitText}`, '$/month'],
      rows: points.map((p) => [p.r.label, num(p.x, metric === 'iops' ? 0 : 1), num(p.y, 2)]),
    },
  };
}

interface Line {
  name: string;
  points: Array<[number, number]>;
  /** The volume's colour (its report row's). */
  colour: string;
  /** A second line of the same volume (its p99): dashed, on the right axis. */
  right?: boolean;
}

/**
 * Lines of several rows over a shared x, the right-axis ones dashed in their volume's colour,
 * the legend below the plot; and the table of x against each line.
 */
function linesChart(kind: string, title: string, axes: { x: string; y: string; logY: boolean; right?: string },
  lines: Line[], digits: { x: number; y: number; right?: number }, frame: Frame): ReportChart {
  const xs = [...new Set(lines.flatMap((l) => l.points.map((p) => p[0])))].sort((a, b) => a - b);
  const lookup = lines.map((l) => new Map(l.points.map(([x, y]) => [x, y])));
  const source = sourceGraphic(frame.source, frame.width);
  // The legend names the volumes; a volume's p99 line is its colour, dashed (the title says so).
  const named = lines.filter((l) => !l.right).map((l) => l.name);
  const legendHeight = legendRows(named, frame.width - 40) * LEGEND_ROW;
  const bottom = source.height + legendHeight + 54;
  const height = Math.max(frame.height, 50 + 200 + bottom);
  const yAxis = [{ type: axes.logY ? 'log' : 'value', name: axes.y, axisLabel: { formatter: shortNumber } }];
  if (axes.right) yAxis.push({ type: 'value', name: axes.right, position: 'right', splitLine: { show: false }, axisLabel: { formatter: shortNumber } } as never);
  return {
    kind,
    title,
    width: frame.width,
    height,
    option: {
      ...BASE,
      title: { text: title, left: 'center', textStyle: TITLE_STYLE },
      legend: { bottom: source.height + 6, left: 20, right: 20, itemGap: LEGEND_GAP, data: named },
      grid: { left: 70, right: 70, top: 50, bottom },
      xAxis: { type: 'value', name: axes.x, nameLocation: 'middle', nameGap: 28, scale: true },
      yAxis,
      series: lines.map((l) => ({
        type: 'line', name: l.name, showSymbol: l.points.length < 40, data: l.points,
        itemStyle: { color: l.colour },
        lineStyle: l.right ? { color: l.colour, type: 'dashed', width: 1 } : { color: l.colour },
        ...(l.right ? { yAxisIndex: 1, showSymbol: false } : {}),
      })),
      graphic: source.graphic,
    },
    table: {
      header: [axes.x, ...lines.map((l) => l.name)],
      rows: xs.map((x) => [num(x, digits.x), ...lookup.map((m, i) => num(m.get(x) ?? null, lines[i].right ? (digits.right ?? digits.y) : digits.y))]),
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

function percentileCharts(group: ReportGroup, frame: Frame): ReportChart[] {
  return detailKeys(group, (r) => r.details.percentiles).map((key) => {
    const lines = group.rows.flatMap((r, k) => (r.details.percentiles[key] ? [{ name: r.label, points: r.details.percentiles[key], colour: colourOf(k) }] : []));
    const title = `${keyTitle(key)}: completion latency percentiles`;
    const chart = linesChart('percentiles', title, { x: 'percentile', y: 'µs', logY: true }, lines, { x: 2, y: 1 }, frame);
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

/** Per second: throughput (solid, left) and the interval's p99 completion latency (dashed, right), a volume in one colour. */
function seriesCharts(group: ReportGroup, unit: ThroughputUnit, frame: Frame): ReportChart[] {
  return detailKeys(group, (r) => r.details.series).map((key) => {
    const test = key.slice(0, key.lastIndexOf(' '));
    const bandwidth = group.columns.find((c) => c.test === test)?.metric === 'mibps';
    const yName = bandwidth ? unit : 'IOPS';
    const rows = group.rows.map((r, k) => ({ r, k })).filter(({ r }) => r.details.series[key]);
    const perSecond = rows.map(({ r, k }) => ({
      name: r.label, colour: colourOf(k),
      points: r.details.series[key].map((p): [number, number] => [p.t_s, bandwidth ? inUnit(p.mibps, unit) : p.iops]),
    }));
    const p99 = rows.map(({ r, k }) => ({
      name: `${r.label} p99 µs`, colour: colourOf(k), right: true,
      points: r.details.series[key].map((p): [number, number] => [p.t_s, p.clat_p99_us]),
    }));
    // A long run's seconds merged so a line has about as many points as the chart has room for.
    const factor = mergeFactor(perSecond);
    const merge = (ls: Line[]): Line[] => ls.map((l) => ({ ...l, points: mergePoints(l.points, factor) }));
    const per = factor === 1 ? 'per second' : `per ${factor} s (mean)`;
    const title = `${keyTitle(key)}: ${yName} and p99 latency (dashed) ${per}`;
    const chart = linesChart('series', title, { x: 'seconds', y: yName, logY: false, right: 'p99 µs' }, [...merge(perSecond), ...merge(p99)],
      { x: 1, y: bandwidth ? 1 : 0, right: 1 }, frame);
    return { ...chart, detail: true };
  });
}

/** IOPS by depth on a log2 axis, p99 (dashed, the curve's colour) at the right, each curve's optimum marked. */
function sweepCharts(group: ReportGroup, frame: Frame): ReportChart[] {
  const names = [...new Set(group.rows.flatMap((r) => r.details.sweep.map((s) => s.name)))];
  return names.map((name) => {
    const curves = group.rows.flatMap((r, k) => r.details.sweep.filter((s) => s.name === name).map((s) => ({ r, s, colour: colourOf(k) })));
    const lines: Line[] = curves.map(({ r, s, colour }) => ({
      name: r.label, colour,
      points: s.points.filter((p) => p.iops !== undefined).map((p): [number, number] => [p.iodepth, p.iops ?? 0]),
    }));
    const p99: Line[] = curves.map(({ r, s, colour }) => ({
      name: `${r.label} p99 µs`, colour, right: true,
      points: s.points.filter((p) => p.clat_p99_ns !== undefined).map((p): [number, number] => [p.iodepth, (p.clat_p99_ns ?? 0) / 1000]),
    })).filter((l) => l.points.length > 0);
    const axes = { x: 'iodepth', y: 'IOPS', logY: false, ...(p99.length ? { right: 'p99 µs' } : {}) };
    const base = linesChart('sweep', `${name}: IOPS by queue depth (optimum ★)${p99.length ? ', p99 latency dashed' : ''}`, axes, [...lines, ...p99], { x: 0, y: 0, right: 1 }, frame);
    const series = (base.option.series as Array<Record<string, unknown>>).map((line, i) => {
      const best = curves[i]?.s.optimum;
      const at = i < lines.length ? lines[i].points.find(([x]) => x === best) : undefined;
      return at ? { ...line, markPoint: { symbol: 'pin', symbolSize: 36, data: [{ name: 'optimum', coord: at, value: `★ ${at[0]}` }] } } : line;
    });
    return {
      ...base,
      option: { ...base.option, series, xAxis: { ...(base.option.xAxis as object), type: 'log', logBase: 2, scale: false } },
      // The optimum beside the IOPS columns it is read from, the p99 columns after.
      table: {
        header: [...base.table.header.slice(0, lines.length + 1), 'optimum', ...base.table.header.slice(lines.length + 1)],
        rows: base.table.rows.map((row) => [
          ...row.slice(0, lines.length + 1), curves.filter(({ s }) => s.optimum === Number(row[0])).map(({ r }) => r.label).join(', '), ...row.slice(lines.length + 1),
        ]),
      },
    };
  });
}

export function groupCharts(group: ReportGroup, options: ChartOptions = {}): ReportChart[] {
  const unit = options.units ?? 'MiB/s';
  const frame: Frame = { width: CHART_WIDTH, height: CHART_HEIGHT, ...(options.source ? { source: options.source } : {}) };
  const main = [
    costChart(group, 'iops', unit, options.source), costChart(group, 'mibps', unit, options.source),
    groupedChart(group, unit, { ...frame, width: GROUPED_WIDTH, height: GROUPED_HEIGHT }),
  ].filter((c): c is ReportChart => c !== null);
  return [...main, ...sweepCharts(group, frame), ...seriesCharts(group, unit, frame), ...percentileCharts(group, frame)];
}

export function reportCharts(report: Report, options: ChartOptions = {}): ReportChart[][] {
  return report.groups.map((g) => groupCharts(g, options));
}
