/**
 * The report's counterpart of fio's `struct thread_stat`: one per fio job entry, in fio's units
 * (ms for runtimes and CPU time, ns for latencies), summed from job instances the way stat.c's
 * sum_thread_stats does. Everything fio prints for a job is derived from it.
 */
import type { NativeDirResult, NativeJobResult } from '../engine/native-types.js';
import type { JobOptions } from '../jobspec/types.js';
import { emptyHist, mergeHist } from './histogram.js';
import type { SteadyStat } from './steadystate.js';
import { emptyIoStat, ioStatFromNative, mergeParallel, mergePureSum, type IoStat } from './io-stat.js';

export type Unified = JobOptions['unified_rw_reporting'];

export interface DirStat {
  ioBytes: number;
  totalIos: number;
  shortIos: number;
  dropIos: number;
  runtimeMs: number;
  slat: IoStat;
  clat: IoStat;
  lat: IoStat;
  slatHist: Float64Array;
  clatHist: Float64Array;
  latHist: Float64Array;
  bw: IoStat;
  iops: IoStat;
}

export interface PercentileSettings {
  clat: boolean;
  lat: boolean;
  slat: boolean;
  /** As fio keeps it: the list up to its first 0, sorted. */
  list: number[];
}

export interface ThreadStat {
  name: string;
  groupid: number;
  description: string;
  /** Instances summed into this entry (fio's ts->members, "jobs=" in normal output). */
  members: number;
  error: number;
  errorMessage: string;
  unified: Unified;
  kbBase: number;
  percentiles: PercentileSettings;
  dirs: [DirStat, DirStat, DirStat];
  sync: { totalIos: number; stat: IoStat; hist: Float64Array };
  totalRunTimeMs: number;
  usrMs: number;
  sysMs: number;
  ctx: number;
  majf: number;
  minf: number;
  depthMap: number[];
  submit: number[];
  complete: number[];
  latencyDepth: number;
  /** fio's latency target as the entry's last member had it: ns, µs (fio's units) and percent. */
  latencyTargetNs: number;
  latencyWindowUs: number;
  latencyPercentile: number;
  disableClat: boolean;
  /** The options echo of the entry: fio keeps the last member's. */
  jobOptions: Array<[string, string]>;
  /** The steady-state check, when the entry's jobs had one (its members share it). */
  steady?: SteadyStat;
}

export function emptyDirStat(): DirStat {
  return {
    ioBytes: 0, totalIos: 0, shortIos: 0, dropIos: 0, runtimeMs: 0,
    slat: emptyIoStat(), clat: emptyIoStat(), lat: emptyIoStat(),
    slatHist: emptyHist(), clatHist: emptyHist(), latHist: emptyHist(),
    bw: emptyIoStat(), iops: emptyIoStat(),
  };
}

/** An entry with the settings fio takes from the first member (name, group, units, unified mode). */
export function emptyThreadStat(name: string, groupid: number, options: JobOptions): ThreadStat {
  return {
    name, groupid,
    description: options.description ?? '',
    members: 0, error: 0, errorMessage: '',
    unified: options.unified_rw_reporting,
    kbBase: options.kb_base,
    percentiles: percentileSettings(options),
    dirs: [emptyDirStat(), emptyDirStat(), emptyDirStat()],
    sync: { totalIos: 0, stat: emptyIoStat(), hist: emptyHist() },
    totalRunTimeMs: 0, usrMs: 0, sysMs: 0, ctx: 0, majf: 0, minf: 0,
    depthMap: [0, 0, 0, 0, 0, 0, 0], submit: [0, 0, 0, 0, 0, 0, 0], complete: [0, 0, 0, 0, 0, 0, 0],
    latencyDepth: options.iodepth,
    ...latencyTarget(options),
    disableClat: options.disable_clat,
    jobOptions: [],
  };
}

/** The latency target's settings as fio reports them: the target in ns, the window in µs. */
function latencyTarget(options: JobOptions): Pick<ThreadStat, 'latencyTargetNs' | 'latencyWindowUs' | 'latencyPercentile'> {
  return {
    latencyTargetNs: options.latency_target_ns,
    latencyWindowUs: Math.floor(options.latency_window_ns / 1000),
    latencyPercentile: options.latency_percentile,
  };
}

/** fio stops reading percentile_list at its first 0 (calc_clat_percentiles), then sorts it. */
export function percentileSettings(options: JobOptions): PercentileSettings {
  const zero = options.percentile_list.indexOf(0);
  const list = (zero < 0 ? options.percentile_list : options.percentile_list.slice(0, zero)).slice(0, 20);
  return {
    clat: options.clat_percentiles,
    lat: options.lat_percentiles,
    slat: options.slat_percentiles,
    list: list.sort((a, b) => a - b),
  };
}

