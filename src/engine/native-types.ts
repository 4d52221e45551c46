/**
 * The boundary between TypeScript and the native engine. The plan stage hands the engine fully
 * normalised numbers (bytes, nanoseconds, flags); the engine answers with raw counters,
 * histograms and samples, from which the report stage builds fio's JSON.
 *
 * Direction indexes follow fio: 0 read, 1 write, 2 trim.
 */

import type { EngineChoice, EngineName } from './engines.js';

/** An engine's name: the rows of engines.ts. */
export type NativeEngineName = EngineName;

export const DIR_READ = 0;
export const DIR_WRITE = 1;
export const DIR_TRIM = 2;

/** Number of latency histogram buckets: 29 groups of 64, fio's layout. */
export const HIST_BUCKETS = 1856;

export interface NativeBsSplit {
  bs: number;
  pct: number;
}

/** A zone of random_distribution=zoned: `access`% of the I/Os on the next `size`% of the region. */
export interface NativeZone {
  access: number;
  size: number;
}

/**
 * A path as the engine opens it: `name` relative to the directory descriptor `dirFd`, beneath
 * it (openat2 RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS). `dirFd` -1: nothing to open.
 */
export interface NativePathRef {
  dirFd: number;
  name: string;
  /** The absolute path it stands for, links resolved at planning: not read by the engine. */
  realPath?: string;
}

/** A file a run's layout created: the job (index in the run), which file (0 the target, 1 to 5 its logs: bw, iops, lat, clat, slat, 6 on its other files) and its identity. */
export interface NativeCreatedFile {
  job: number;
  file: number;
  dev: bigint;
  ino: bigint;
  /** Its birth time and inode generation, as the engine read them ('' where the filesystem keeps neither): native FileStamp. */
  stamp: string;
}

/** What the target must be once opened, as planning saw it. */
export interface NativeExpect {
  /** new: did not exist (a file the run lays out); file: that regular file; device: that block device. */
  kind: 'new' | 'file' | 'device';
  /** st_dev and st_ino of an existing file, 0 otherwise. */
  dev: bigint;
  ino: bigint;
  /** st_rdev of a block device, 0 otherwise. */
  rdev: bigint;
}

