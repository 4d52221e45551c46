/**
 * Burst analysis of every job's per-second series (`volbench.jobs[].analysis.burst`): a cliff
 * (findings/cliff.ts), the levels either side, when, and the credits that implies. When the
 * document names its volume (`volbench.cloud.volume`, or the `volume` option), the finding is
 * held against the catalog's burst model: a full gp2 bucket is 5.4 M I/O credits, so a cliff
 * whose work above the baseline comes to that is the bucket running dry; a run that stayed above
 * the baseline to the end measured the burst, and is told how long a run would have to be.
 */
import { entitlement, instanceType, volumeFromJson, type Volume } from '../cloud/index.js';
import { countedPerIo, SEQUENTIAL_RW } from '../cloud/entitlement.js';
import { scaleEntitlement } from '../cloud/emulation.js';
import { mergedOptions } from '../cloud/job-shape.js';
import type { VolbenchEmulation } from '../fio-output/ebs-stats-section.js';
import type { FioJob, FioJson, VolbenchCloud, VolbenchJob, VolbenchSeriesPoint } from '../fio-output/fio-result.js';
import { findCliff, medianRate, MIN_SIDE, type RatePoint } from './cliff.js';
import type { VolbenchBurst, VolbenchBurstCatalog } from '../fio-output/analysis-sections.js';

export interface BurstOptions {
  /** The volume behind the result; default: the one `volbench.cloud.volume` names, if any. */
  volume?: Volume;
  /** The EC2 instance type it was attached to; default: `volbench.cloud.instance_type`, if the catalog knows it. */
  instance?: string;
}

/**
 * Past the catalog's time from a full bucket, a run that means to see the cliff goes on: a job
 * below the burst level drains it more slowly (a quarter slower, plus a minute for a short
 * bucket and the level after).
 */
const MARGIN_SHARE = 0.25;
const MARGIN_SEC = 60;

/** How long --until-baseline runs for a bucket that lasts `secondsFromFull` at the burst level: that and the margin. */
export function untilBaselineRuntimeSec(secondsFromFull: number): number {
  return Math.ceil(secondsFromFull * (1 + MARGIN_SHARE)) + MARGIN_SEC;
}

/** Fewest points to look for a cliff in: a level of MIN_SIDE seconds each side. */
export const MIN_CLIFF_POINTS = 2 * MIN_SIDE;
/**
 * A cliff's credits within this share of a full bucket, and its level after within this share
 * of the baseline, match the catalog: the guest counts I/Os otherwise than the provider (merges,
 * splits), delivery is "at least 90% of the time", and a bucket refills a little while it drains.
 */
const MATCH_TOLERANCE = 0.25;
/** A series this far above the baseline is running on credits. */
const ABOVE_BASELINE = 1.25;
const MiB = 1024 * 1024;

const DIRS = ['read', 'write', 'trim'] as const;

/** A finite number, else 0: a document from elsewhere may hold anything. */
const finite = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

interface JobShape {
  bs: number;
  sequential: boolean;
}

/** The job's I/O size and pattern; `rw` as fio merged it ([global] under the job's own section), else the job's own. */
function jobShape(job: FioJob | undefined, rw?: string): JobShape {
  let ios = 0;
  let bytes = 0;
  for (const d of DIRS) {
    ios += finite(job?.[d]?.total_ios);
    bytes += finite(job?.[d]?.io_bytes);
  }
  const mode = rw ?? job?.['job options']?.rw ?? job?.['job options']?.readwrite ?? 'read';
  return { bs: ios > 0 ? Math.max(1, Math.round(bytes / ios)) : 4096, sequential: SEQUENTIAL_RW.has(mode) };
}

function ratePoints(series: unknown, unit: VolbenchBurst['unit']): RatePoint[] {
  if (!Array.isArray(series)) return [];
  return (series as Array<VolbenchSeriesPoint | null>)
    .filter((p): p is VolbenchSeriesPoint => typeof p === 'object' && p !== null && finite(p.dur_ms) > 0)
    .map((p) => {
      let rate = 0;
      for (const d of DIRS) rate += unit === 'IOPS' ? finite(p[d]?.iops) : finite(p[d]?.bw_bytes) / MiB;
      return { endS: finite(p.t_ms) / 1000, durS: p.dur_ms / 1000, rate };
    });
}

