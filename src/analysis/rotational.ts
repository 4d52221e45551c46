/**
 * Seek and rotation of a spinning disk (drvperf's fullstroke and tracktotrack): many single
 * direct reads, one at a time, each its own job so that its latency is one sample. Long jumps
 * alternate between the first and the last 1% of the target (full strokes); short jumps land at
 * random in a 1 MiB window in its middle (the shortest seeks). rotational-stats.ts turns the
 * samples into revolution time, RPM, seek times.
 *
 * Runs only where the target says it is rotational, or with `force`. The reads go through the
 * library's own runs, a batch of jobs (one stage each) per run, under the caller's rules.
 */
import { VolbenchError } from '../errors.js';
import { judged, type Assertion } from '../gates/index.js';
import { parseSpec } from '../jobspec/index.js';
import type { JobSpec, RawOptionValue } from '../jobspec/types.js';
import { planRun } from '../plan/index.js';
import type { FioResult } from '../fio-output/fio-result.js';
import { runParsed, type RunJobsOptions } from '../run/run-jobs.js';
import { identifyTarget } from '../device/index.js';
import { checkNamedTarget, interrupted, mergeRuns, type AnalysisRun } from './document.js';
import { analysisAssertions } from './gates.js';
import { estimateRotation } from '../findings/rotational-stats.js';
import type { AnalysisShape } from './sweep.js';
import type { VolbenchRotational } from '../fio-output/analysis-sections.js';

export const DEFAULT_ROTATIONAL_SAMPLES = 100;
const MAX_SAMPLES = 10000;
/** Jobs per run: each job is one read in a stage of its own. */
const BATCH = 32;
const READ_BYTES = 4096;
const SHORT_WINDOW = 1024 * 1024;
/** Spindle speeds of disks made: 3,600 (old laptop drives) to 15,000 RPM, with room. */
const PLAUSIBLE_RPM = [3000, 20000] as const;

export interface RotationalBatchEvent {
  /** Samples taken so far and in all. */
  done: number;
  total: number;
}

export interface RotationalOptions extends RunJobsOptions {
  /** The file or block device (fio's filename); default: the caller's default target. */
  filename?: string;
  /** Run even where the target does not say it is rotational. */
  force?: boolean;
  /** Long jumps and short jumps to time (default 100 each). */
  longSamples?: number;
  shortSamples?: number;
  ioengine?: string;
  /** Seed of the jump offsets (default 1): the same seed makes the same jumps. */
  seed?: number;
  onBatch?: (event: RotationalBatchEvent) => void;
}

function checkCount(n: number, field: string): number {
  if (!Number.isInteger(n) || n < 8 || n > MAX_SAMPLES) {
    throw new VolbenchError('EINVALID_VALUE', `${field} must be a whole number from 8 to ${MAX_SAMPLES}, not ${n}`, {
      field, accepted: `8 to ${MAX_SAMPLES}`,
    });
  }
  return n;
}

/** A small deterministic generator (mulberry32): offsets must not depend on Math.random. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The offsets of the jumps: long ones alternating between the ends, then short ones. */
export function jumpOffsets(targetBytes: number, longs: number, shorts: number, seed = 1): Array<{ kind: 'long' | 'short'; offset: number }> {
  const blocks = Math.floor(targetBytes / READ_BYTES);
  const zone = Math.max(1, Math.floor(blocks / 100));
  const window = Math.max(1, Math.min(blocks, SHORT_WINDOW / READ_BYTES));
  const middle = Math.max(0, Math.floor(blocks / 2) - Math.floor(window / 2));
  const random = generator(seed);
  const pick = (first: number, count: number) => (first + Math.floor(random() * count)) * READ_BYTES;
  const out: Array<{ kind: 'long' | 'short'; offset: number }> = [];
  for (let i = 0; i < longs; i++) out.push({ kind: 'long', offset: i % 2 === 0 ? pick(0, zone) : pick(blocks - zone, zone) });
  for (let i = 0; i < shorts; i++) out.push({ kind: 'short', offset: pick(middle, window) });
  return out;
}

/** One read at `offset` in a stage of its own; without an offset, the whole target (to plan it). */
function readJob(options: RotationalOptions, name: string, offset: number | null): Record<string, RawOptionValue> {
  return {
    name,
    ...(options.filename === undefined ? {} : { filename: options.filename }),
    rw: 'read',
    direct: 1,
    bs: READ_BYTES,
    iodepth: 1,
    ...(offset === null ? {} : { offset, size: READ_BYTES, stonewall: 1 }),
    ...(options.ioengine === undefined ? {} : { ioengine: options.ioengine }),
  };
}

/** The target as the library plans it: its path, size and whether it says it is rotational. */
async function inspect(options: RotationalOptions): Promise<{ path: string; bytes: number; rotational: boolean | null }> {
  const spec: JobSpec = { jobs: [readJob(options, 'rotational', null)] };
  const plan = await planRun(parseSpec(spec), { ...options, assertions: [], limits: undefined });
  plan.release();
  const instance = plan.jobs[0].instances[0];
  const identity = await identifyTarget(instance.path);
  return { path: instance.path, bytes: instance.regionBytes, rotational: identity.rotational };
}

