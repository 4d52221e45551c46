/**
 * Speed along the volume (drvperf's seqread and seqwrite): the target split into even chunks
 * (100 by default), one large sequential direct I/O probe at the start of each, min / avg / max
 * MB/s with where the slowest and fastest are, and the per-chunk series. With `initialize` each
 * probe is its whole chunk, so every block is read once: the initialisation pass a volume
 * restored from a snapshot needs, reporting its speed along the way.
 *
 * Each probe is a run of the library's own, planned under the caller's rules (roots, block
 * device writes, limits), after the whole pass was planned and checked at once.
 */
import { VolbenchError } from '../errors.js';
import { judged, type Assertion } from '../gates/index.js';
import { parseInteger, parseSize, parseSpec } from '../jobspec/index.js';
import type { JobSpec, ParsedSpec, RawOptionValue } from '../jobspec/types.js';
import { planRun } from '../plan/index.js';
import type { FioResult } from '../fio-output/fio-result.js';
import { runParsed, type RunJobsOptions } from '../run/run-jobs.js';
import { checkNamedTarget, entryFigures, interrupted, mergeRuns, type AnalysisRun } from './document.js';
import { analysisAssertions } from './gates.js';
import type { AnalysisShape } from './sweep.js';
import type { VolbenchUniformity, VolbenchUniformityChunk } from '../fio-output/analysis-sections.js';

export const DEFAULT_CHUNKS = 100;
export const MAX_CHUNKS = 10000;
export const DEFAULT_PROBE = '128m';
export const DEFAULT_UNIFORMITY_BS = '1m';
/** Chunks start on this boundary (a multiple of every logical block size). */
const CHUNK_ALIGN = 4096;

export interface UniformityChunkEvent {
  /** 1-based. */
  chunk: number;
  chunks: number;
  offset: number;
  bytes: number;
  /** Set once the probe has run. */
  mbps?: number;
}

export interface UniformityOptions extends RunJobsOptions {
  /** The file or block device (fio's filename); default: the caller's default target. */
  filename?: string;
  /** The bytes to cover (fio's size): default the target's size; needed for a file not there yet. */
  size?: RawOptionValue;
  chunks?: number;
  /** Bytes read or written at the start of each chunk (default 128m, less when a chunk is smaller). */
  probe?: RawOptionValue;
  /** Write the probes instead of reading them (block devices need the write opt-in). */
  write?: boolean;
  /** Read every chunk whole: every block of the target once. */
  initialize?: boolean;
  bs?: RawOptionValue;
  iodepth?: RawOptionValue;
  ioengine?: string;
  /** fio's allow_block_write, for callers without an allowBlockWrite rule of their own. */
  allow_block_write?: boolean;
  onChunk?: (event: UniformityChunkEvent) => void;
}

export interface UniformityLayout {
  targetBytes: number;
  chunkBytes: number;
  bs: number;
  /** Offset and bytes of each probe. */
  probes: Array<{ offset: number; bytes: number }>;
}

function invalid(field: string, message: string, accepted: string): VolbenchError {
  return new VolbenchError('EINVALID_VALUE', message, { field, accepted });
}

/**
 * Where the probes go: chunks of `targetBytes / chunks` rounded down to 4 KiB, a probe of at most
 * `probe` bytes at the start of each (a whole number of blocks; the block size shrinks to a small
 * chunk); with `initialize`, each chunk whole (whole blocks), the last one taking what the
 * rounding left.
 */
export function uniformityLayout(targetBytes: number, chunks: number, probe: number, bs: number, initialize: boolean): UniformityLayout {
  // Read whole, chunks are whole blocks so that no byte between them is left out.
  const align = initialize && targetBytes / chunks >= bs ? bs : CHUNK_ALIGN;
  const chunkBytes = Math.floor(targetBytes / chunks / align) * align;
  if (chunkBytes === 0) {
    throw invalid('chunks', `${targetBytes} bytes cannot be split into ${chunks} chunks of at least ${CHUNK_ALIGN} bytes`,
      `at most ${Math.floor(targetBytes / CHUNK_ALIGN)} chunks for this target`);
  }
  const blockBytes = Math.min(bs, chunkBytes);
  const probes = Array.from({ length: chunks }, (_, i) => {
    const offset = i * chunkBytes;
    const room = initialize ? (i === chunks - 1 ? targetBytes - offset : chunkBytes) : Math.min(probe, chunkBytes);
    return { offset, bytes: Math.max(blockBytes, Math.floor(room / blockBytes) * blockBytes) };
  });
  return { targetBytes, chunkBytes, bs: blockBytes, probes };
}