/** Everything one job instance (one thread) needs, in numbers. */
export interface NativeJobPlan {
  /** Used in error messages only. */
  jobName: string;
  /** 0-based instance number within numjobs. */
  instance: number;
  /** Engines to try in order, each with its own options; the first that sets up runs (io_uring, libaio, psync when unset). */
  engines: EngineChoice[];
  /** The target's path: for messages; the engine opens `target`. */
  path: string;
  /** The root the target is opened beneath, where its stuck I/O is counted (see stuck()). */
  anchor: string;
  /** What the instance takes in the engine, as counted against the memory budget (kept counted while it is stuck). */
  memoryBytes: number;
  target: NativePathRef;
  /** unlink=1 removes this name (the target as the user named it), or null. */
  unlinkTarget: NativePathRef | null;
  expect: NativeExpect;
  /** Files the run must never open, whatever their name: [dev, ino] pairs, flattened. */
  forbidden: bigint[];
  isBlockDevice: boolean;
  /** Open flags. */
  direct: boolean;
  osync: 'none' | 'sync' | 'dsync';
  /** The job writes or trims (open read-write). */
  needsWrite: boolean;
  /** Open a block device with O_EXCL, so the kernel refuses it when mounted or held. */
  exclusive: boolean;
  /** Lay out a regular file up to this many bytes before I/O (0 = leave as is). */
  layoutBytes: number;
  /** Fill the laid-out part with data (needed when the job reads). */
  layoutFill: boolean;
  fallocate: 'none' | 'native' | 'posix' | 'keep' | 'truncate';
  /** Drop the file's pages from the page cache before the job (invalidate=1). */
  invalidate: boolean;
  /** posix_fadvise on the opened target, after the cache drop (fio's fadvise_hint). */
  fadvise: 'none' | 'random' | 'sequential';
  unlinkAfter: boolean;
  /** Region of the target this instance works on. */
  regionOffset: number;
  regionBytes: number;
  /** Bytes to transfer per loop (io_size); the job ends after `loops` of these unless time_based. */
  ioBytesPerLoop: number;
  loops: number;
  timeBased: boolean;
  /** 0 = no limit. */
  runtimeNs: number;
  rampNs: number;
  startDelayNs: number;
  /** fio's steady state: the window in whole seconds (0: no check) and the time before it fills. */
  ssDurS: number;
  ssRampNs: number;
  /** Watches bandwidth (bytes/s) rather than IOPS, by the slope rather than the largest deviation. */
  ssBw: boolean;
  ssSlope: boolean;
  /** The limit is a percentage of the window's mean, else IOPS or bytes/s. */
  ssPercent: boolean;
  ssLimit: number;
  /** Instances of one run with the same number judge their summed samples together (group_reporting). */
  ssGroup: number;
  /** 0 sequential, 1 random, per direction. */
  random: [number, number, number];
  /** Share of reads in percent for mixed workloads; 100 for read-only, 0 for write-only. */
  readPct: number;
  /** Share of trims (rw=trim/randtrim: 100, else 0). */
  trimPct: number;
  /** Block size table per direction: one entry for a fixed bs, several for bssplit, a range's two ends. */
  bs: [NativeBsSplit[], NativeBsSplit[], NativeBsSplit[]];
  /** 1 where a direction draws each size between its table's smallest and largest (bsrange), as fio. */
  bsRange: [number, number, number];
  blockAlign: [number, number, number];
  ioDepth: number;
  /** 0 = submit everything ready in one call. */
  batchSubmit: number;
  batchCompleteMin: number;
  /** Completions handled per reap, at least 1 (fio: iodepth_batch_complete_max, or the minimum). */
  batchCompleteMax: number;
  randSeed: bigint;
  /** io_size was given (fio then goes on past a pass its random map ended early). */
  ioSizeGiven: boolean;
  /** fio's seeds for the draws made as fio makes them (src/plan/fio-seeds.ts): sizes per direction, rwmix, offsets. */
  fioSeedBs: [bigint, bigint, bigint];
  fioSeedMix: bigint;
  fioSeedBlock: bigint;
  /** Seed those draws again at each loop (fio's randrepeat). */
  fioReseed: boolean;
  /** Keep fio's random map: every block once per pass. */
  randomMap: boolean;
  /** Keep fio's map even for one block size (its order of offsets shows: plan/random-map.ts keepsFioMap). */
  fioMap: boolean;
  /** 0 uniform, 1 zipf, 2 pareto, 3 normal, 4 zoned. */
  distribution: number;
  distributionParam: number;
  /** distribution 4: per direction, `access`% of the I/Os on the next `size`% of the region (empty: uniform). */
  zones: [NativeZone[], NativeZone[], NativeZone[]];
  /** Percent of each direction's random I/Os that draw an offset; the others go on from the last I/O. */
  percentageRandom: [number, number, number];
  /** fio's seeds for percentage_random's draw, the zoned draw and rate_process=poisson's gaps (per direction). */
  fioSeedSeqRand: bigint;
  fioSeedZone: bigint;
  fioSeedPoisson: [bigint, bigint, bigint];
  /** Space rated I/Os with exponential gaps (fio's rate_process=poisson), else evenly. */
  ratePoisson: boolean;
  /** fio's latency target (0: off): the total latency, its window and the share of I/Os that must meet it. */
  latencyTargetNs: number;
  latencyWindowNs: number;
  latencyPercentile: number;
  rateBytes: [number, number, number];
  rateIops: [number, number, number];
  thinktimeNs: number;
  thinktimeBlocks: number;
  /** 0 random (incompressible), 1 zeros, 2 compressible to `compressPct`. */
  bufferFill: number;
  compressPct: number;
  compressChunk: number;
  refillBuffers: boolean;
  scrambleBuffers: boolean;
  /** 0 none, 1 crc32c, 2 md5 (fio's header). */
  verify: number;
  doVerify: boolean;
  verifyOnly: boolean;
  fsyncEvery: number;
  fdatasyncEvery: number;
  endFsync: boolean;
  disableSlat: boolean;
  disableClat: boolean;
  disableLat: boolean;
  /** Keep a histogram for these latencies (their percentiles are reported). clat's also feeds the series. */
  histSlat: boolean;
  histClat: boolean;
  histLat: boolean;
  /** Window of bw/iops samples, in ms. */
  sampleWindowMs: number;
  /** Per-second time series (always on; costs nothing per I/O). */
  seriesIntervalMs: number;
  /** Log files; empty string = not written. Paths are complete, for messages; the engine opens the refs. */
  bwLogPath: string;
  iopsLogPath: string;
  latLogPath: string;
  clatLogPath: string;
  slatLogPath: string;
  bwLog: NativePathRef | null;
  iopsLog: NativePathRef | null;
  latLog: NativePathRef | null;
  clatLog: NativePathRef | null;
  slatLog: NativePathRef | null;
  /** What each log must be, in the order bw, iops, lat, clat, slat: a new file is created by the run's layout, exclusively. */
  logExpects: NativeExpect[];
  logAvgMs: number;
  logOffset: boolean;
  /** The result says how much of the buffers are huge pages (plan/native-plan.ts decides from which block size). */
  measureHugePages: boolean;
  /** The CPUs the instance's thread is pinned to (sched_setaffinity); empty: not pinned. */
  cpus: number[];
  /**
   * The job's other files (filename=a:b, nrfiles), each opened, laid out, claimed and removed as
   * its target is; empty for a job of one file.
   */
  moreFiles: NativeFileTarget[];
  /** How the I/Os are spread over the files: 0 round robin, 1 sequential, 2 random (fio's file_service_type). */
  fileService: number;
  /** I/Os per turn of a file (fio's `roundrobin:N`, `random:N`), at least 1. */
  fileServiceNr: number;
  /** fio's seed for the random file choice. */
  fioSeedFile: bigint;
  /** fio's --status-interval: a status report every this often while the run goes on (0: none). */
  statusIntervalNs: number;
}

