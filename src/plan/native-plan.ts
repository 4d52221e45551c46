/**
 * Turns one job's parsed options and its resolved target into the numbers the native engine
 * takes, one plan per instance (numjobs).
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';

import { engineSpec } from '../engine/engines.js';
import type { NativeEngineName, NativeExpect, NativeJobPlan, NativePathRef } from '../engine/native-types.js';
import { directionsUsed } from '../jobspec/directions.js';
import type { JobOptions } from '../jobspec/types.js';
import { blockSizes, bsRanges, isRandom, maxBlockSize, SEGMENT_BOUND_BS } from './block-sizes.js';
import { engineChoices } from './engine-options.js';
import { fioSeeds } from './fio-seeds.js';
import { keepsFioMap, randomMapBytes, randomMapFor } from './random-map.js';

export { blockSizes, isRandom, maxBlockSize, SEGMENT_BOUND_BS } from './block-sizes.js';

export interface InstanceTarget {
  path: string;
  /** The root (or directory) it is opened beneath: where its stuck I/O is counted. */
  anchor: string;
  /** How the engine opens it, and what it must find there. */
  ref: NativePathRef;
  /** The name unlink=1 removes (the target as named, a symlink not followed), or null. */
  unlinkRef: NativePathRef | null;
  expect: NativeExpect;
  isBlockDevice: boolean;
  regionOffset: number;
  regionBytes: number;
  /** File length to lay out before I/O (0 for block devices). */
  layoutBytes: number;
  /** The file's length when planned (0 when it does not exist yet). */
  existingBytes: number;
  /** Allow writing: block devices need allow_block_write and must not be in use. */
  exclusive: boolean;
  /** A file on tmpfs or ramfs: memory is its storage, and direct I/O is a copy from the page cache. */
  inMemoryFs: boolean;
}

/** How the engine opens a log, and what it must find there (or create, when nothing was). */
export interface LogTarget {
  ref: NativePathRef;
  expect: NativeExpect;
}

export interface LogPaths {
  bw: string;
  iops: string;
  lat: string;
  clat: string;
  slat: string;
}

/** How the engine opens each log and what it must find (null: not written). */
export type LogTargets = { [K in keyof LogPaths]: LogTarget | null };

/** The logs in the engine's order (native LogKind). */
const LOG_KINDS = ['bw', 'iops', 'lat', 'clat', 'slat'] as const;
const NEW_FILE: NativeExpect = { kind: 'new', dev: 0n, ino: 0n, rdev: 0n };

export function readPercent(o: JobOptions): number {
  const [read, write] = directionsUsed(o);
  if (read && write) return o.rwmixread;
  return read ? 100 : 0;
}

function distribution(o: JobOptions): { distribution: number; distributionParam: number; zones: NativeJobPlan['zones'] } {
  const d = o.random_distribution;
  const none: NativeJobPlan['zones'] = [[], [], []];
  return { ...distributionKind(d), zones: d.kind === 'zoned' ? d.zones.map((zs) => zs.map((z) => ({ ...z }))) as NativeJobPlan['zones'] : none };
}

function distributionKind(d: JobOptions['random_distribution']): { distribution: number; distributionParam: number } {
  switch (d.kind) {
    case 'zipf':
      return { distribution: 1, distributionParam: d.theta };
    case 'pareto':
      return { distribution: 2, distributionParam: d.h };
    case 'normal':
      return { distribution: 3, distributionParam: d.sigmaPct };
    case 'zoned':
      return { distribution: 4, distributionParam: 0 };
    default:
      return { distribution: 0, distributionParam: 0 };
  }
}

/** fio uses a given randseed whatever randrepeat says; without one, randrepeat=0 draws a seed. */
function seedFor(o: JobOptions, randseedGiven: boolean): bigint {
  if (o.randrepeat || randseedGiven) return o.randseed;
  return randomBytes(8).readBigUInt64LE();
}

/**
 * The CPUs an instance may run on: all of cpus_allowed, or with cpus_allowed_policy=split one of
 * them, as fio picks it (its thread's number in the run, counted from 0, modulo the CPUs).
 */
export function instanceCpus(o: JobOptions, ordinal: number): number[] {
  const cpus = o.cpus_allowed;
  if (cpus.length === 0 || o.cpus_allowed_policy === 'shared') return [...cpus];
  return [cpus[ordinal % cpus.length]];
}

/**
 * The advice fadvise_hint gives the kernel, as fio's: by default the job's own pattern, so that
 * a buffered random job gets no readahead (without it the kernel read 4.2–5.2 KiB per 4k
 * request and served a growing share from the cache). The null engine opens nothing to advise.
 */
