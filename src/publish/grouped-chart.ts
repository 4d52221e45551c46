/**
 * The suite's grouped chart: tests across, a bar per volume (in its colour), reads (left) beside
 * writes (right), every bar in the one throughput unit (KDiskMark's way: small random blocks read
 * low, as they are), and each bar's p99 completion latency as a ◆ on a log axis of its own, drawn
 * over its own bar, dark with a white outline so it shows inside a bar as well as above one.
 * ECharts puts a scatter point at the middle of its category, so the ◆s are a custom series
 * that offsets each to its bar the way ECharts lays the bars out (barCategoryGap, barGap).
 */
import type { ReportGroup, ReportRow, TestFigures } from './model.js';
import type { Dir } from './suite-columns.js';
import { inUnit, type ThroughputUnit } from './units.js';
import { colourOf, LEGEND_GAP, LEGEND_ROW, legendRows, sourceGraphic, textWidth } from './chart-layout.js';
import { BASE, num, TITLE_STYLE, type Frame, type ReportChart } from './chart-types.js';

const BAR_CATEGORY_GAP = 0.2;
const BAR_GAP = 0.3;
const DIAMOND_RADIUS = 6;
/** The ◆: near black inside (3.5:1 or more against every colour of the palette, 15:1 against the page), a white outline. */
export const DIAMOND_STYLE = { fill: '#222222', stroke: '#ffffff', lineWidth: 1.5 };

export const GROUPED_WIDTH = 1000;
export const GROUPED_HEIGHT = 440;

/** `SEQ1M-Q8T1-read` → `SEQ1M-Q8T1`: the test without the direction its name ends in. */
function stemOf(t: TestFigures): string {
  return t.test.endsWith(`-${t.dir}`) ? t.test.slice(0, -(t.dir.length + 1)) : t.test;
}

/** Where bar `index` of `count` sits from the middle of a category `band` pixels wide (ECharts' bar layout). */
export function barOffset(band: number, count: number, index: number): number {
  const used = band * (1 - BAR_CATEGORY_GAP);
  const bar = used / (count + BAR_GAP * (count - 1));
  return -used / 2 + bar / 2 + index * bar * (1 + BAR_GAP);
}

interface CustomApi {
  value(dim: number): number;
  coord(data: number[]): number[];
  size(data: number[]): number[];
}

/** The ◆s of one volume (bar `index` of `count`), on the log axis of its direction. */
function diamonds(row: ReportRow, index: number, count: number, axis: number, values: Array<number | null>): object {
  return {
    type: 'custom', name: row.label, xAxisIndex: axis, yAxisIndex: 2 * axis + 1, z: 10,
    data: values.flatMap((v, i) => (v === null || !(v > 0) ? [] : [[i, v]])),
    renderItem: (_params: unknown, api: CustomApi) => {
      const [cx, cy] = api.coord([api.value(0), api.value(1)]);
      const x = cx + barOffset(api.size([1, 0])[0], count, index);
      const r = DIAMOND_RADIUS;
      return { type: 'polygon', shape: { points: [[x, cy - r], [x + r, cy], [x, cy + r], [x - r, cy]] }, style: DIAMOND_STYLE };
    },
  };
}

/** Room under a grid for its category labels (wrapped to their band) and the axis name. */
function axisRoom(stems: readonly string[][], gridWidthPx: number): { labelWidth: number; nameGap: number } {
  const band = Math.min(...stems.map((s) => gridWidthPx / Math.max(1, s.length)));
  const labelWidth = Math.max(30, Math.floor(band - 6));
  const lines = Math.max(1, ...stems.flat().map((s) => Math.ceil(textWidth(s, 11) / labelWidth)));
  return { labelWidth, nameGap: 10 + lines * 14 };
}

export function groupedChart(group: ReportGroup, unit: ThroughputUnit, frame: Frame): ReportChart | null {
  const dirs = (['read', 'write'] as Dir[]).filter((d) => group.rows.some((r) => r.details.tests.some((t) => t.dir === d)));
  if (dirs.length === 0) return null;
  const stems = dirs.map((d) => [...new Set(group.rows.flatMap((r) => r.details.tests.filter((t) => t.dir === d).map(stemOf)))]);
  const fig = (r: ReportRow, d: Dir, stem: string): TestFigures | undefined => r.details.tests.find((t) => t.dir === d && stemOf(t) === stem);
  const width = 100 / dirs.length;
  const labels = group.rows.map((r) => r.label);
  const source = sourceGraphic(frame.source, frame.width);
  const legendHeight = legendRows(labels, frame.width - 40) * LEGEND_ROW;
  const { labelWidth, nameGap } = axisRoom(stems, (frame.width * (width - 12)) / 100);
  const bottom = source.height + legendHeight + nameGap + 26;
  const height = Math.max(frame.height, 76 + 220 + bottom);
  // The axes' names sit above the plot: clear of the title.
  const grid = dirs.map((_, i) => ({ left: `${i * width + 6}%`, width: `${width - 12}%`, top: 76, bottom }));
  const xAxis = dirs.map((d, i) => ({
    type: 'category', gridIndex: i, data: stems[i], name: `${d}s`, nameLocation: 'middle', nameGap,
    axisLabel: { interval: 0, fontSize: 11, width: labelWidth, overflow: 'breakAll' },
  }));
  const yAxis = dirs.flatMap((_, i) => [
    { type: 'value', gridIndex: i, name: unit },
    { type: 'log', gridIndex: i, name: 'p99 µs', position: 'right', splitLine: { show: false } },
  ]);
  const series = dirs.flatMap((d, i) => group.rows.flatMap((r, k) => [
    {
      type: 'bar', name: r.label, xAxisIndex: i, yAxisIndex: 2 * i, itemStyle: { color: colourOf(k) },
      barCategoryGap: `${BAR_CATEGORY_GAP * 100}%`, barGap: `${BAR_GAP * 100}%`,
      data: stems[i].map((s) => { const f = fig(r, d, s); return f ? Number(inUnit(f.mibps, unit).toFixed(1)) : null; }),
    },
    diamonds(r, k, group.rows.length, i, stems[i].map((s) => fig(r, d, s)?.clat_p99_us ?? null)),
  ]));
  const title = `${group.title}: ${unit} (bars) and p99 latency (◆), per test`;
  const cols = dirs.flatMap((d, i) => stems[i].map((s) => ({ d, s })));
  return {
    kind: 'grouped',
    title,
    width: frame.width,
    height,
    option: {
      ...BASE,
      title: { text: title, left: 'center', textStyle: TITLE_STYLE },
      legend: { bottom: source.height + 6, left: 20, right: 20, itemGap: LEGEND_GAP, data: labels },
      grid, xAxis, yAxis, series, graphic: source.graphic,
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
