/** What every chart of the report is, and what they share. */
import type { TextTable } from './table.js';

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
  /** Pixels: the size it was laid out for. */
  width: number;
  height: number;
}

/** The size a chart is drawn at and the source line it carries (`volbench report, 2026-11-27; prices: …`). */
export interface Frame {
  width: number;
  height: number;
  source?: string;
}

export const BASE = { animation: false, textStyle: { fontFamily: 'sans-serif' } };
export const TITLE_STYLE = { fontSize: 14 };

export function num(v: number | null | undefined, digits: number): string {
  return v === null || v === undefined || !Number.isFinite(v) ? '' : v.toFixed(digits);
}

/**
 * A series' or percentile chart's key (`RND16K-Q1T16-write write`: the test and its direction)
 * as a title says it: the test alone when its name ends in the direction already.
 */
export function keyTitle(key: string): string {
  const cut = key.lastIndexOf(' ');
  if (cut < 0) return key;
  const [test, dir] = [key.slice(0, cut), key.slice(cut + 1)];
  return new RegExp(`[-_ .]${dir}$`, 'i').test(test) || test === dir ? test : key;
}
