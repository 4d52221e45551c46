/**
 * The report's data: one table per suite (or per set of job names), one row per target or
 * volume, one column per test and metric, price cells per test, plus what the charts draw and
 * what the results were measured on. Every renderer (Markdown, CSV, JSON, HTML, the service's
 * pages) reads this and nothing else.
 */
import { suiteManifest } from '../suites/manifest.js';
import { cloudFields, type CloudVolumeFields, type JobBurst, type PriceVolume, type VolumePrice } from './cloud-fields.js';
import { PRICE_METRICS, priceCells, testCell, dirsDone, type CellState, type PriceMetric, type ReportCell, type RowFacts } from './cells.js';
import { reportContext, reportTitle, type ReportContext } from './context.js';
import { details, type RowDetails } from './details.js';
import { draftsOf, type Draft, type ReportInput } from './drafts.js';
import { aboveText, NO_ENTITLEMENT } from './entitled.js';
import { disambiguate, rowLabel } from './labels.js';
import { readCloudSection, type ReadResult } from './read-result.js';
import { reportVerdicts, type Verdict, type VerdictMetric } from './verdicts.js';
import { genericTestColumns, METRIC_UNITS, namedSuites, namedTestColumns, type ColumnSpec, type Dir, type Metric } from './suite-columns.js';

export type { CellState, PriceMetric, ReportCell } from './cells.js';
export type { ReportContext } from './context.js';
export type { ReportInput } from './drafts.js';
export { MIN_SERIES_POINTS } from './details.js';
export type { RowDetails, SeriesPoint, TestFigures } from './details.js';

export interface ReportOptions {
  /** Prices a volume whose result carries no price (the catalog's priceVolume). */
  priceVolume?: PriceVolume;
  /** The report's date (ISO); now by default. */
  generatedAt?: string;
  /**
   * Price every volume with priceVolume, also one whose result carries a price of its own: a
   * prices file was given, and its prices are the ones asked for. A volume it cannot price
   * keeps the result's.
   */
  reprice?: boolean;
  /** The figure every verdict ranks by, over each question's own. */
  rankBy?: VerdictMetric;
  /** The report's title, over the one made from what it compares. */
  title?: string;
  /** The command that made the results (a fleet's, a rehearsal's), for the context line. */
  command?: string;
}

export interface ReportColumn extends ColumnSpec {
  key: string;
  /** `RND4K-Q32T1-read IOPS` */
  label: string;
  unit: string;
}

export type RowStatus = 'finished' | 'failed' | 'cancelled' | 'partial';

export interface ReportRow {
  /** The volume (`gp3 500 GiB 3000/125`), else the target; `--label` over both; where two rows share one, the target or a short run id is added. */
  label: string;
  /** The label before anything was added to tell repeats apart: rows with one are repeats of one volume. */
  base_label: string;
  /** The volume in words, when the result names one. */
  volume: string | null;
  /** The path the row's jobs ran on, when the result says. */
  target_path: string | null;
  /** The file, URL or run id the row came from: secondary to the label. */
  source: string;
  /** Target index within the source document. */
  target: number;
  type: string | null;
  size_gib: number | null;
  provisioned_iops: number | null;
  provisioned_mibps: number | null;
  usd_per_month: number | null;
  price_as_of: string | null;
  /** The region the price is for, when known. */
  price_region: string | null;
  /** The price's confidence (H: read on the provider's page; M: secondary; L: unverified), when known. */
  price_confidence: 'H' | 'M' | 'L' | null;
  status: RowStatus;
  error: string | null;
  /** The price source in words: `list price, confirmed` (H), `secondary source` (M), `unverified` (L). */
  price_source: string | null;
  /**
   * By column key (`TEST:dir:metric`), and per test its price cells (`TEST:usd_per_1000_iops`,
   * `TEST:usd_per_mibps`).
   */
  cells: Record<string, ReportCell>;
  /** The headline figures: the row's best IOPS and best MiB/s over its columns (the rule every view uses). */
  headline_iops: number | null;
  headline_mibps: number | null;
  /** The test each price column reads for this row: the group's, or where the group has none (ad hoc jobs), the row's own headline test. */
  priced_at: Record<PriceMetric, string | null>;
  /** Each cell above the tolerance: `RND4K-Q32T1-read IOPS: 13.65× entitled (not the named volume)`. */
  flags: string[];
  notes: string[];
  details: RowDetails;
}

export interface ReportGroup {
  /** The named suite, or null for a set of other jobs. */
  suite: string | null;
  title: string;
  columns: ReportColumn[];
  /** The test each price column reads, the same for every row (the suite's question's test); null: each row at its own. */
  price_tests: Record<PriceMetric, string | null>;
  rows: ReportRow[];
}