/**
 * Times the jumps and resolves to one fio document, an entry per read, with
 * `volbench.rotational`. Refused before any I/O (EINVALID_PLAN) on a target that does not say it
 * is rotational, unless `force`.
 */
export async function runRotational(options: RotationalOptions = {}): Promise<FioResult> {
  if (options.signal?.aborted) throw new VolbenchError('ECANCELLED', 'the rotational analysis was cancelled before it started');
  return runPreparedRotational(await prepareRotational(options), options);
}

export interface PreparedRotational {
  rotational: boolean | null;
  jumps: Array<{ kind: 'long' | 'short'; offset: number }>;
  /** Reads per run. */
  batch: number;
  assertions: Assertion[];
  shape: AnalysisShape;
}

/** Every check before any I/O: settings, the target (rotational, or force), assertions, all reads planned. */
export async function prepareRotational(options: RotationalOptions = {}): Promise<PreparedRotational> {
  checkNamedTarget(options, 'rotational');
  const longs = checkCount(options.longSamples ?? DEFAULT_ROTATIONAL_SAMPLES, 'long_samples');
  const shorts = checkCount(options.shortSamples ?? DEFAULT_ROTATIONAL_SAMPLES, 'short_samples');
  const target = await inspect(options);
  if (target.rotational !== true && !options.force) {
    const says = target.rotational === false ? 'says it is not rotational (queue/rotational is 0)' : 'does not say whether it is rotational';
    throw new VolbenchError('EINVALID_PLAN', `${target.path} ${says}; seek and rotation are measured on spinning disks`, {
      field: 'force', accepted: 'a rotational target, or force (--force) to measure anyway',
    });
  }
  if (target.bytes < 200 * READ_BYTES) {
    throw new VolbenchError('ETARGET', `${target.path} holds ${target.bytes} bytes, too few to jump across`, {
      field: 'filename', accepted: `a target of at least ${200 * READ_BYTES} bytes`,
    });
  }
  const jumps = jumpOffsets(target.bytes, longs, shorts, options.seed ?? 1);
  const whole = parseSpec(readSpec(options, jumps, jumps.map((_, i) => i)));
  const assertions = analysisAssertions('rotational', options.assertions, whole);
  const limits = options.limits && { ...options.limits, maxInstances: undefined };
  (await planRun(whole, { ...options, assertions: [], limits })).release();
  const batch = Math.max(1, Math.min(BATCH, options.limits?.maxInstances ?? BATCH));
  const first = jumps.slice(0, batch).map((_, i) => i);
  return {
    rotational: target.rotational, jumps, batch, assertions,
    shape: { spec: readSpec(options, jumps, first), runs: Math.ceil(jumps.length / batch) },
  };
}

/** The reads `indices` of `jumps`, a job each, one after another. */
function readSpec(options: RotationalOptions, jumps: PreparedRotational['jumps'], indices: number[]): JobSpec {
  const width = String(jumps.length - 1).length;
  return { jobs: indices.map((i) => readJob(options, `${jumps[i].kind}-${String(i).padStart(width, '0')}`, jumps[i].offset)) };
}

/** Runs the reads prepareRotational checked (with the same options). */
export async function runPreparedRotational(prepared: PreparedRotational, options: RotationalOptions = {}): Promise<FioResult> {
  if (options.signal?.aborted) throw new VolbenchError('ECANCELLED', 'the rotational analysis was cancelled before it started');
  const { jumps, batch, assertions } = prepared;
  const all = jumps.map((_, i) => i);
  const perBatch: RunJobsOptions = { ...options, assertions: [], repeats: Math.ceil(jumps.length / batch) };
  const runs: AnalysisRun[] = [];
  const samples = { long: [] as number[], short: [] as number[] };
  for (let at = 0; at < jumps.length; at += batch) {
    const indices = all.slice(at, at + batch);
    const started = Date.now();
    const result = await runParsed(parseSpec(readSpec(options, jumps, indices)), perBatch);
    runs.push({ result, durationMs: Date.now() - started });
    result.jobs.forEach((job, k) => {
      const lat = job.read?.clat_ns;
      if (job.error === 0 && lat && lat.N > 0) samples[jumps[indices[k]].kind].push(lat.mean);
    });
    options.onBatch?.({ done: Math.min(jumps.length, at + batch), total: jumps.length });
    if (interrupted(result)) break;
  }
  const estimate = estimateRotation(samples.long, samples.short);
  const rotational: VolbenchRotational = {
    rotational: prepared.rotational,
    forced: prepared.rotational !== true,
    long_samples: samples.long.length,
    short_samples: samples.short.length,
    long_outliers: estimate.longOutliers,
    short_outliers: estimate.shortOutliers,
    revolution_ns: estimate.revolutionNs,
    rpm: estimate.rpm,
    plausible: estimate.rpm !== null && estimate.rpm >= PLAUSIBLE_RPM[0] && estimate.rpm <= PLAUSIBLE_RPM[1],
    full_stroke_seek_ns: estimate.fullStrokeSeekNs,
    track_to_track_ns: estimate.trackToTrackNs,
    long_median_ns: estimate.longMedianNs,
    short_median_ns: estimate.shortMedianNs,
  };
  const merged = mergeRuns(runs);
  return judged({ ...merged, volbench: { ...merged.volbench, rotational } }, assertions);
}