function checkChunks(chunks: number): number {
  if (!Number.isInteger(chunks) || chunks < 1 || chunks > MAX_CHUNKS) {
    throw invalid('chunks', `chunks must be a whole number from 1 to ${MAX_CHUNKS}, not ${chunks}`, `1 to ${MAX_CHUNKS}`);
  }
  return chunks;
}

function sizeOf(value: RawOptionValue, field: string): number {
  const bytes = typeof value === 'number' ? value : parseSize(String(value), { field });
  if (!Number.isInteger(bytes) || bytes < CHUNK_ALIGN) {
    throw invalid(field, `${field} must be at least ${CHUNK_ALIGN} bytes, not ${String(value)}`, 'a size such as 128m or 1g');
  }
  return bytes;
}

/** The one job every probe is: sequential direct I/O on the target. */
function probeJob(options: UniformityOptions, name: string): Record<string, RawOptionValue> {
  return {
    name,
    ...(options.filename === undefined ? {} : { filename: options.filename }),
    rw: options.write ? 'write' : 'read',
    direct: 1,
    bs: options.bs ?? DEFAULT_UNIFORMITY_BS,
    ...(options.iodepth === undefined ? {} : { iodepth: options.iodepth }),
    ...(options.ioengine === undefined ? {} : { ioengine: options.ioengine }),
    ...(options.allow_block_write ? { allow_block_write: 1 } : {}),
  };
}

function chunkName(i: number, chunks: number): string {
  return `chunk-${String(i).padStart(String(chunks - 1).length, '0')}`;
}

/** The target's size as the library plans it: the size asked, else the file's or device's. */
async function targetBytes(options: UniformityOptions): Promise<number> {
  const job = probeJob(options, 'uniformity');
  if (options.size !== undefined) return sizeOf(options.size, 'size');
  const plan = await planRun(parseSpec({ jobs: [{ ...job, rw: 'read' }] }), { ...options, assertions: [], limits: undefined });
  plan.release();
  const bytes = plan.jobs[0].instances[0].regionBytes;
  if (bytes < CHUNK_ALIGN) {
    throw new VolbenchError('ETARGET', `${plan.jobs[0].instances[0].path} holds ${bytes} bytes, too few to split`, {
      field: 'filename', accepted: `a file or device of at least ${CHUNK_ALIGN} bytes, or a size`,
    });
  }
  return bytes;
}

function probeSpec(options: UniformityOptions, layout: UniformityLayout, indices: number[]): JobSpec {
  const chunks = layout.probes.length;
  return {
    jobs: indices.map((i) => ({
      ...probeJob(options, chunkName(i, chunks)),
      bs: layout.bs,
      offset: layout.probes[i].offset,
      size: layout.probes[i].bytes,
      // A file given a size is laid out whole by the first probe, not piece by piece.
      ...(options.size === undefined ? {} : { filesize: layout.targetBytes }),
      ...(indices.length > 1 ? { stonewall: 1 } : {}),
    })),
  };
}

/** The uniformity section from each chunk's MB/s. */
export function uniformitySection(
  series: readonly VolbenchUniformityChunk[],
  settings: { rw: 'read' | 'write'; initialize: boolean; layout: UniformityLayout; complete: boolean },
): VolbenchUniformity {
  let min = 0;
  let max = 0;
  series.forEach((c, i) => {
    if (c.mbps < series[min].mbps) min = i;
    if (c.mbps > series[max].mbps) max = i;
  });
  // Weighted by bytes: the pass's own speed when probes differ in size (the last initialize chunk).
  const bytes = series.reduce((s, c) => s + c.bytes, 0);
  const seconds = series.reduce((s, c) => s + (c.mbps > 0 ? c.bytes / (c.mbps * 1e6) : 0), 0);
  const some = series.length > 0;
  // Within [min, max] however the division rounds.
  const avg = some && seconds > 0 ? Math.min(series[max].mbps, Math.max(series[min].mbps, bytes / seconds / 1e6)) : 0;
  return {
    rw: settings.rw,
    initialize: settings.initialize,
    target_bytes: settings.layout.targetBytes,
    chunk_bytes: settings.layout.chunkBytes,
    probe_bytes: settings.layout.probes[0]?.bytes ?? 0,
    min_mbps: some ? series[min].mbps : 0,
    avg_mbps: avg,
    max_mbps: some ? series[max].mbps : 0,
    min_offset: some ? series[min].offset : 0,
    max_offset: some ? series[max].offset : 0,
    spread: some && series[min].mbps > 0 ? series[max].mbps / series[min].mbps : 0,
    complete: settings.complete,
    series: [...series],
  };
}