export interface Report {
  /** What the report compares, on what (`aws-ssd on 3 volumes, m6i.large`). */
  title: string;
  /** What the results were measured on: the context line, the rehearsal banner, the statistics note. */
  context: ReportContext;
  generated_at: string;
  groups: ReportGroup[];
  /** The dates of the price lists the $ columns use. */
  price_dates: string[];
  /** The price lists the $ columns use: region (null when a result's price names none) and date. */
  prices: Array<{ region: string | null; as_of: string; confidence?: 'M' | 'L' }>;
  /** One per question a suite in the report answers, groups in order. */
  verdicts: Verdict[];
}

const MIB = 1024 * 1024;
const DIRS: readonly Dir[] = ['read', 'write'];

/** A price source's confidence in a reader's words. */
const PRICE_WORDS: Readonly<Record<'H' | 'M' | 'L', string>> = { H: 'list price, confirmed', M: 'secondary source', L: 'unverified' };

export function columnKey(c: ColumnSpec): string {
  return `${c.test}:${c.dir}:${c.metric}`;
}

function column(c: ColumnSpec, named: boolean): ReportColumn {
  const unit = METRIC_UNITS[c.metric];
  // A named test says its direction in its name.
  const label = named ? `${c.test} ${unit}` : `${c.test} ${c.dir} ${unit}`;
  return { ...c, key: columnKey(c), label, unit };
}

/** A test's p99 columns where a row's volume answered its statistics page and the suite has none: EBS's p99 goes beside volbench's. */
function withEbsLatency(cols: ColumnSpec[], test: string, drafts: readonly Draft[]): ColumnSpec[] {
  if (cols.some((c) => c.metric === 'p99_us')) return cols;
  const measured = drafts.some((d) => d.tests.get(test)?.vb.some((v) => v?.ebs_stats));
  return measured ? [...cols, ...[...new Set(cols.map((c) => c.dir))].map((dir) => ({ test, dir, metric: 'p99_us' as const }))] : cols;
}

function groupColumns(suite: string | null, drafts: readonly Draft[]): ReportColumn[] {
  if (suite !== null) {
    return namedSuites()[suite].flatMap((t) => withEbsLatency(namedTestColumns(t) ?? genericTestColumns(t, DIRS), t, drafts).map((c) => column(c, true)));
  }
  const dirs = new Map<string, Set<Dir>>();
  for (const d of drafts) {
    for (const [name, e] of d.tests) {
      const set = dirs.get(name) ?? new Set<Dir>();
      dirs.set(name, set);
      for (const dir of dirsDone(e)) set.add(dir);
    }
  }
  return [...dirs].flatMap(([name, set]) => {
    const named = namedTestColumns(name);
    if (named) return withEbsLatency(named, name, drafts).map((c) => column(c, true));
    return genericTestColumns(name, DIRS.filter((d) => set.has(d))).map((c) => column(c, false));
  });
}

/**
 * The test each price column reads, the same for every row: the suite's question of that price,
 * else its question of the underlying figure, else its first column of it. A group of ad hoc
 * jobs has none: each row is priced at its own headline test.
 */
function groupPriceTests(suite: string | null, columns: readonly ReportColumn[]): Record<PriceMetric, string | null> {
  if (suite === null) return { usd_per_1000_iops: null, usd_per_mibps: null };
  const questions = suiteManifest().find((s) => s.name === suite)?.questions ?? [];
  const pick = (price: PriceMetric, base: Metric): string | null =>
    questions.find((q) => q.metric === price)?.test ?? questions.find((q) => q.metric === base)?.test ?? columns.find((c) => c.metric === base)?.test ?? null;
  return { usd_per_1000_iops: pick('usd_per_1000_iops', 'iops'), usd_per_mibps: pick('usd_per_mibps', 'mibps') };
}

function rowStatus(d: Draft, cells: ReportCell[]): RowStatus {
  if (!d.doc) return d.input.status === 'cancelled' ? 'cancelled' : 'failed';
  if (cells.some((c) => c.state === 'cancelled') || d.input.status === 'cancelled') return 'cancelled';
  if (cells.some((c) => c.state === 'failed') || d.input.status === 'failed') return cells.some((c) => c.state === 'ok') ? 'partial' : 'failed';
  return 'finished';
}