/** The volume a document names, if the catalog knows it; a document is not refused for it. */
export function volumeOfCloud(cloud: VolbenchCloud | undefined): Volume | undefined {
  const v = cloud?.volume;
  if (!v || typeof v.type !== 'string' || typeof v.size_gib !== 'number') return undefined;
  try {
    return volumeFromJson({
      type: v.type, size_gib: v.size_gib,
      ...(typeof v.iops === 'number' ? { iops: v.iops } : {}),
      ...(typeof v.throughput_mibps === 'number' ? { throughput_mibps: v.throughput_mibps } : {}),
    });
  } catch {
    return undefined;
  }
}

/** An instance type the catalog has limits for; a document naming another is not refused for it. */
function knownInstance(name: unknown): string | undefined {
  if (typeof name !== 'string') return undefined;
  try {
    instanceType(name);
    return name;
  } catch {
    return undefined;
  }
}

const round = (n: number, digits = 2): number => Math.round(n * 10 ** digits) / 10 ** digits;
const grouped = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
/** 5.4 M, 540 k, 3,500: credit counts as people say them. */
function amount(n: number): string {
  if (Math.abs(n) >= 1e6) return `${grouped(n / 1e6, Math.abs(n) >= 1e7 ? 0 : 1)} M`;
  return grouped(n);
}
const seconds = (s: number): string => `${grouped(s, s < 100 ? 1 : 0)} s`;
const level = (n: number, unit: VolbenchBurst['unit']): string => `${grouped(n, n < 100 ? 1 : 0)} ${unit}`;
const creditUnit = (unit: VolbenchBurst['unit']): string => (unit === 'IOPS' ? 'IOPS·s' : 'MiB');

/**
 * The catalog's burst model for this volume and job, or null when the volume does not burst. On
 * an emulated volume, as it was held: levels by the rate factor, the bucket by rate and time (so
 * it lasts `time` as long), and its credits in the same units as the rates measured.
 */
function burstModel(volume: Volume, shape: JobShape, scale?: VolbenchEmulation): Omit<VolbenchBurstCatalog, 'credits' | 'matches' | 'seconds_needed'> | null {
  // A volume without a burst model is not entitled here (instance store would need its instance).
  const model = volume.catalog.burst;
  if (!model) return null;
  const e = scaleEntitlement(entitlement(volume, { bs: shape.bs, sequential: shape.sequential }), scale);
  if (!e.burst) return null;
  const perIo = countedPerIo(volume.catalog, shape.bs, shape.sequential);
  // Azure's credits: a full bucket lasts `minutes` at the burst level, above the tier's target.
  const full = model.kind === 'iops' ? model.bucket : model.kind === 'credits' ? undefined : (model.bucket_mib_per_tib * volume.sizeGiB) / 1024;
  // Azure's credits are what a full bucket spends above the tier's target in its minutes (already scaled).
  const bucket = full === undefined ? (e.burst.level - e.burst.baseline) * e.burst.seconds_from_full : full * (scale ? scale.rate * scale.time : 1);
  return {
    volume: `${volume.type} ${grouped(volume.sizeGiB)} GiB`,
    unit: e.burst.unit,
    level: e.burst.level,
    baseline: e.burst.baseline,
    bucket,
    seconds_from_full: e.burst.seconds_from_full,
    counted_per_io: e.burst.unit === 'IOPS' ? perIo : chargedShare(volume, shape.bs, perIo),
  };
}

/**
 * MiB of throughput credits one MiB of the job's spends: st1/sc1 charge an I/O under 1 MiB that
 * reaches them unmerged (random) as a whole one, so 16 KiB random reads spend 64 times their bytes.
 */
function chargedShare(volume: Volume, bs: number, countedPerIo: number): number {
  const t = volume.catalog;
  if (!t.small_io_charged_whole || countedPerIo < 1) return 1;
  return (countedPerIo * t.io_size_kib * 1024) / bs;
}

type Model = NonNullable<ReturnType<typeof burstModel>>;

/** How long --until-baseline runs at most on this volume (run/until-baseline.ts). */
function untilBaselineSeconds(model: Model): number {
  return untilBaselineRuntimeSec(model.seconds_from_full);
}

