/**
 * The best queue depth (drvperf's cncread and cncwrite): one job template run at iodepth 1, 2,
 * 4, ... up to maxDepth (or over numjobs), each point a run of the library's own (planRun and
 * runParsed), so every rule of the caller (roots, block device writes, limits) applies to each.
 * The sweep stops early once IOPS grow less than 5% over two doublings, or once p99 passes
 * maxP99Ns. The optimum is the point with the best score (optimum.ts). The runs fold into one
 * fio document, an entry per point, with the curve and the optimum under `volbench.sweep`.
 */
import { VolbenchError } from '../errors.js';
import { judged, type Assertion } from '../gates/index.js';
import { parseSpec } from '../jobspec/index.js';
import type { JobSpec, ParsedSpec, RawOptionValue } from '../jobspec/types.js';
import { effectiveSpec, HeldTargets, planRun } from '../plan/index.js';
import { instancePath } from '../plan/targets.js';
import type { FioResult } from '../fio-output/fio-result.js';
import { runParsed, type RunJobsOptions } from '../run/run-jobs.js';
import { leftInPlaceNotes, removeFiles } from '../device/remove-files.js';
import { RunFiles, withNotes } from '../run/run-files.js';
import { engineSpec } from '../engine/engines.js';
import { entryFigures, interrupted, mergeRuns, type AnalysisRun } from './document.js';
import { analysisAssertions } from './gates.js';
import { DEFAULT_ALPHA, optimumIndex, scorePoints } from '../findings/optimum.js';
import type { SweepStop, VolbenchSweep, VolbenchSweepPoint } from '../fio-output/analysis-sections.js';

export const DEFAULT_MAX_DEPTH = 256;
/** IOPS must grow by this much over two doublings for the sweep to go on. */
export const FLAT_GROWTH = 0.05;
/** A template without a runtime runs this long at each point, time based. */
export const DEFAULT_POINT_RUNTIME = '5s';

export type SweepOver = 'iodepth' | 'numjobs';

export interface SweepPointEvent {
  /** 1-based index of the point and the most points the sweep may run. */
  point: number;
  points: number;
  over: SweepOver;
  value: number;
  job: string;
  /** Set once the point has run. */
  figures?: VolbenchSweepPoint;
}

export interface SweepOptions extends RunJobsOptions {
  over?: SweepOver;
  /** Highest iodepth (or numjobs) tried: 1, 2, 4, ... up to it. Default 256. */
  maxDepth?: number;
  /** Weight of throughput in the score, 0..1 (default 0.8). */
  alpha?: number;
  /** Stop once a point's p99 completion latency passes this, in ns. */
  maxP99Ns?: number;
  /** Called as each point starts and again once it has run (with its figures). */
  onPoint?: (event: SweepPointEvent) => void;
}

const DEPTH_ACCEPTED = 'a whole number from 1 to 65535 (iodepth) or 4096 (numjobs)';

/** What a sweep doubles when it is not told. */
export const DEFAULT_SWEEP_OVER: SweepOver = 'iodepth';

/** 1, 2, 4, ... up to max (the powers of two not above it). */
export function sweepValues(max: number): number[] {
  const values: number[] = [];
  for (let v = 1; v <= max; v *= 2) values.push(v);
  return values;
}

function checkOptions(options: SweepOptions): { over: SweepOver; maxDepth: number; alpha: number; maxP99Ns: number | null } {
  const over = options.over ?? DEFAULT_SWEEP_OVER;
  if (over !== 'iodepth' && over !== 'numjobs') {
    throw new VolbenchError('EINVALID_VALUE', `a sweep goes over iodepth or numjobs, not '${String(over)}'`, { field: 'over', accepted: 'iodepth, numjobs' });
  }
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const cap = over === 'iodepth' ? 65535 : 4096;
  if (!Number.isInteger(maxDepth) || maxDepth < 1 || maxDepth > cap) {
    throw new VolbenchError('EINVALID_VALUE', `max depth must be a whole number from 1 to ${cap}, not ${maxDepth}`, { field: 'max_depth', accepted: DEPTH_ACCEPTED });
  }
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  if (!(typeof alpha === 'number' && alpha >= 0 && alpha <= 1)) {
    throw new VolbenchError('EINVALID_VALUE', `alpha must be a number from 0 to 1, not ${alpha}`, { field: 'alpha', accepted: '0 to 1, e.g. 0.8' });
  }
  const maxP99Ns = options.maxP99Ns ?? null;
  if (maxP99Ns !== null && !(Number.isFinite(maxP99Ns) && maxP99Ns > 0)) {
    throw new VolbenchError('EINVALID_VALUE', `max p99 must be a positive time, not ${maxP99Ns}`, { field: 'max_p99', accepted: 'a time above 0, e.g. 5ms' });
  }
  return { over, maxDepth, alpha, maxP99Ns };
}