/** One of a job's files beyond its first: where it is, what it must be, and its region. */
export interface NativeFileTarget {
  /** For messages; the engine opens `target`. */
  path: string;
  target: NativePathRef;
  unlinkTarget: NativePathRef | null;
  expect: NativeExpect;
  isBlockDevice: boolean;
  exclusive: boolean;
  layoutBytes: number;
  regionOffset: number;
  regionBytes: number;
}

/** Count, extremes and Welford accumulators of a latency, in ns. */
export interface NativeLatStats {
  n: number;
  min: number;
  max: number;
  mean: number;
  /** Sum of squared deviations (Welford's M2); stddev = sqrt(m2 / (n - 1)). */
  m2: number;
}

/** Statistics over the bw (KiB/s) or iops windows. */
export interface NativeSampleStats {
  n: number;
  min: number;
  max: number;
  mean: number;
  m2: number;
}

export interface NativeDirResult {
  ioBytes: number;
  totalIos: number;
  shortIos: number;
  dropIos: number;
  /** Time this direction was active, ns (the job's runtime when it did any I/O, else 0). */
  runtimeNs: number;
  slat: NativeLatStats;
  clat: NativeLatStats;
  lat: NativeLatStats;
  /** HIST_BUCKETS counts each; all zeros when that latency is disabled. */
  slatHist: Float64Array;
  clatHist: Float64Array;
  latHist: Float64Array;
  bw: NativeSampleStats;
  iops: NativeSampleStats;
}

export interface NativeSeriesDir {
  ios: number;
  bytes: number;
  clatMeanNs: number;
  clatP99Ns: number;
}

export interface NativeSeriesPoint {
  /** End of the interval, ms since the measured period began. */
  tMs: number;
  /** Interval length in ms (the last one may be short). */
  durMs: number;
  dirs: [NativeSeriesDir, NativeSeriesDir, NativeSeriesDir];
}