/** The headline of a row for `metric`: its best value over the columns of that metric, and the column. */
export function headline(columns: readonly ReportColumn[], cells: Record<string, ReportCell>, metric: Metric): { col: ReportColumn; value: number } | null {
  let best: { col: ReportColumn; value: number } | null = null;
  for (const col of columns) {
    const v = cells[col.key]?.value;
    if (col.metric === metric && typeof v === 'number' && (best === null || v > best.value)) best = { col, value: v };
  }
  return best;
}

const grouped = (n: number): string => Math.round(n).toLocaleString('en-US');

/** " (3,000 → 300 IOPS, the catalog's full bucket)": what the analysis adds to a cliff's time. */
function cliffDetail(b: JobBurst): string {
  const parts: string[] = [];
  if (b.level_before !== undefined && b.level_after !== undefined) {
    parts.push(`${grouped(b.level_before)} → ${grouped(b.level_after)}${b.unit ? ` ${b.unit}` : ''}`);
  }
  if (b.catalog?.matches !== undefined) parts.push(b.catalog.matches ? "the catalog's full bucket" : "not the catalog's full bucket");
  return parts.length ? ` (${parts.join(', ')})` : '';
}

function burstNotes(d: Draft): string[] {
  const notes: string[] = [];
  for (const [name, e] of d.tests) {
    const burst = e.vb[0]?.analysis?.burst;
    if (burst?.cliff_at_s !== undefined) notes.push(`${name}: burst cliff at ${Math.round(burst.cliff_at_s)} s${cliffDetail(burst)}`);
    else if (burst?.never_left_burst) {
      notes.push(`${name}: never left the burst${burst.catalog?.seconds_needed ? ` (a full bucket lasts ${grouped(burst.catalog.seconds_needed)} s at this rate)` : ''}`);
    }
  }
  return notes;
}

/** The row's price, with the region it is for: the pricer's, else the one the result names. */
function priceOf(cloud: CloudVolumeFields | undefined, options: ReportOptions): VolumePrice | undefined {
  const price = cloud?.price && !options.reprice ? cloud.price : (cloud && options.priceVolume?.(cloud, cloud.region)) || cloud?.price;
  const region = price?.region ?? cloud?.region;
  return price && region ? { ...price, region } : price;
}

function flagsOf(columns: readonly ReportColumn[], cells: Record<string, ReportCell>): string[] {
  return columns.flatMap((c) => {
    const cell = cells[c.key];
    return cell?.flag && cell.measured_vs_entitled !== null ? [`${c.label}: ${aboveText(cell.measured_vs_entitled, cell.flag)}`] : [];
  });
}

/** The cells of a row: one per column, and each test's price cells. */
function rowCells(d: Draft, columns: readonly ReportColumn[], facts: RowFacts | null): Record<string, ReportCell> {
  const cells: Record<string, ReportCell> = {};
  const dead: CellState = d.input.status === 'cancelled' ? 'cancelled' : 'failed';
  for (const col of columns) cells[col.key] = facts ? testCell(d.tests.get(col.test), col, facts) : { ...NO_ENTITLEMENT, value: null, state: dead };
  const tests = new Set([...columns.map((c) => c.test), ...d.tests.keys()]);
  for (const test of tests) {
    const e = d.tests.get(test);
    if (facts && e) Object.assign(cells, priceCells(test, e, facts));
    else for (const metric of PRICE_METRICS) cells[`${test}:${metric}`] = { ...NO_ENTITLEMENT, value: null, state: facts ? 'missing' : dead };
  }
  return cells;
}

/** The test each price column reads for a row: the group's, else the row's own best. */
function pricedAt(group: Record<PriceMetric, string | null>, columns: readonly ReportColumn[], cells: Record<string, ReportCell>): Record<PriceMetric, string | null> {
  return {
    usd_per_1000_iops: group.usd_per_1000_iops ?? headline(columns, cells, 'iops')?.col.test ?? null,
    usd_per_mibps: group.usd_per_mibps ?? headline(columns, cells, 'mibps')?.col.test ?? null,
  };
}

