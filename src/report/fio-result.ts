/**
 * fio 3.33's JSON output as a typed object, plus volbench's own `"volbench"` key. Key order in
 * these interfaces is fio's order; buildReport creates objects in that order, and formatJson
 * prints them in insertion order.
 */
import type { DiskUtil } from './types.js';
import type { VolbenchJobAnalysis, VolbenchRotational, VolbenchSweep, VolbenchUniformity } from '../analysis/types.js';

export interface FioLatStats {
  min: number;
  max: number;
  mean: number;
  stddev: number;
  N: number;
  /** `"99.900000"` → ns; only when that latency's percentiles are on and N > 0. */
  percentile?: Record<string, number>;
  /** json+ only: `"<bucket value ns>"` → count, non-empty buckets. Always built; `json` drops it. */
  bins?: Record<string, number>;
}

export interface FioDirStats {
  io_bytes: number;
  io_kbytes: number;
  bw_bytes: number;
  bw: number;
  iops: number;
  runtime: number;
  total_ios: number;
  short_ios: number;
  drop_ios: number;
  slat_ns: FioLatStats;
  clat_ns: FioLatStats;
  lat_ns: FioLatStats;
  bw_min: number;
  bw_max: number;
  bw_agg: number;
  bw_mean: number;
  bw_dev: number;
  bw_samples: number;
  iops_min: number;
  iops_max: number;
  iops_mean: number;
  iops_stddev: number;
  iops_samples: number;
}

export interface FioSyncStats {
  total_ios: number;
  lat_ns: FioLatStats;
}

export interface FioJob {
  jobname: string;
  groupid: number;
  error: number;
  eta: number;
  elapsed: number;
  'job options'?: Record<string, string>;
  read?: FioDirStats;
  write?: FioDirStats;
  trim?: FioDirStats;
  sync?: FioSyncStats;
  mixed?: FioDirStats;
  job_runtime: number;
  usr_cpu: number;
  sys_cpu: number;
  ctx: number;
  majf: number;
  minf: number;
  iodepth_level: Record<string, number>;
  iodepth_submit: Record<string, number>;
  iodepth_complete: Record<string, number>;
  latency_ns: Record<string, number>;
  latency_us: Record<string, number>;
  latency_ms: Record<string, number>;
  latency_depth?: number;
  latency_target?: number;
  latency_percentile?: number;
  latency_window?: number;
  desc?: string;
  /** fio's steady-state block, for jobs with steadystate_duration. */
  steadystate?: FioSteadyState;
}

export interface FioSteadyState {
  /** The criterion as fio spells it: `iops_slope:0.100000%`, `bw:50000000.000000`. */
  ss: string;
  /** The window, seconds. */
  duration: number;
  attained: 0 | 1;
  /** `0.853146%`, or an absolute criterion's value rounded: `15368172.000000`. */
  criterion: string;
  max_deviation: number;
  slope: number;
  data: { bw_mean: number; iops_mean: number; iops: number[]; bw: number[] };
}

export interface VolbenchSeriesDir {
  iops: number;
  bw_bytes: number;
  clat_mean_ns: number;
  clat_p99_ns: number;
}

export interface VolbenchSeriesPoint {
  t_ms: number;
  dur_ms: number;
  read?: VolbenchSeriesDir;
  write?: VolbenchSeriesDir;
  trim?: VolbenchSeriesDir;
}

export interface VolbenchJob {
  jobname: string;
  groupid: number;
  /** Engine that ran (after any fallback); several joined by "," when instances differ. */
  engine: string;
  /** Index into `volbench.targets`. */
  target: number;
  cancelled: boolean;
  /**
   * I/Os the device never answered: the run gave up waiting for them (on cancel, or 10 s past
   * the job's runtime) and the job's figures stop where they were. Absent when there were none.
   */
  stuck_ios?: number;
  /**
   * The I/O buffers, summed over the entry's instances: their bytes, the bytes the kernel backs
   * with transparent huge pages (looked at from 128 KiB blocks on, where the physical layout of
   * a buffer decides whether an I/O reaches the device whole or split at its segment limit), and
   * whether io_uring registered them (fixedbufs: by default for blocks under 128 KiB, never in
   * fio unless asked). Absent from results stored before volbench reported it.
   */
  buffers?: { bytes: number; huge_page_bytes: number; registered: boolean };
  /**
   * Whether io_uring registered the target's file (registerfiles: by default, never in fio
   * unless asked). Registered buffers and files save the kernel a page pinning and a file lookup
   * per I/O, and can change the figures; the normal text's job line says so. Absent from results
   * stored before volbench reported it.
   */
  registered_files?: boolean;
  error_message: string;
  /** The system call that failed ("pwrite", "io_uring_enter", "verify"), or "". */
  error_syscall: string;
  /** Job instances summed into this entry: fio's "jobs=" in its normal output. */
  members: number;
  /** The thread id of its first instance, which fio's normal output prints as pid= (0: none ran). */
  tid?: number;
  /**
   * The measured period of its longest instance, ns: fio's runtime is whole milliseconds, too
   * coarse for a probe of a few tens of them.
   */
  runtime_ns?: number;
  /**
   * Files the job created or extended before its I/O (fio's "Laying out IO file"), a read job's
   * included: what was there, in bytes, and what it was made. Absent when it laid out nothing.
   */
  laid_out?: Array<{ path: string; from_bytes: number; to_bytes: number }>;
  /**
   * What the job did otherwise than its options say, in fio's words where fio warns (e.g. "Any use
   * of blockalign= turns off randommap"). Absent when there is nothing to say.
   */
  notes?: string[];
  series: VolbenchSeriesPoint[];
  /** Suites only: this test's value in every loop, their median, and which loop the entry is. */
  loops?: VolbenchJobLoops;
  /** Given the volume (--volume): what it should deliver to this job, and what it did. */
  entitlement?: VolbenchEntitlement;
  /** Findings on the job's own series: the burst cliff (analysis/burst.ts). */
  analysis?: VolbenchJobAnalysis;
}