function cliffMessage(b: VolbenchBurst, model: Model | null): { message: string; catalog?: VolbenchBurstCatalog } {
  const before = b.level_before!;
  const after = b.level_after!;
  const plain = `cliff at ${seconds(b.cliff_at_s!)}: ${level(before, b.unit)} → ${level(after, b.unit)}, ` +
    `${amount(b.credits!)} ${creditUnit(b.unit)} above the level after`;
  if (!model) return { message: plain };
  const per = model.counted_per_io;
  const credits = Math.round(b.credits! * per);
  const afterCounted = after * per;
  const atBaseline = Math.abs(afterCounted - model.baseline) <= MATCH_TOLERANCE * model.baseline;
  const fullBucket = Math.abs(credits - model.bucket) <= MATCH_TOLERANCE * model.bucket;
  const matches = atBaseline && fullBucket;
  const catalog = { ...model, credits, matches };
  const base = level(model.baseline, model.unit);
  const counted = model.unit === 'IOPS' ? 'credits' : 'MiB of credits';
  if (matches) {
    return { catalog, message: `${model.volume}: bucket empty after ${seconds(b.cliff_at_s!)}, matches ${amount(model.bucket)} ${counted} (${amount(credits)} measured above ${base})` };
  }
  if (atBaseline && credits < model.bucket) {
    return { catalog, message: `${model.volume}: bucket empty after ${seconds(b.cliff_at_s!)} at ${amount(credits)} ${counted}, under a full bucket's ${amount(model.bucket)}: it did not start full` };
  }
  return {
    catalog,
    message: `${model.volume}: ${plain}; the catalog's burst is ${level(model.level, model.unit)} → ${base} with ${amount(model.bucket)} ${counted}: another limit`,
  };
}

function flatMessage(b: VolbenchBurst, model: Model | null, durationS: number): { message: string; catalog?: VolbenchBurstCatalog; neverLeft?: boolean } {
  const at = b.level!;
  if (!model) return { message: `no cliff: ${level(at, b.unit)} throughout` };
  const counted = at * model.counted_per_io;
  const base = level(model.baseline, model.unit);
  if (counted <= ABOVE_BASELINE * model.baseline) {
    return { catalog: { ...model }, message: `${model.volume}: ran at ${level(at, b.unit)}, at or under the baseline (${base}): burst credits did not bind` };
  }
  const needed = Math.ceil(model.bucket / (counted - model.baseline));
  const catalog = { ...model, seconds_needed: needed };
  if (durationS >= needed) {
    return { catalog, neverLeft: true, message: `${model.volume}: stayed above the baseline (${base}) for ${seconds(durationS)}, longer than a full bucket lasts at this rate (${seconds(needed)}): not the catalog's burst model` };
  }
  // --until-baseline runs as long as a full bucket lasts at the burst level: a job well under
  // that level drains it more slowly, and needs a longer run or more I/Os in flight.
  if (needed <= untilBaselineSeconds(model)) {
    return { catalog, neverLeft: true, message: `this measured the burst; baseline is ${base}; run at least ${grouped(needed)} s or pass --until-baseline` };
  }
  return {
    catalog,
    neverLeft: true,
    message: `this measured the burst; baseline is ${base}; run at least ${grouped(needed)} s, or raise the I/Os in flight towards ${level(model.level, model.unit)} to drain it sooner`,
  };
}

/**
 * The rate, in `unit`, the job falls to when the instance's daily EBS burst is spent and its
 * baseline binds; null when the instance does not burst or its baseline is not what binds.
 */
function instanceBaseline(volume: Volume, instance: string | undefined, shape: JobShape, unit: VolbenchBurst['unit'], scale?: VolbenchEmulation): number | null {
  if (!instance || volume.catalog.from_instance || volume.provider !== 'aws') return null;
  const e = scaleEntitlement(entitlement(volume, { bs: shape.bs, sequential: shape.sequential, instance }), scale);
  if (!e.instance_burst) return null;
  return unit === 'IOPS' ? e.instance_burst.iops : e.instance_burst.mibps;
}