export interface NativeJobResult {
  jobName: string;
  instance: number;
  /** The engine that ran, after any fallback. */
  engine: NativeEngineName;
  /** 0, or the errno that ended the job (fio's `error`). */
  error: number;
  errorSyscall: string;
  errorMessage: string;
  cancelled: boolean;
  /**
   * I/Os still in flight when the run gave up on the job: its device stopped answering, and the
   * run was cancelled or the job's runtime was long over. The result is what it did until then.
   */
  stuckIos: number;
  /** The I/O buffers' bytes (iodepth units of the largest block size, rounded to a page). */
  bufferBytes: number;
  /**
   * Of those, the bytes the kernel backs with transparent huge pages (its choice, with
   * transparent_hugepage=always): looked at when the job's largest block is 128 KiB or more,
   * where a buffer of fewer physical runs can reach the device as fewer requests. 0 below that.
   */
  hugePageBytes: number;
  /** Whether io_uring registered the buffers with the kernel (fixedbufs). */
  registeredBuffers: boolean;
  /** Whether io_uring registered the target's file with the kernel (registerfiles). */
  registeredFiles: boolean;
  /** Wall clock (ms since epoch) when the measured period began. */
  startedAtMs: number;
  /** Measured period (after ramp), ns. */
  runtimeNs: number;
  /** From thread start to end, including layout, start delay and ramp, ns. */
  elapsedNs: number;
  /** The job thread's id (0 when it never started): fio prints a thread's as pid=. */
  tid: number;
  /** The regular file the job opened (0n when none): a later stage must find that file there. */
  opened: { dev: bigint; ino: bigint; rdev: bigint };
  /** The same for the job's other files, in the order of NativeJobPlan.moreFiles. */
  moreOpened: Array<{ dev: bigint; ino: bigint; rdev: bigint }>;
  dirs: [NativeDirResult, NativeDirResult, NativeDirResult];
  sync: { totalIos: number; lat: NativeLatStats; latHist: Float64Array };
  usrNs: number;
  sysNs: number;
  ctx: number;
  majf: number;
  minf: number;
  /** fio's io_u_map: I/Os submitted at each depth level 1,2,4,8,16,32,>=64. */
  iodepthLevel: number[];
  /** Submit calls by I/Os per call: 0, 1-4, 5-8, 9-16, 17-32, 33-64, >64. */
  iodepthSubmit: number[];
  /** Reap calls by I/Os reaped per call, same buckets. */
  iodepthComplete: number[];
  /** The queue depth the instance ended at: iodepth, or the one fio's latency target found. */
  latencyDepth: number;
  series: NativeSeriesPoint[];
  /** The steady-state check's last judgement, when the plan had one (its group's, shared). */
  steady?: NativeSteadyResult;
}

export interface NativeSteadyResult {
  attained: boolean;
  /** The slope or the largest deviation, in percent of the mean when the limit is a percentage. */
  criterion: number;
  maxDeviation: number;
  slope: number;
  /** The window's samples, oldest first (IOPS, bytes/s); zeros where it never filled. */
  iops: number[];
  bw: number[];
}

/** Progress of one instance, pushed about once a second while a run goes. */
export interface NativeProgress {
  jobName: string;
  instance: number;
  /** running | ramp | layout | done */
  phase: string;
  elapsedMs: number;
  /** Cumulative counters since the measured period began. */
  ios: [number, number, number];
  bytes: [number, number, number];
  /** The last completed one-second interval, when there is one. */
  last?: NativeSeriesPoint;
  /** Ms until the job's runtime ends, as the report was taken: set once it has begun its runtime (its ramp included). */
  endsInMs?: number;
  /** The layout of the job's file, when the run laid one out (shared by every job of the file). */
  layout?: NativeLayoutProgress;
}

/** How far a file's layout has got. */
export interface NativeLayoutProgress {
  doneBytes: number;
  /** What the layout writes or allocates: 0 when the file was already large enough. */
  totalBytes: number;
  elapsedMs: number;
  ended: boolean;
}

export interface NativeTargetInfo {
  path: string;
  isBlockDevice: boolean;
  isRegularFile: boolean;
  exists: boolean;
  /** Device size (block device) or file size, bytes. */
  sizeBytes: number;
  /** Logical and physical block size of the device behind the target. */
  logicalBlockSize: number;
  physicalBlockSize: number;
  /** major:minor of the block device itself, or of the device holding the file. */
  devMajor: number;
  devMinor: number;
  /** Filesystem type name from statfs (files), e.g. "ext4", "tmpfs". */
  fsType: string;
  /** Free bytes on the filesystem holding the file. */
  fsFreeBytes: number;
  /** Whether O_DIRECT open succeeds on the target (or its directory, for a new file). */
  directOk: boolean;
  /** errno of a failed stat or open (0 when the target or its directory could be examined). */
  error: number;
  /** What was looked at: st_dev and st_ino of an existing target, st_rdev of a device; 0n otherwise. */
  identity: { dev: bigint; ino: bigint; rdev: bigint };
}

/** What a run resolves to: every job's result, and the devices' counters after its layout. */
export interface NativeRunResult {
  jobs: NativeJobResult[];
  /** null when the run laid nothing out (or was given no stat files to read). */
  afterLayout: NativeAfterLayout | null;
}