/** What the catalog says a volume should deliver to a job, against what the job measured. */
export interface VolbenchEntitlement {
  /** The job's average I/O size, bytes (its bytes over its I/Os). */
  bs: number;
  expected_iops: number;
  expected_bw_bytes: number;
  measured_iops: number;
  measured_bw_bytes: number;
  /** measured / expected IOPS. */
  ratio: number;
  /** The limit that binds, or `latency`: too few I/Os in flight to reach any limit. */
  bound_by: string;
  /** With `latency`: the I/Os in flight the expected IOPS need at the measured latency. */
  depth_needed?: number;
}

/** The volume and instance a run measured (--volume, --instance). */
export interface VolbenchCloud {
  provider: string;
  region?: string;
  availability_zone?: string;
  instance_type?: string;
  volume?: { id?: string; type: string; size_gib: number; iops?: number; throughput_mibps?: number };
  /** The volume's monthly price in `region` when the run was made, from the prices in use. */
  price?: { usd_per_month: number; as_of: string; source: string };
}

/** Per-direction figures of one loop of a suite test (or their median). */
export interface VolbenchLoopDir {
  iops: number;
  bw_bytes: number;
  clat_mean_ns: number;
  clat_p99_ns: number;
  lat_mean_ns: number;
}

export interface VolbenchLoopValues {
  /** 1-based. */
  loop: number;
  read?: VolbenchLoopDir;
  write?: VolbenchLoopDir;
  trim?: VolbenchLoopDir;
}

export interface VolbenchJobLoops {
  count: number;
  /** The loop whose fio entry the document holds (1-based). */
  best: number;
  median: Omit<VolbenchLoopValues, 'loop'>;
  values: VolbenchLoopValues[];
}

/** Which suite made the document and how. */
export interface VolbenchSuiteInfo {
  name: string;
  /** The suite's fio job file. */
  file: string;
  /** Runs of each test; the document holds the best. */
  loops: number;
  /** fio runs made in all (tests x loops). */
  runs: number;
}

/** One `--assert` and its outcome. Numbers are in `unit`: IOPS, B/s, B, ns or errno. */
export interface VolbenchAssertion {
  expr: string;
  job: string;
  dir: 'read' | 'write' | 'trim' | 'sync' | 'mixed' | null;
  metric: string;
  op: '>=' | '<=' | '>' | '<' | '==' | '!=';
  wanted: number;
  measured: number | null;
  passed: boolean;
  unit: string;
  message: string;
}

/** TargetIdentity with snake_case keys. */
export interface VolbenchTarget {
  path: string;
  device: string | null;
  disk: string | null;
  model: string | null;
  serial: string | null;
  ebs_volume_id: string | null;
  vendor: string | null;
  size_bytes: number;
  logical_block_size: number;
  physical_block_size: number;
  rotational: boolean | null;
  scheduler: string | null;
  filesystem: string | null;
  mount_point: string | null;
  is_block_device: boolean;
  kernel: string;
}

export interface VolbenchSection {
  version: string;
  kernel: string;
  targets: VolbenchTarget[];
  /** One per entry of `jobs`, same order. */
  jobs: VolbenchJob[];
  /**
   * The jobs that ran, as a fio job file: every option of every job, after volbench applied the
   * caller's default target and runtime budget; for a suite or an analysis, every run's jobs in
   * order (report/job-file.ts). Null when a value cannot be written in a job file (a ';' or '#'
   * in a description, say) or the runs hold more jobs than one job file may.
   */
  job_file?: string | null;
  /** Set by `volbench suite` / runSuite. */
  suite?: VolbenchSuiteInfo;
  /** Set when assertions were judged (`--assert`). */
  assertions?: VolbenchAssertion[];
  /** Set by the analyses (`volbench sweep`, `uniformity`, `rotational`). */
  sweep?: VolbenchSweep;
  uniformity?: VolbenchUniformity;
  rotational?: VolbenchRotational;
  /** The volume and instance behind the run, when known (--volume, --instance). */
  cloud?: VolbenchCloud;
}

/** fio's JSON document as fio prints it; the formatters accept it with or without "volbench". */
export interface FioJson {
  'fio version': string;
  timestamp: number;
  timestamp_ms: number;
  time: string;
  'global options'?: Record<string, string>;
  jobs: FioJob[];
  disk_util?: DiskUtil[];
  /** volbench's own key; absent in fio's output. */
  volbench?: VolbenchSection;
}

/** What buildReport returns: fio's document plus the "volbench" key, always present. */
export interface FioResult extends FioJson {
  volbench: VolbenchSection;
}