/** A cliff down to the instance's EBS baseline: its 30 minutes a day at its maximum ended. */
function instanceCliff(b: VolbenchBurst, instance: string, baseline: number): boolean {
  if (Math.abs(b.level_after! - baseline) > MATCH_TOLERANCE * baseline) return false;
  b.cause = 'instance-burst';
  b.message = `instance-burst: ${instance}'s EBS burst ended after ${seconds(b.cliff_at_s!)}: ${level(b.level_before!, b.unit)} → ${level(b.level_after!, b.unit)}, ` +
    `its baseline (${level(baseline, b.unit)}); it runs at its maximum 30 minutes a day, not the volume's bucket`;
  return true;
}

/** What the analysis of one job knows beside its volume: its rw as fio merged it, and an emulated volume's scale. */
export interface JobBurstContext {
  rw?: string;
  emulation?: VolbenchEmulation;
}

/** The burst analysis of one job, or undefined when its series is too short to say anything. */
export function analyseJobBurst(job: FioJob | undefined, vj: Pick<VolbenchJob, 'series'>, volume?: Volume, instance?: string, ctx: JobBurstContext = {}): VolbenchBurst | undefined {
  const shape = jobShape(job, ctx.rw);
  const model = volume ? burstModel(volume, shape, ctx.emulation) : null;
  const unit: VolbenchBurst['unit'] = model?.unit ?? 'IOPS';
  const points = ratePoints(vj.series, unit);
  if (points.every((p) => p.rate === 0)) return undefined;
  // Without the catalog a short series says nothing; with a bursting volume even a few seconds
  // say the run measured its burst.
  if (points.length < (model ? 1 : MIN_CLIFF_POINTS)) return undefined;
  const cliff = points.length >= MIN_CLIFF_POINTS ? findCliff(points) : null;
  const durationS = points[points.length - 1].endS;
  const b: VolbenchBurst = { points: points.length, unit, cliff: cliff !== null, message: '' };
  if (cliff) {
    b.cliff_at_s = round(cliff.atS);
    b.level_before = round(cliff.before);
    b.level_after = round(cliff.after);
    b.credits = Math.round(cliff.credits);
    const { message, catalog } = cliffMessage(b, model);
    b.message = message;
    if (catalog) b.catalog = catalog;
    if (model) b.never_left_burst = false;
    const instRate = volume ? instanceBaseline(volume, instance, shape, unit, ctx.emulation) : null;
    // A cliff the volume's bucket explains stays the volume's.
    if (instRate !== null && !catalog?.matches) instanceCliff(b, instance!, instRate);
  } else {
    b.level = round(medianRate(points));
    const { message, catalog, neverLeft } = flatMessage(b, model, durationS);
    b.message = message;
    if (catalog) b.catalog = catalog;
    if (model) b.never_left_burst = neverLeft ?? false;
  }
  return b;
}

/**
 * The document with `volbench.jobs[].analysis.burst` set on every job whose series says
 * something (replaced where an earlier analysis set it). Any fio document with volbench's
 * series will do; fio's own (no "volbench" key) is returned as it is.
 */
export function analyseBurst<T extends FioJson>(result: T, options: BurstOptions = {}): T {
  const vb = result.volbench;
  if (!vb || !Array.isArray(vb.jobs)) return result;
  const volume = options.volume ?? volumeOfCloud(vb.cloud);
  const instance = options.instance ?? knownInstance(vb.cloud?.instance_type);
  const fioJobs = Array.isArray(result.jobs) ? result.jobs : [];
  const jobs = vb.jobs.map((vj, i) => {
    if (typeof vj !== 'object' || vj === null) return vj;
    const rw = fioJobs[i] ? mergedOptions(result, i).rw : undefined;
    const burst = analyseJobBurst(fioJobs[i], vj, volume, instance, { ...(rw ? { rw } : {}), ...(vb.cloud?.emulation ? { emulation: vb.cloud.emulation } : {}) });
    const earlier = typeof vj.analysis === 'object' && vj.analysis !== null ? vj.analysis : {};
    const { burst: _old, ...rest } = earlier;
    const analysis = burst ? { ...rest, burst } : rest;
    const { analysis: _prev, ...job } = vj;
    return Object.keys(analysis).length ? { ...job, analysis } : job;
  });
  return { ...result, volbench: { ...vb, jobs } };
}