export interface NativeAfterLayout {
  /** Each stat file's text, in the order given ('' where it could not be read). */
  stats: string[];
  /** From the run's start to the reading, ms. */
  ms: number;
}

export interface NativeStuckEntry {
  /** A job given up on, or a call on a root (a probe, a removal). */
  kind: 'job' | 'call';
  /** The root it is stuck beneath. */
  anchor: string;
  /** A job's I/Os that never returned; 1 for a call. */
  ios: number;
  /** Threads of the process it holds. */
  threads: number;
  /** Memory it keeps until its thread ends. */
  memoryBytes: number;
  /** A call is stuck once past its deadline; a job always is. */
  stuck: boolean;
}

export interface NativeStuck {
  limit: number;
  /** Threads stuck now, and the memory they keep. */
  threads: number;
  memoryBytes: number;
  entries: NativeStuckEntry[];
}

/** Which log page to read from which device (native/nvme_log_page.h). */
export interface NativeNvmeLogPageRequest {
  path: string;
  /** A controller's character device (/dev/nvme1) rather than a namespace's block device. */
  charDevice: boolean;
  /** st_rdev the opened device must have. */
  rdev: bigint;
  lid: number;
  nsid: number;
  /** A multiple of 4, at most 65,536. */
  bytes: number;
  /** The command's timeout in the kernel; 0 the driver's default. */
  timeoutMs: number;
}

/** What a log page read came to: the page, or the call that failed, or the controller's status. */
export interface NativeNvmeLogPage {
  /** errno of the failed call, 0 when none failed. */
  errno: number;
  /** "open", "fstat", "ioctl", or "" */
  syscall: string;
  /** Why an opened path was refused (not the device looked at), or "". */
  why: string;
  /** The controller's NVMe status (0: success). */
  status: number;
  data: Buffer | null;
}

export interface NativeAddon {
  /**
   * Starts the jobs of one stonewall group together; resolves when all have ended. With
   * `statPaths` (the sysfs `stat` files of the devices behind the targets) it reads them once
   * the run has laid its files out, before any job starts.
   */
  runJobs(
    plans: NativeJobPlan[],
    /**
     * Progress about once a second; with plans' `statusIntervalNs`, also a status report every
     * interval (`status`: per plan its statistics as of then, its final result once it ended,
     * null before it has any), with empty `p` and `created`.
     */
    onProgress: (p: NativeProgress[], created: NativeCreatedFile[], status?: Array<NativeJobResult | null>) => void,
    statPaths?: string[],
  ): { id: number; promise: Promise<NativeRunResult> };
  /** Stops a run's I/O; its promise then resolves with partial results marked cancelled. Idempotent. */
  cancel(id: number): void;
  /**
   * On a thread of its own, with a deadline (anchor: the root it counts under): the event loop
   * and libuv's pool never wait on the target. With `ref` it looks beneath that directory (and
   * makes its O_DIRECT probe file there); `path` is then for messages only. Null when the process
   * holds as many stuck threads as it may.
   */
  probeTarget(path: string, ref?: NativePathRef, anchor?: string, deadlineMs?: number): Promise<NativeTargetInfo> | null;
  /**
   * Unlinks a regular file beneath a held directory, only while it is still the file `dev`,
   * `ino` (and, with a stamp, has that birth time and generation: ESTALE otherwise), its
   * directories walked without following links; on a thread of its own as probeTarget.
   * Resolves to 0 or an errno; null as probeTarget.
   */
  removeFile(ref: NativePathRef, dev: bigint, ino: bigint, anchor?: string, deadlineMs?: number, stamp?: string): Promise<number> | null;
  /**
   * One NVMe log page through the kernel's admin passthrough (Get Log Page), on a thread of its
   * own as probeTarget: the device opened must be the one `request` names (kind and rdev) before
   * any command goes to it. Null as probeTarget.
   */
  readNvmeLogPage(request: NativeNvmeLogPageRequest, anchor?: string, deadlineMs?: number): Promise<NativeNvmeLogPage> | null;
  /** The process's stuck threads: jobs given up on, and calls on roots (stuck once past their deadline). */
  stuck(): NativeStuck;
  /** The most stuck threads the process keeps (default 64). */
  setStuckLimit(limit: number): void;
  /** Engines this kernel can set up, probed once. */
  engines(): NativeEngineName[];
}