/** Where the spec sets an option, raw: the one job's section, else [global]. */
function rawOption(spec: JobSpec, name: string): RawOptionValue | undefined {
  return spec.jobs[0]?.[name] ?? spec.global?.[name];
}

/** The template: one job, without the option the sweep sets. */
function checkTemplate(spec: JobSpec, over: SweepOver): ParsedSpec {
  const parsed = parseSpec(spec);
  if (parsed.jobs.length !== 1) {
    throw new VolbenchError('EINVALID_SPEC', `a sweep runs one job template, not ${parsed.jobs.length} jobs`, { field: 'jobs', accepted: 'exactly one job' });
  }
  const set = parsed.jobs[0].fields?.[over];
  if (set !== undefined) {
    throw new VolbenchError('EINVALID_SPEC', `the sweep sets ${over} itself (1, 2, 4, ...); remove ${over} from the template`, {
      field: set,
      accepted: `a job without ${over}`,
    });
  }
  return parsed;
}

/** The name of a point's entry: rr-qd32, rr-nj4. */
export function pointName(name: string, over: SweepOver, value: number): string {
  return `${name}-${over === 'iodepth' ? 'qd' : 'nj'}${value}`;
}

/**
 * The template at one point. The job keeps its name while it runs, so that every point uses the
 * same file(s) (a file's default name is the job's); its entry is renamed afterwards. Files are
 * kept between points (unlink waits for the sweep's end); numjobs points report one entry.
 */
export function pointSpec(spec: JobSpec, over: SweepOver, value: number): JobSpec {
  const job: Record<string, RawOptionValue> = { ...spec.jobs[0], [over]: value, unlink: 0 };
  if (over === 'numjobs') job.group_reporting = 1;
  if (rawOption(spec, 'runtime') === undefined && rawOption(spec, 'time_based') === undefined) {
    job.runtime = DEFAULT_POINT_RUNTIME;
    job.time_based = 1;
  }
  return { ...(spec.global ? { global: spec.global } : {}), jobs: [job] };
}

function renamed(result: FioResult, name: string): FioResult {
  return {
    ...result,
    jobs: result.jobs.map((j) => ({ ...j, jobname: name })),
    volbench: { ...result.volbench, jobs: result.volbench.jobs.map((j) => ({ ...j, jobname: name })) },
  };
}

/** Why the sweep stops after these points, or null to go on. */
export function stopReason(points: readonly VolbenchSweepPoint[], maxP99Ns: number | null): SweepStop | null {
  const last = points[points.length - 1];
  if (maxP99Ns !== null && last.clat_p99_ns > maxP99Ns) return 'max_p99';
  if (points.length >= 3 && last.iops < points[points.length - 3].iops * (1 + FLAT_GROWTH)) return 'flat';
  return null;
}

/** The sweep section from the points' raw figures: their scores and the optimum. */
export function sweepSection(
  raw: ReadonlyArray<Omit<VolbenchSweepPoint, 'throughput_norm' | 'latency_norm' | 'score'>>,
  settings: { over: SweepOver; alpha: number; maxDepth: number; maxP99Ns: number | null; stopped: SweepStop },
): VolbenchSweep {
  const scores = scorePoints(raw.map((p) => ({ iops: p.iops, latencyNs: p.clat_mean_ns })), settings.alpha);
  const points = raw.map((p, i) => ({
    ...p, throughput_norm: scores[i].throughput, latency_norm: scores[i].latency, score: scores[i].score,
  }));
  const best = optimumIndex(scores);
  const first = points[0];
  return {
    over: settings.over,
    alpha: settings.alpha,
    max_depth: settings.maxDepth,
    max_p99_ns: settings.maxP99Ns,
    stopped: settings.stopped,
    max_iops: Math.max(0, ...points.map((p) => p.iops)),
    points,
    optimum: best < 0 ? null : { ...points[best], speedup: first && first.iops > 0 ? points[best].iops / first.iops : 0 },
  };
}

/** What one run of an analysis looks like at its largest, for a caller that admits runs (a service's queue). */
export interface AnalysisShape {
  /** The largest single run the analysis makes. */
  spec: JobSpec;
  /** How many runs it makes at most. */
  runs: number;
}

export interface PreparedSweep {
  settings: ReturnType<typeof checkOptions>;
  template: ParsedSpec;
  values: number[];
  name: string;
  assertions: Assertion[];
  shape: AnalysisShape;
}

/**
 * Checks everything a sweep needs before any I/O (template, settings, assertions, and the
 * deepest point planned under the caller's rules, its runtime limit over every point).
 */
