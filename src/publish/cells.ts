/**
 * A row's cells: one per column (a test's direction and metric: the measured figure, what the
 * volume allows it, what bound the job), and per test its price cells (`TEST:usd_per_1000_iops`,
 * `TEST:usd_per_mibps`: the volume's month over the test's whole rate, both directions together).
 */
import { usdPer1000Iops, usdPerMibps } from '../cloud/cost.js';
import type { FioDirStats, FioJob, VolbenchJob } from '../fio-output/fio-result.js';
import { ebsP99Us } from './ebs-latency.js';
import { cellEntitlement, isBuffered, jobCellEntitlement, NO_ENTITLEMENT, type CellEntitlement, type EntitledFacts } from './entitled.js';
import type { ReadResult } from './read-result.js';
import type { ColumnSpec, Dir, Metric } from './suite-columns.js';

export type CellState = 'ok' | 'missing' | 'failed' | 'cancelled';

export interface ReportCell extends CellEntitlement {
  value: number | null;
  state: CellState;
  /** A p99 cell of a job whose volume answered its statistics page: EBS's own p99 for the direction, µs. */
  ebs_p99_us?: number;
  /** A price cell: the test's measured rate (IOPS, or MiB/s), both directions together. */
  measured?: number | null;
  /**
   * A price cell of an emulated volume: the rate it divides by instead, `measured / rate` (what
   * the volume AWS sells would deliver at the same measured/entitled ratio). Absent for a real one.
   */
  unscaled?: number | null;
}

/** The price metrics, each a cell per test. */
export const PRICE_METRICS = ['usd_per_1000_iops', 'usd_per_mibps'] as const;
export type PriceMetric = (typeof PRICE_METRICS)[number];

/** One test's entries in a document, for one target. */
export interface TestEntry {
  jobs: FioJob[];
  vb: Array<VolbenchJob | undefined>;
}

/** What every cell of a row is held against: its volume, as far as the result says. */
export interface RowFacts {
  doc: ReadResult;
  /** An emulated volume's rate factor, else 1. */
  rate: number;
  identified: boolean;
  usdPerMonth: number | null;
}

const MIB = 1024 * 1024;
const DIRS: readonly Dir[] = ['read', 'write'];

export function dirStats(job: FioJob, dir: Dir): FioDirStats | undefined {
  return job[dir] ?? (job.mixed && dir === 'read' ? job.mixed : undefined);
}

function percentileUs(s: FioDirStats | undefined, key: string): number | null {
  const ns = s?.clat_ns?.percentile?.[key] ?? s?.lat_ns?.percentile?.[key];
  return typeof ns === 'number' ? ns / 1000 : null;
}

export function entryState(e: TestEntry): CellState {
  if (e.vb.some((v) => v?.cancelled)) return 'cancelled';
  if (e.jobs.some((j) => j.error !== 0) || e.vb.some((v) => v?.error_message)) return 'failed';
  return 'ok';
}

export function metricValue(e: TestEntry, dir: Dir, metric: Metric): number | null {
  const stats = e.jobs.map((j) => dirStats(j, dir)).filter((s): s is FioDirStats => s !== undefined);
  if (stats.length === 0) return null;
  if (metric === 'iops') return stats.reduce((a, s) => a + s.iops, 0);
  if (metric === 'mibps') return stats.reduce((a, s) => a + s.bw_bytes, 0) / MIB;
  // Latency: of the entry that did the most I/O (entries of one test are alike).
  const most = stats.reduce((a, s) => (s.total_ios > a.total_ios ? s : a));
  return percentileUs(most, metric === 'p50_us' ? '50.000000' : '99.000000');
}

export function dirsDone(e: TestEntry): Dir[] {
  return DIRS.filter((d) => e.jobs.some((j) => (dirStats(j, d)?.total_ios ?? 0) > 0));
}

/** What a test needs to be held against its volume: its entitlement, its statistics, and why it could be above it. */
function factsOf(e: TestEntry, row: RowFacts): EntitledFacts | undefined {
  const vb = e.vb[0];
  if (!vb?.entitlement) return undefined;
  return {
    entitlement: vb.entitlement, ...(vb.ebs_stats ? { ebs: vb.ebs_stats } : {}), rate: row.rate,
    identified: row.identified, buffered: e.jobs.some((j) => isBuffered(j, row.doc)),
  };
}

/** The cell of column `c` for the test's entries (undefined: the row has no such test). */
export function testCell(e: TestEntry | undefined, c: ColumnSpec, row: RowFacts): ReportCell {
  if (!e) return { ...NO_ENTITLEMENT, value: null, state: 'missing' };
  const state = entryState(e);
  if (state !== 'ok') return { ...NO_ENTITLEMENT, value: null, state };
  const value = metricValue(e, c.dir, c.metric);
  const facts = factsOf(e, row);
  const ent = facts ? cellEntitlement(value, c.dir, c.metric, facts) : NO_ENTITLEMENT;
  const ebs = c.metric === 'p99_us' ? ebsP99Us(e.vb[0]?.ebs_stats, c.dir) : null;
  return { ...ent, value, state: value === null ? 'missing' : state, ...(ebs !== null ? { ebs_p99_us: ebs } : {}) };
}

/** A test's rate over both directions. */
function wholeRate(e: TestEntry, metric: 'iops' | 'mibps'): number | null {
  const values = DIRS.map((d) => metricValue(e, d, metric)).filter((v): v is number => v !== null);
  return values.length ? values.reduce((a, b) => a + b, 0) : null;
}

/**
 * A test's price cells: $ a month per 1,000 of its IOPS and per MiB/s, reads and writes together.
 * An emulated volume is priced on its rates unscaled: its price is AWS's for the full-size volume,
 * so dividing it by rates scaled to 0.25 would make every $ figure 4 times AWS's. Its
 * measured/entitled stays as measured, both sides scaled.
 */
export function priceCells(test: string, e: TestEntry, row: RowFacts): Record<string, ReportCell> {
  const state = entryState(e);
  const facts = factsOf(e, row);
  const out: Record<string, ReportCell> = {};
  for (const metric of PRICE_METRICS) {
    const base = metric === 'usd_per_1000_iops' ? 'iops' : 'mibps';
    if (state !== 'ok') {
      out[`${test}:${metric}`] = { ...NO_ENTITLEMENT, value: null, state };
      continue;
    }
    const measured = wholeRate(e, base);
    const priced = measured === null ? null : measured / row.rate;
    const value = metric === 'usd_per_1000_iops' ? usdPer1000Iops(row.usdPerMonth, priced) : usdPerMibps(row.usdPerMonth, priced);
    const ent = facts ? jobCellEntitlement(measured, base, facts) : NO_ENTITLEMENT;
    // A test measured without a price still has its entitlement: the cell is there, its value not.
    out[`${test}:${metric}`] = { ...ent, value: value ?? null, state: measured === null ? 'missing' : 'ok', measured, ...(row.rate !== 1 ? { unscaled: priced } : {}) };
  }
  return out;
}
