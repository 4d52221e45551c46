/**
 * The spec stage's output: what a user asked for, in fio's option names, with every value parsed
 * into numbers (bytes, nanoseconds, percentages) but no defaults applied that depend on the
 * target. The plan stage turns it into engine plans.
 */

/** A value as written in the JSON form of a spec. Job files and CLI flags give strings. */
export type RawOptionValue = string | number | boolean;

/** The JSON form of a spec: `{ "global": {...}, "jobs": [{...}] }` with fio's option names. */
export interface JobSpec {
  global?: Record<string, RawOptionValue>;
  jobs: Array<Record<string, RawOptionValue>>;
}

/** read, write, trim: fio's data directions in fio's order. */
export type PerDirection<T> = [read: T, write: T, trim: T];

export type RwMode = 'read' | 'write' | 'trim' | 'randread' | 'randwrite' | 'randtrim' | 'rw' | 'randrw';

export type { EngineName } from '../engine/engines.js';
import type { EngineName } from '../engine/engines.js';

/** A size that fio also accepts as a percentage of the target (`size=50%`). */
export type SizeOrPercent = { bytes: number } | { percent: number };

/** fio's `steadystate`: what to watch and how still it must hold. */
export interface SteadyStateCriterion {
  metric: 'iops' | 'bw';
  /** The least-squares slope over the window, rather than the largest deviation from its mean. */
  slope: boolean;
  /** IOPS, bytes/s, or a percentage of the window's mean when `percent`. */
  limit: number;
  percent: boolean;
}

export interface BsSplitEntry {
  bs: number;
  /** Share of I/Os in percent; entries of one direction add up to 100 after parsing. */
  pct: number;
}

/** fio's file_service_type: which of a job's files the next I/O goes to, switching every `nr` I/Os. */
export interface FileServiceType {
  kind: 'roundrobin' | 'sequential' | 'random';
  /** I/Os per turn (fio's `:N`); sequential takes it and ignores it, as fio does. */
  nr: number;
}

export type RandomDistribution =
  | { kind: 'random' }
  | { kind: 'zipf'; theta: number }
  | { kind: 'pareto'; h: number }
  /** `normal:σ` where σ is a percentage of the region; fio calls this `normal` (gauss). */
  | { kind: 'normal'; sigmaPct: number }
  /**
   * `zoned:60/10:30/20:…`: `access`% of the I/Os fall uniformly in the next `size`% of the
   * region; one list, the same for every direction (the engine takes one per direction).
   */
  | { kind: 'zoned'; zones: PerDirection<ZoneSplit[]> };

/** One zone of `random_distribution=zoned`: a share of the accesses on a share of the region. */
export interface ZoneSplit {
  /** Percent of the I/Os, whole. */
  access: number;
  /** Percent of the region, whole. */
  size: number;
}

/**
 * One job's options after merging `[global]` and its own section, parsed. Field names are
 * fio's option names. Optional fields are those the user may leave unset and whose default
 * depends on something else (the target, another option).
 */