function buildRow(d: Draft, columns: readonly ReportColumn[], priceTests: Record<PriceMetric, string | null>, options: ReportOptions, multiTarget: boolean): ReportRow {
  const cloud = cloudFields(d.doc?.volbench?.cloud) ?? cloudFields(readCloudSection(d.input.cloud));
  const price = priceOf(cloud, options);
  const usd = price?.usd_per_month ?? null;
  const facts: RowFacts | null = d.doc ? {
    doc: d.doc, rate: d.doc.volbench?.cloud?.emulation?.rate ?? 1, identified: cloud?.volume_id !== undefined, usdPerMonth: usd,
  } : null;
  const cells = rowCells(d, columns, facts);
  const iops = headline(columns, cells, 'iops');
  const mibps = headline(columns, cells, 'mibps');
  const target = d.doc?.volbench?.targets?.[d.target];
  const sizeGib = cloud?.size_gib ?? (target?.is_block_device && target.size_bytes > 0 ? target.size_bytes / (1024 * MIB) : null);
  const targetPath = d.targetPath ?? target?.path;
  const label = rowLabel({ override: d.input.label, cloud, targetPath, source: d.input.source, volumeKey: multiTarget ? d.volume : '' });
  return {
    label: label.text,
    base_label: label.text,
    volume: label.volume,
    target_path: targetPath ?? null,
    source: d.input.source,
    target: d.target,
    type: cloud?.volume_type ?? null,
    size_gib: sizeGib,
    provisioned_iops: cloud?.iops ?? null,
    provisioned_mibps: cloud?.throughput_mibps ?? null,
    usd_per_month: usd,
    price_as_of: price?.as_of || null,
    price_region: price?.region ?? null,
    price_confidence: price?.confidence ?? null,
    price_source: price ? PRICE_WORDS[price.confidence ?? 'H'] : null,
    status: rowStatus(d, Object.values(cells)),
    error: d.error ?? firstError(d) ?? null,
    cells,
    headline_iops: iops?.value ?? null,
    headline_mibps: mibps?.value ?? null,
    priced_at: pricedAt(priceTests, columns, cells),
    flags: flagsOf(columns, cells),
    notes: burstNotes(d),
    details: details(d),
  };
}

function firstError(d: Draft): string | undefined {
  for (const e of d.tests.values()) {
    const msg = e.vb.find((v) => v?.error_message)?.error_message;
    if (msg) return msg;
  }
  return undefined;
}

function groupTitle(suite: string | null, key: string): string {
  if (suite !== null) return `Suite ${suite}`;
  if (key === 'none') return 'Runs without a result';
  return `Jobs ${key.slice('jobs:'.length).split('\n').join(', ')}`;
}

/** The price lists the $ columns use, by region and date; a list is as sure as its least sure price. */
function priceLists(groups: readonly ReportGroup[]): { dates: string[]; prices: Report['prices'] } {
  const dates = new Set<string>();
  const prices = new Map<string, { region: string | null; as_of: string; confidence?: 'M' | 'L' }>();
  for (const r of groups.flatMap((g) => g.rows)) {
    if (!r.price_as_of) continue;
    dates.add(r.price_as_of);
    const key = `${r.price_as_of} ${r.price_region ?? ''}`;
    const was = prices.get(key)?.confidence;
    const confidence = was === 'L' || r.price_confidence === 'L' ? 'L' : was === 'M' || r.price_confidence === 'M' ? 'M' : undefined;
    prices.set(key, { region: r.price_region, as_of: r.price_as_of, ...(confidence ? { confidence } : {}) });
  }
  return { dates: [...dates].sort(), prices: [...prices.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, p]) => p) };
}

/** The report over `inputs`, rows in the order given, groups in the order first seen. */
export function buildPublishReport(inputs: readonly ReportInput[], options: ReportOptions = {}): Report {
  const groups = new Map<string, Draft[]>();
  for (const input of inputs) {
    for (const d of draftsOf(input)) {
      const list = groups.get(d.groupKey) ?? [];
      groups.set(d.groupKey, list);
      list.push(d);
    }
  }
  const out: ReportGroup[] = [];
  const seen: Array<{ doc: ReadResult; volume: string | null }> = [];
  for (const [key, drafts] of groups) {
    const suite = drafts[0].suite;
    const columns = groupColumns(suite, drafts);
    const priceTests = groupPriceTests(suite, columns);
    const targetsPerSource = new Map<ReportInput, number>();
    for (const d of drafts) targetsPerSource.set(d.input, (targetsPerSource.get(d.input) ?? 0) + 1);
    const rows = disambiguate(drafts.map((d) => buildRow(d, columns, priceTests, options, (targetsPerSource.get(d.input) ?? 0) > 1)));
    drafts.forEach((d, i) => d.doc && seen.push({ doc: d.doc, volume: rows[i].volume }));
    out.push({ suite, title: groupTitle(suite, key), columns, price_tests: priceTests, rows });
  }
  const { dates, prices } = priceLists(out);
  const context = reportContext(seen, out.flatMap((g) => (g.suite === null ? [] : [g.suite])), options.command);
  return {
    title: options.title ?? reportTitle(context), context,
    generated_at: options.generatedAt ?? new Date().toISOString(), groups: out, price_dates: dates, prices,
    verdicts: reportVerdicts(out, options.rankBy),
  };
}