function fadviseAdvice(o: JobOptions): NativeJobPlan['fadvise'] {
  if (o.fadvise_hint === 'none' || !engineSpec(o.ioengine).touchesTarget) return 'none';
  if (o.fadvise_hint === 'pattern') return isRandom(o.rw) ? 'random' : 'sequential';
  return o.fadvise_hint;
}

/** An instance's files: its target first, and the bytes a loop issues over them all. */
export interface InstanceFiles {
  files: InstanceTarget[];
  ioBytesPerLoop: number;
}

export function nativePlan(
  o: JobOptions,
  instance: number,
  ordinal: number,
  targets: InstanceFiles,
  engines: NativeEngineName[],
  logs: LogPaths,
  logTargets: LogTargets,
  forbidden: bigint[],
  randseedGiven = false,
): NativeJobPlan {
  const target = targets.files[0];
  return {
    jobName: o.name,
    instance,
    cpus: instanceCpus(o, ordinal),
    engines: engineChoices(engines, o, target.inMemoryFs),
    memoryBytes: instanceMemoryBytes(o),
    forbidden,
    ...targetPart(o, target),
    ...extentPart(o, target, targets.ioBytesPerLoop),
    ...filesPart(o, ordinal, targets.files.slice(1), randseedGiven),
    ...patternPart(o, ordinal, randseedGiven),
    ...dataPart(o),
    ...statsPart(o),
    ...logsPart(o, logs, logTargets),
  };
}

type Part<K extends keyof NativeJobPlan> = Pick<NativeJobPlan, K>;

/** What the job opens, how, and what becomes of it. */
function targetPart(o: JobOptions, target: InstanceTarget): Part<
  | 'path' | 'anchor' | 'target' | 'unlinkTarget' | 'expect' | 'isBlockDevice' | 'direct' | 'osync' | 'needsWrite'
  | 'exclusive' | 'layoutBytes' | 'layoutFill' | 'fallocate' | 'invalidate' | 'fadvise' | 'unlinkAfter'
> {
  const used = directionsUsed(o);
  return {
    path: target.path,
    anchor: target.anchor,
    target: target.ref,
    unlinkTarget: o.unlink && !target.isBlockDevice ? target.unlinkRef : null,
    expect: target.expect,
    isBlockDevice: target.isBlockDevice,
    direct: o.direct,
    osync: o.sync,
    needsWrite: used[1] || used[2],
    exclusive: target.exclusive,
    layoutBytes: target.layoutBytes,
    // A job that reads finds data there: its file is filled, not only allocated. A write job's
    // verify pass reads back only the blocks it wrote, so its file is allocated, not filled, as
    // fio lays it out (filesetup.c extend_file fills for jobs that read).
    layoutFill: used[0] || o.verify_only,
    fallocate: o.fallocate,
    invalidate: o.invalidate,
    fadvise: fadviseAdvice(o),
    unlinkAfter: o.unlink && engineSpec(o.ioengine).touchesTarget,
  };
}

/** The job's other files, and fio's file service over them all. */
function filesPart(o: JobOptions, ordinal: number, more: InstanceTarget[], randseedGiven: boolean): Part<
  'moreFiles' | 'fileService' | 'fileServiceNr' | 'fioSeedFile' | 'statusIntervalNs'
> {
  const fio = fioSeeds(o.randseed, o.randrepeat, randseedGiven, ordinal + 1, o.verify !== 'none');
  return {
    moreFiles: more.map((t) => ({
      path: t.path,
      target: t.ref,
      unlinkTarget: o.unlink && !t.isBlockDevice ? t.unlinkRef : null,
      expect: t.expect,
      isBlockDevice: t.isBlockDevice,
      exclusive: t.exclusive,
      layoutBytes: t.layoutBytes,
      regionOffset: t.regionOffset,
      regionBytes: t.regionBytes,
    })),
    fileService: FILE_SERVICE[o.file_service_type.kind],
    fileServiceNr: o.file_service_type.nr,
    fioSeedFile: fio.file,
    // Set by the run that asks for status reports (RunControl.statusIntervalMs).
    statusIntervalNs: 0,
  };
}

const FILE_SERVICE = { roundrobin: 0, sequential: 1, random: 2 } as const;

/** The engine's numbers for verify (native VerifyKind). */
const VERIFY_KIND: Record<JobOptions['verify'], number> = { none: 0, crc32c: 1, md5: 2 };

