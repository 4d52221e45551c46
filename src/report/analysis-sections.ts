/**
 * What the analyses add to fio's document, under `volbench.sweep`, `volbench.uniformity` and
 * `volbench.rotational`. Latencies in ns, bandwidth in bytes/s (sweep) or MB/s (uniformity,
 * 10^6 bytes per second, as drvperf and most disk tools print it).
 */

/** One point of a sweep: one run of the template at one depth or job count. */
export interface VolbenchSweepPoint {
  /** The iodepth or numjobs of the point. */
  value: number;
  iodepth: number;
  numjobs: number;
  /** The point's job entry in the document. */
  job: string;
  iops: number;
  bw_bytes: number;
  clat_mean_ns: number;
  clat_p50_ns: number;
  clat_p99_ns: number;
  clat_p999_ns: number;
  /** IOPS normalised to the sweep's best. */
  throughput_norm: number;
  /** 1 / clat_mean normalised to the sweep's best. */
  latency_norm: number;
  /** The weighted harmonic mean of the two (findings/optimum.ts). */
  score: number;
}

export interface VolbenchSweepOptimum extends VolbenchSweepPoint {
  /** IOPS over the first point's (depth or job count 1). */
  speedup: number;
}

export type SweepStop = 'max_depth' | 'flat' | 'max_p99' | 'cancelled' | 'error';

export interface VolbenchSweep {
  over: 'iodepth' | 'numjobs';
  alpha: number;
  max_depth: number;
  max_p99_ns: number | null;
  /** Why the sweep ended: it reached max_depth, IOPS stopped growing, p99 passed max_p99, ... */
  stopped: SweepStop;
  max_iops: number;
  points: VolbenchSweepPoint[];
  optimum: VolbenchSweepOptimum | null;
}

export interface VolbenchUniformityChunk {
  index: number;
  offset: number;
  bytes: number;
  mbps: number;
  /** The chunk's job entry in the document. */
  job: string;
}

export interface VolbenchUniformity {
  rw: 'read' | 'write';
  /** The whole chunk was read (--initialize): every block of the target once. */
  initialize: boolean;
  target_bytes: number;
  chunk_bytes: number;
  probe_bytes: number;
  min_mbps: number;
  avg_mbps: number;
  max_mbps: number;
  min_offset: number;
  max_offset: number;
  /** max / min. */
  spread: number;
  /** Fewer chunks than asked when the run was cancelled. */
  complete: boolean;
  series: VolbenchUniformityChunk[];
}

export interface VolbenchRotational {
  /** Whether the target says it is rotational (null: it does not say), and whether --force ran it anyway. */
  rotational: boolean | null;
  forced: boolean;
  long_samples: number;
  short_samples: number;
  /** Samples dropped as outliers (MAD filtering). */
  long_outliers: number;
  short_outliers: number;
  revolution_ns: number | null;
  rpm: number | null;
  full_stroke_seek_ns: number | null;
  track_to_track_ns: number | null;
  /**
   * Whether the RPM is one a spinning disk has (3,000 to 20,000): a device that only says it is
   * rotational (a virtual disk) gives figures no platter would.
   */
  plausible: boolean;
  /** Median latency of a long jump and of a short one, as measured. */
  long_median_ns: number | null;
  short_median_ns: number | null;
}

/**
 * The burst analysis of one job's per-second series (`volbench.jobs[].analysis.burst`): whether
 * its rate fell off a cliff, the levels either side, when, and the credits that implies; with
 * the volume known, how that compares with the catalog's burst model.
 */
export interface VolbenchBurst {
  /** Series points analysed (about one a second). */
  points: number;
  /** What the levels are in: IOPS, or MiB/s for a volume whose burst is in throughput (st1, sc1). */
  unit: 'IOPS' | 'MiB/s';
  /** Whether the rate stepped down and stayed down. */
  cliff: boolean;
  /** Seconds into the job's measured period when the level before would have had to stop. */
  cliff_at_s?: number;
  /** The level before the cliff and after it (median of each side), in `unit`. */
  level_before?: number;
  level_after?: number;
  /** Without a cliff: the series' median level, in `unit`. */
  level?: number;
  /**
   * The work done above the level after, up to the cliff: IOPS·s (I/Os) or MiB. For a credit
   * bucket that started full, its size.
   */
  credits?: number;
  /** The volume bursts and the series stayed above its baseline to the end: it measured the burst. */
  never_left_burst?: boolean;
  /** The catalog's burst model of the volume, when the result names one (volbench.cloud.volume). */
  catalog?: VolbenchBurstCatalog;
  /** The finding in a sentence, as the normal text prints it. */
  message: string;
}

export interface VolbenchBurstCatalog {
  /** e.g. "gp2 100 GiB". */
  volume: string;
  /** The catalog's unit of credits: the provider's I/Os (IOPS) or MiB (MiB/s). */
  unit: 'IOPS' | 'MiB/s';
  /** Burst level and baseline, in the provider's units. */
  level: number;
  baseline: number;
  /** Credits in a full bucket. */
  bucket: number;
  /** How long a full bucket lasts at the burst level. */
  seconds_from_full: number;
  /** How many of the provider's I/Os one of the job's counts as (its size against 256 KiB or 1 MiB). */
  counted_per_io: number;
  /** With a cliff: the credits measured (in the provider's I/Os or MiB), and whether they are a full bucket's. */
  credits?: number;
  matches?: boolean;
  /** Without a cliff, above the baseline: the run that would drain a full bucket at the rate seen, seconds. */
  seconds_needed?: number;
}

/** What the analyses of a job's own series add to its entry (`volbench.jobs[].analysis`). */
export interface VolbenchJobAnalysis {
  burst?: VolbenchBurst;
}