export async function prepareSweep(spec: JobSpec, options: SweepOptions = {}): Promise<PreparedSweep> {
  const settings = checkOptions(options);
  const template = checkTemplate(spec, settings.over);
  const values = sweepValues(settings.maxDepth);
  const name = template.jobs[0].options.name;
  const entries: ParsedSpec = {
    jobs: values.map((v) => {
      const parsed = parseSpec(pointSpec(spec, settings.over, v)).jobs[0];
      return { ...parsed, options: { ...parsed.options, name: pointName(name, settings.over, v) } };
    }),
  };
  const assertions = analysisAssertions('sweep', options.assertions, entries);
  const deepest = parseSpec(pointSpec(spec, settings.over, values[values.length - 1]));
  const plan = await planRun(deepest, { ...options, assertions: [], repeats: values.length });
  plan.release();
  return { settings, template, values, name, assertions, shape: { spec: pointSpec(spec, settings.over, values[values.length - 1]), runs: values.length } };
}

/**
 * Runs a sweep of `spec` (one job, fio's option names) and resolves to one fio document with
 * `volbench.sweep`. Bad input rejects with a VolbenchError before any I/O; a cancelled sweep
 * resolves with the points it ran (the last one cut short), stopped: 'cancelled'.
 */
export async function runSweep(spec: JobSpec, options: SweepOptions = {}): Promise<FioResult> {
  if (options.signal?.aborted) throw new VolbenchError('ECANCELLED', 'the sweep was cancelled before it started');
  return runPreparedSweep(spec, await prepareSweep(spec, options), options);
}

/** Runs a sweep prepareSweep checked (with the same spec and options). */
export async function runPreparedSweep(spec: JobSpec, prepared: PreparedSweep, options: SweepOptions = {}): Promise<FioResult> {
  if (options.signal?.aborted) throw new VolbenchError('ECANCELLED', 'the sweep was cancelled before it started');
  const { settings, template, values, name, assertions } = prepared;
  // The points share the files, recorded as they are made: the sweep's unlink removes those.
  const files = options.files ?? new RunFiles();
  // Each point is planned beneath the directories the first one used, against the files it laid out.
  const held = options.held ?? new HeldTargets();
  const perPoint: RunJobsOptions = { ...options, assertions: [], repeats: values.length, files, held };
  const runs: AnalysisRun[] = [];
  const raw: Array<Omit<VolbenchSweepPoint, 'throughput_norm' | 'latency_norm' | 'score'>> = [];
  let stopped: SweepStop = 'max_depth';
  let widest = 1;
  let left: string[] = [];
  try {
    for (const [i, value] of values.entries()) {
      const job = pointName(name, settings.over, value);
      const event = { point: i + 1, points: values.length, over: settings.over, value, job };
      options.onPoint?.(event);
      const started = Date.now();
      const result = renamed(await runParsed(parseSpec(pointSpec(spec, settings.over, value)), perPoint), job);
      runs.push({ result, durationMs: Date.now() - started });
      if (settings.over === 'numjobs') widest = value;
      if (interrupted(result)) {
        stopped = 'cancelled';
        break;
      }
      if (result.jobs.some((j) => j.error !== 0)) {
        stopped = 'error';
        break;
      }
      const figures = entryFigures(result.jobs[0]);
      const point = {
        value,
        iodepth: settings.over === 'iodepth' ? value : template.jobs[0].options.iodepth,
        numjobs: settings.over === 'numjobs' ? value : template.jobs[0].options.numjobs,
        job,
        iops: figures.iops,
        bw_bytes: figures.bw_bytes,
        clat_mean_ns: figures.clat_mean_ns,
        clat_p50_ns: figures.clat_p50_ns,
        clat_p99_ns: figures.clat_p99_ns,
        clat_p999_ns: figures.clat_p999_ns,
      };
      raw.push(point);
      options.onPoint?.({ ...event, figures: { ...point, throughput_norm: 0, latency_norm: 0, score: 0 } });
      const why = stopReason(raw as VolbenchSweepPoint[], settings.maxP99Ns);
      if (why !== null) {
        stopped = why;
        break;
      }
    }
  } finally {
    try {
      left = await unlinkAtEnd(template, settings.over === 'numjobs' ? widest : template.jobs[0].options.numjobs, { ...options, files });
    } finally {
      if (options.held === undefined) held.release();
    }
  }
  const merged = withNotes(mergeRuns(runs), left);
  const sweep = sweepSection(raw, { ...settings, stopped });
  return judged({ ...merged, volbench: { ...merged.volbench, sweep } }, assertions);
}

/**
 * The template's unlink, done once the sweep ends (its points kept the files for each other);
 * resolves with notes naming what it left in place.
 */
async function unlinkAtEnd(template: ParsedSpec, instances: number, options: SweepOptions & { files: RunFiles }): Promise<string[]> {
  const o = effectiveSpec(template, options).jobs[0].options;
  if (!o.unlink || !engineSpec(o.ioengine).touchesTarget) return [];
  const cwd = options.cwd ?? process.cwd();
  const paths = new Set(Array.from({ length: instances }, (_, i) => instancePath(o, i, cwd)));
  return leftInPlaceNotes(await removeFiles(options.files.of(paths), options.roots));
}