/** How much, for how long, and when steady state ends it. */
function extentPart(o: JobOptions, target: InstanceTarget, ioBytesPerLoop: number): Part<
  | 'regionOffset' | 'regionBytes' | 'ioBytesPerLoop' | 'ioSizeGiven' | 'loops' | 'timeBased' | 'runtimeNs' | 'rampNs'
  | 'startDelayNs' | 'ssDurS' | 'ssRampNs' | 'ssBw' | 'ssSlope' | 'ssPercent' | 'ssLimit' | 'ssGroup'
> {
  return {
    regionOffset: target.regionOffset,
    regionBytes: target.regionBytes,
    ioBytesPerLoop,
    ioSizeGiven: o.io_size !== undefined,
    loops: o.loops,
    timeBased: o.time_based,
    runtimeNs: o.runtime_ns,
    rampNs: o.ramp_time_ns,
    startDelayNs: o.startdelay_ns,
    ssDurS: Math.floor(o.steadystate_duration_ns / 1e9),
    ssRampNs: o.steadystate_ramp_time_ns,
    ssBw: o.steadystate.metric === 'bw',
    ssSlope: o.steadystate.slope,
    ssPercent: o.steadystate.percent,
    ssLimit: o.steadystate.limit,
    // Set by the planner once the run's reporting groups are known.
    ssGroup: 0,
  };
}

/** Where the I/Os go, in which direction, how many at once and how fast. */
function patternPart(o: JobOptions, ordinal: number, randseedGiven: boolean): Part<
  | 'random' | 'readPct' | 'trimPct' | 'bs' | 'bsRange' | 'blockAlign' | 'ioDepth' | 'batchSubmit' | 'batchCompleteMin'
  | 'batchCompleteMax' | 'randSeed' | 'fioSeedBs' | 'fioSeedMix' | 'fioSeedBlock' | 'fioReseed' | 'randomMap' | 'fioMap'
  | 'distribution' | 'distributionParam' | 'rateBytes' | 'rateIops' | 'thinktimeNs' | 'thinktimeBlocks'
  | 'zones' | 'percentageRandom' | 'fioSeedSeqRand' | 'fioSeedZone' | 'fioSeedPoisson' | 'ratePoisson'
  | 'latencyTargetNs' | 'latencyWindowNs' | 'latencyPercentile'
> {
  const fio = fioSeeds(o.randseed, o.randrepeat, randseedGiven, ordinal + 1, o.verify !== 'none');
  const rand = isRandom(o.rw) ? 1 : 0;
  return {
    random: [rand, rand, rand],
    readPct: readPercent(o),
    trimPct: directionsUsed(o)[2] ? 100 : 0,
    bs: blockSizes(o),
    bsRange: bsRanges(o),
    blockAlign: [...o.blockalign] as [number, number, number],
    ioDepth: o.iodepth,
    batchSubmit: o.iodepth_batch_submit,
    batchCompleteMin: o.iodepth_batch_complete_min,
    // fio's rule: a maximum under the minimum (or unset) is the minimum, and a reap takes one.
    batchCompleteMax: Math.max(o.iodepth_batch_complete_max, o.iodepth_batch_complete_min, 1),
    randSeed: seedFor(o, randseedGiven),
    fioSeedBs: fio.bs,
    fioSeedMix: fio.mix,
    fioSeedBlock: fio.block,
    // fio seeds its draws again at every loop while randrepeat holds (libfio.c clear_io_state).
    fioReseed: o.randrepeat,
    randomMap: randomMapFor(o).on,
    fioMap: keepsFioMap(o),
    ...distribution(o),
    rateBytes: [...o.rate] as [number, number, number],
    rateIops: [...o.rate_iops] as [number, number, number],
    thinktimeNs: o.thinktime_ns,
    thinktimeBlocks: o.thinktime_blocks,
    percentageRandom: [...o.percentage_random] as [number, number, number],
    fioSeedSeqRand: fio.seqRand,
    fioSeedZone: fio.zone,
    fioSeedPoisson: fio.poisson,
    ratePoisson: o.rate_process === 'poisson',
    latencyTargetNs: o.latency_target_ns,
    latencyWindowNs: o.latency_window_ns,
    latencyPercentile: o.latency_percentile,
  };
}

/** What the buffers hold, what is verified, and what is synced. */
function dataPart(o: JobOptions): Part<
  | 'bufferFill' | 'compressPct' | 'compressChunk' | 'refillBuffers' | 'scrambleBuffers' | 'measureHugePages'
  | 'verify' | 'doVerify' | 'verifyOnly' | 'fsyncEvery' | 'fdatasyncEvery' | 'endFsync'