/**
 * A direction's runtime in ms as backend.c's update_runtime rounds it: microseconds, rounded up
 * to whole ms (a 2 s job reports 2001).
 */
export function dirRuntimeMs(runtimeNs: number): number {
  return Math.ceil(Math.floor(runtimeNs / 1000) / 1000);
}

function dirFromNative(d: NativeDirResult): DirStat {
  return {
    ioBytes: d.ioBytes, totalIos: d.totalIos, shortIos: d.shortIos, dropIos: d.dropIos,
    // backend.c only counts a direction's runtime once it moved bytes (a failed trim shows 0).
    runtimeMs: d.ioBytes > 0 ? dirRuntimeMs(d.runtimeNs) : 0,
    slat: ioStatFromNative(d.slat), clat: ioStatFromNative(d.clat), lat: ioStatFromNative(d.lat),
    slatHist: d.slatHist, clatHist: d.clatHist, latHist: d.latHist,
    bw: ioStatFromNative(d.bw), iops: ioStatFromNative(d.iops),
  };
}

function addDir(dst: DirStat, src: DirStat): void {
  mergeParallel(dst.clat, src.clat);
  mergeParallel(dst.slat, src.slat);
  mergeParallel(dst.lat, src.lat);
  mergePureSum(dst.bw, src.bw);
  mergePureSum(dst.iops, src.iops);
  dst.ioBytes += src.ioBytes;
  dst.runtimeMs = Math.max(dst.runtimeMs, src.runtimeMs);
  dst.totalIos += src.totalIos;
  dst.shortIos += src.shortIos;
  dst.dropIos += src.dropIos;
  mergeHist(dst.slatHist, src.slatHist);
  mergeHist(dst.clatHist, src.clatHist);
  mergeHist(dst.latHist, src.latHist);
}

/** Adds one direction set into an entry; `mixed` folds read, write and trim into slot 0. */
export function addDirs(dst: ThreadStat, srcDirs: readonly DirStat[]): void {
  srcDirs.forEach((d, i) => addDir(dst.dirs[dst.unified === 'mixed' ? 0 : i], d));
}

function addVector(dst: number[], src: readonly number[] | undefined): void {
  for (let i = 0; i < dst.length; i++) dst[i] += src?.[i] ?? 0;
}

/** Sums one instance into an entry, as stat.c's sum_thread_stats (plus the member bookkeeping). */
export function addInstance(dst: ThreadStat, r: NativeJobResult, options: JobOptions, own: Array<[string, string]>): void {
  addDirs(dst, r.dirs.map(dirFromNative));
  mergeParallel(dst.sync.stat, ioStatFromNative(r.sync.lat));
  mergeHist(dst.sync.hist, r.sync.latHist);
  dst.sync.totalIos += r.sync.totalIos;
  dst.usrMs += Math.floor(r.usrNs / 1e6);
  dst.sysMs += Math.floor(r.sysNs / 1e6);
  dst.ctx += r.ctx;
  dst.majf += r.majf;
  dst.minf += r.minf;
  addVector(dst.depthMap, r.iodepthLevel);
  addVector(dst.submit, r.iodepthSubmit);
  addVector(dst.complete, r.iodepthComplete);
  dst.totalRunTimeMs += Math.floor(r.runtimeNs / 1e6);
  // Per-entry settings fio overwrites with every member, so the last one's stand.
  dst.percentiles = percentileSettings(options);
  // fio's ts->latency_depth: the depth the member ended at (its latency target's, or iodepth).
  dst.latencyDepth = r.latencyDepth || options.iodepth;
  Object.assign(dst, latencyTarget(options));
  dst.disableClat = options.disable_clat;
  dst.jobOptions = own;
  if (!dst.steady && r.steady && options.steadystate_duration_ns > 0) {
    dst.steady = { criterion: options.steadystate, durationSec: Math.floor(options.steadystate_duration_ns / 1e9), result: r.steady };
  }
  if (!dst.error && r.error) {
    dst.error = r.error;
    dst.errorMessage = r.errorMessage;
  }
  dst.members++;
}

/**
 * unified_rw_reporting=both: the extra "mixed" entry is a fresh entry in mixed mode with the
 * same percentile settings, into which the whole entry is summed (stat.c's
 * gen_mixed_ddir_stats_from_ts).
 */
export function mixedOf(ts: ThreadStat): ThreadStat {
  const mixed: ThreadStat = {
    ...ts,
    unified: 'mixed',
    dirs: [emptyDirStat(), emptyDirStat(), emptyDirStat()],
  };
  addDirs(mixed, ts.dirs);
  return mixed;
}