/**
 * Runs a uniformity pass and resolves to one fio document, an entry per chunk, with
 * `volbench.uniformity`. Bad input rejects with a VolbenchError before any I/O; a cancelled
 * pass resolves with the chunks it ran (complete: false).
 */
export async function runUniformity(options: UniformityOptions = {}): Promise<FioResult> {
  if (options.signal?.aborted) throw new VolbenchError('ECANCELLED', 'the uniformity pass was cancelled before it started');
  return runPreparedUniformity(await prepareUniformity(options), options);
}

export interface PreparedUniformity {
  layout: UniformityLayout;
  assertions: Assertion[];
  shape: AnalysisShape;
}

/**
 * Every check before any I/O: the settings, the target (its size found by planning it), the
 * assertions, and the whole pass planned at once under the caller's rules (targets, writes,
 * sizes, runtime over every probe). Each probe runs on its own, so the instance limit applies
 * to one probe.
 */
export async function prepareUniformity(options: UniformityOptions = {}): Promise<PreparedUniformity> {
  checkNamedTarget(options, 'uniformity');
  const chunks = checkChunks(options.chunks ?? DEFAULT_CHUNKS);
  const probe = sizeOf(options.probe ?? DEFAULT_PROBE, 'probe');
  const bs = sizeOf(options.bs ?? DEFAULT_UNIFORMITY_BS, 'bs');
  if (options.iodepth !== undefined) parseInteger(String(options.iodepth), { field: 'iodepth' });
  if (options.initialize && options.write) {
    throw invalid('initialize', 'initialize reads every block; it cannot be combined with write', 'initialize or write, not both');
  }
  const layout = uniformityLayout(await targetBytes(options), chunks, probe, bs, options.initialize ?? false);
  const all = layout.probes.map((_, i) => i);
  const whole: ParsedSpec = parseSpec(probeSpec(options, layout, all));
  const assertions = analysisAssertions('uniformity', options.assertions, whole);
  const limits = options.limits && { ...options.limits, maxInstances: undefined };
  (await planRun(whole, { ...options, assertions: [], limits })).release();
  return { layout, assertions, shape: { spec: probeSpec(options, layout, [0]), runs: chunks } };
}

/** Runs a pass prepareUniformity checked (with the same options). */
export async function runPreparedUniformity(prepared: PreparedUniformity, options: UniformityOptions = {}): Promise<FioResult> {
  if (options.signal?.aborted) throw new VolbenchError('ECANCELLED', 'the uniformity pass was cancelled before it started');
  const { layout, assertions } = prepared;
  const chunks = layout.probes.length;
  const all = layout.probes.map((_, i) => i);
  const perChunk: RunJobsOptions = { ...options, assertions: [], repeats: chunks };
  const runs: AnalysisRun[] = [];
  const series: VolbenchUniformityChunk[] = [];
  let complete = true;
  for (const i of all) {
    const { offset, bytes } = layout.probes[i];
    options.onChunk?.({ chunk: i + 1, chunks, offset, bytes });
    const started = Date.now();
    const result = await runParsed(parseSpec(probeSpec(options, layout, [i])), perChunk);
    runs.push({ result, durationMs: Date.now() - started });
    if (interrupted(result) || result.jobs.some((j) => j.error !== 0)) {
      complete = false;
      break;
    }
    // From the engine's nanosecond runtime: fio's whole milliseconds quantise a 30 ms probe by 3%.
    const ns = result.volbench.jobs[0]?.runtime_ns ?? 0;
    const job = result.jobs[0];
    const moved = (job.read?.io_bytes ?? 0) + (job.write?.io_bytes ?? 0);
    const mbps = ns > 0 ? (moved * 1e3) / ns : entryFigures(job).bw_bytes / 1e6;
    series.push({ index: i, offset, bytes, mbps, job: result.jobs[0].jobname });
    options.onChunk?.({ chunk: i + 1, chunks, offset, bytes, mbps });
  }
  const merged = mergeRuns(runs);
  const uniformity = uniformitySection(series, { rw: options.write ? 'write' : 'read', initialize: options.initialize ?? false, layout, complete });
  return judged({ ...merged, volbench: { ...merged.volbench, uniformity } }, assertions);
}