export interface JobOptions {
  name: string;
  description?: string;
  /** fio's `filename=a:b`: the job's files (one or several), unescaped. */
  filename?: string[];
  /** fio's `directory=a:b`: where the job's files go; several are handed to its instances in turn. */
  directory?: string[];
  /** Files per instance when no filename is given, named `<name>.<instance>.<n>` as fio names them. */
  nrfiles: number;
  file_service_type: FileServiceType;
  size?: SizeOrPercent;
  filesize?: number;
  offset: SizeOrPercent;
  offset_increment: SizeOrPercent;
  io_size?: SizeOrPercent;
  rw: RwMode;
  /** Percentage of reads in a mixed workload (rwmixwrite=x sets this to 100-x). */
  rwmixread: number;
  bs: PerDirection<number>;
  /** Set when `bssplit` was given; replaces `bs` for the directions it names. */
  bssplit?: PerDirection<BsSplitEntry[]>;
  /**
   * Set when `bsrange` was given: each I/O's size is drawn from [min, max] (in whole multiples
   * of min), replacing `bs`; a direction with a `bssplit` keeps its split, as in fio.
   */
  bsrange?: PerDirection<[min: number, max: number]>;
  /** 0 means "the block size", as fio. */
  blockalign: PerDirection<number>;
  iodepth: number;
  /** 1 (the default, as fio's): each I/O submitted as it is ready; 0: everything ready at once. */
  iodepth_batch_submit: number;
  iodepth_batch_complete_min: number;
  /** 0 (the default) means "the minimum", as fio: one completion handled per reap. */
  iodepth_batch_complete_max: number;
  numjobs: number;
  group_reporting: boolean;
  stonewall: boolean;
  new_group: boolean;
  /** 0 = no limit. */
  runtime_ns: number;
  time_based: boolean;
  ramp_time_ns: number;
  startdelay_ns: number;
  steadystate: SteadyStateCriterion;
  /** The steady-state window, whole seconds in ns; 0 = no steady-state check (fio's default). */
  steadystate_duration_ns: number;
  /** Time after measuring begins before the steady-state window starts filling. */
  steadystate_ramp_time_ns: number;
  loops: number;
  direct: boolean;
  /** `sync=1` (O_SYNC), `sync=dsync` (O_DSYNC), `sync=0`/`none`. */
  sync: 'none' | 'sync' | 'dsync';
  fsync: number;
  fdatasync: number;
  end_fsync: boolean;
  invalidate: boolean;
  randrepeat: boolean;
  /** fio's default seed is 0x89; a string keeps all 64 bits. */
  randseed: bigint;
  norandommap: boolean;
  random_distribution: RandomDistribution;
  /**
   * Percent of a random job's I/Os, per direction, that draw a random offset; the rest go on
   * from where the direction's last I/O ended (fio's percentage_random). 100: all random.
   */
  percentage_random: PerDirection<number>;
  /** Bytes per second per direction, 0 = unlimited. */
  rate: PerDirection<number>;
  rate_iops: PerDirection<number>;
  /** How a rate spaces I/Os: evenly (linear, fio's default) or with exponential gaps (poisson). */
  rate_process: 'linear' | 'poisson';
  /**
   * fio's latency target: the job searches for the deepest queue (up to iodepth) at which
   * `latency_percentile`% of the I/Os of each `latency_window` complete within this latency
   * (total latency, ns); 0: off.
   */
  latency_target_ns: number;
  latency_window_ns: number;
  latency_percentile: number;
  thinktime_ns: number;
  thinktime_blocks: number;
  refill_buffers: boolean;
  scramble_buffers: boolean;
  zero_buffers: boolean;
  /** 0 = incompressible (the default, as fio). */
  buffer_compress_percentage: number;
  buffer_compress_chunk: number;
  verify: 'none' | 'crc32c' | 'md5';
  do_verify: boolean;
  verify_only: boolean;
  /** Sorted, at most 20 entries. */
  percentile_list: number[];
  clat_percentiles: boolean;
  lat_percentiles: boolean;
  slat_percentiles: boolean;
  unified_rw_reporting: 'none' | 'mixed' | 'both';
  write_bw_log?: string;
  write_iops_log?: string;
  write_lat_log?: string;
  /** 0 = one log line per I/O, as fio. */
  log_avg_msec: number;
  /** Log lines carry the I/O's offset (fio's `msec, value, ddir, bs, offset, prio`). */
  log_offset: boolean;
  /** Window of the bw/iops samples behind bw_min..iops_stddev (fio's bwavgtime), in ms. */
  bwavgtime: number;
  iopsavgtime: number;
  disable_lat: boolean;
  disable_clat: boolean;
  disable_slat: boolean;
  kb_base: 1000 | 1024;
  unlink: boolean;
  /** Unset: io_uring, falling back to libaio, then psync. */
  ioengine?: EngineName;
  /**
   * Unset: on for blocks under 128 KiB off tmpfs and ramfs (volbench registers buffers there,
   * and files always, by default; fio does not).
   */
  fixedbufs?: boolean;
  registerfiles?: boolean;
  sqthread_poll: boolean;
  hipri: boolean;
  /** The CPUs the job's threads may run on; empty: any (fio's default). */
  cpus_allowed: number[];
  /** shared: every instance may use every CPU of cpus_allowed; split: each gets one of them. */
  cpus_allowed_policy: 'shared' | 'split';
  fallocate: 'none' | 'native' | 'posix' | 'keep' | 'truncate';
  /** posix_fadvise on the opened target: the job's pattern (fio's 1), a fixed advice, or none (0). */
  fadvise_hint: 'none' | 'pattern' | 'random' | 'sequential';
  allow_block_write: boolean;
}

/** One job section as the user wrote it, plus its parsed options. */
export interface ParsedJob {
  /** Options of this job's own section in the order written, values as written (fio's echo). */
  ownOptions: Array<[name: string, value: string]>;
  options: JobOptions;
  /**
   * Where each option given was set, by its canonical name: `jobs[0].blocksize` when the job's
   * own section set it (under the name written), else `global.…`. Errors name these.
   */
  fields?: Record<string, string>;
}

export interface ParsedSpec {
  /** `[global]` options as written; fio echoes them as "global options" when a section exists. */
  globalOptions?: Array<[name: string, value: string]>;
  jobs: ParsedJob[];
}