> {
  return {
    bufferFill: o.zero_buffers ? 1 : o.buffer_compress_percentage > 0 ? 2 : 0,
    compressPct: o.buffer_compress_percentage,
    compressChunk: o.buffer_compress_chunk,
    // fio refills every write buffer when buffer_compress_percentage asks for partly
    // compressible data; otherwise one buffer written over and over compresses far better than
    // the percentage says.
    refillBuffers: o.refill_buffers || (o.buffer_compress_percentage > 0 && o.buffer_compress_percentage < 100),
    // zero_buffers means zeros: fio scrambles buffers unless zero_buffers was asked for.
    scrambleBuffers: o.scramble_buffers && !o.zero_buffers,
    measureHugePages: maxBlockSize(o) >= SEGMENT_BOUND_BS,
    verify: VERIFY_KIND[o.verify],
    doVerify: o.do_verify,
    verifyOnly: o.verify_only,
    fsyncEvery: o.fsync,
    fdatasyncEvery: o.fdatasync,
    endFsync: o.end_fsync,
  };
}

/** Which latencies are kept and how the series is sampled. */
function statsPart(o: JobOptions): Part<
  'disableSlat' | 'disableClat' | 'disableLat' | 'histSlat' | 'histClat' | 'histLat' | 'sampleWindowMs' | 'seriesIntervalMs'
> {
  const logging = Boolean(o.write_bw_log || o.write_iops_log || o.write_lat_log);
  return {
    disableSlat: o.disable_slat,
    disableClat: o.disable_clat,
    disableLat: o.disable_lat,
    histSlat: o.slat_percentiles,
    // clat's histogram always exists: it also feeds the per-second series' p99.
    histClat: !o.disable_clat,
    histLat: o.lat_percentiles,
    sampleWindowMs: logging && o.log_avg_msec > 0 ? o.log_avg_msec : o.bwavgtime,
    seriesIntervalMs: 1000,
  };
}

/** The logs: their paths (for messages), how each is opened and what it must be. */
function logsPart(o: JobOptions, logs: LogPaths, logTargets: LogTargets): Part<
  | 'bwLogPath' | 'iopsLogPath' | 'latLogPath' | 'clatLogPath' | 'slatLogPath' | 'bwLog' | 'iopsLog' | 'latLog'
  | 'clatLog' | 'slatLog' | 'logExpects' | 'logAvgMs' | 'logOffset'
> {
  return {
    bwLogPath: logs.bw,
    iopsLogPath: logs.iops,
    latLogPath: logs.lat,
    clatLogPath: logs.clat,
    slatLogPath: logs.slat,
    bwLog: logTargets.bw?.ref ?? null,
    iopsLog: logTargets.iops?.ref ?? null,
    latLog: logTargets.lat?.ref ?? null,
    clatLog: logTargets.clat?.ref ?? null,
    slatLog: logTargets.slat?.ref ?? null,
    logExpects: LOG_KINDS.map((k) => logTargets[k]?.expect ?? NEW_FILE),
    logAvgMs: o.log_avg_msec,
    logOffset: o.log_offset,
  };
}

/**
 * Memory one instance of a job takes in the engine: its I/O buffers (the largest block size
 * rounded to a page, times iodepth: the engine allocates them so), its random map when it needs
 * a bitmap (several block sizes), and a fixed share for its histograms, counters, ring and log
 * buffers.
 */
export function instanceMemoryBytes(o: JobOptions): number {
  const maxBs = maxBlockSize(o);
  const unit = Math.ceil(maxBs / 4096) * 4096;
  const logs = (o.write_bw_log ? 1 : 0) + (o.write_iops_log ? 1 : 0) + (o.write_lat_log ? 3 : 0);
  return unit * o.iodepth + randomMapBytes(o) + INSTANCE_FIXED_BYTES + logs * LOG_BUFFER_BYTES;
}

/** Histograms (up to 11 of 1,856 counters), series, ring and the rest of an instance. */
const INSTANCE_FIXED_BYTES = 512 * 1024;
/** A log's stdio buffer (native/log_writer.h). */
const LOG_BUFFER_BYTES = 256 * 1024;

/** fio's log file names: `<prefix>_bw.<job number>.log`, job numbers counting from 1 over the run. */
export function logPaths(o: JobOptions, jobNumber: number, cwd: string): LogPaths {
  // Relative prefixes resolve against the run's working directory, like file names.
  const name = (prefix: string | undefined, kind: string): string =>
    prefix ? resolve(cwd, `${prefix}_${kind}.${jobNumber}.log`) : '';
  return {
    bw: name(o.write_bw_log, 'bw'),
    iops: name(o.write_iops_log, 'iops'),
    lat: name(o.write_lat_log, 'lat'),
    clat: name(o.write_lat_log, 'clat'),
    slat: name(o.write_lat_log, 'slat'),
  };
}
