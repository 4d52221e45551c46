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
  /** The weighted harmonic mean of the two (analysis/optimum.ts). */
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
