/**
 * What a result says of a Nitro volume's own statistics (NVMe log page 0xD0, src/device/
 * ebs-log-page.ts), per job: the page read before and after the job's stage, as deltas. The
 * exceeded times say which limit held the job back, measured by EBS rather than modelled:
 * a job bound by a limit shows that limit exceeded for close to its whole time.
 *
 * The shape of `volbench.jobs[i].ebs_stats`, `volbench.ebs_stats_unavailable` and
 * `volbench.cloud.emulation`, as the result schema (fio-result.ts) documents them.
 */

/** One bin of a latency histogram: I/Os that completed in [lower_us, upper_us). */
export interface EbsLatencyBin {
  lower_us: number;
  upper_us: number;
  count: number;
}

/** Per limit: the volume's provisioned IOPS and throughput, the instance's EBS IOPS and throughput. */
export interface EbsExceeded {
  volume_iops: number;
  volume_throughput: number;
  instance_iops: number;
  instance_throughput: number;
}

export interface EbsStatsJob {
  /** nvme: read from the device; emulated: published by an emulated volume (the rehearsal's test seam). */
  source: 'nvme' | 'emulated';
  /** The device the job's target resolves to ("nvme1n1"). */
  device: string;
  /** Which page: EBS's, or instance store's (whose instance_* limits are the local storage's). */
  page: 'ebs' | 'instance-store';
  /** Time between the two reads, µs. */
  elapsed_us: number;
  /** µs that demand exceeded each limit over the job. */
  exceeded_us: EbsExceeded;
  /** exceeded_us / elapsed_us, 0 to 1. */
  exceeded_share: EbsExceeded;
  read_ops: number;
  write_ops: number;
  read_bytes: number;
  write_bytes: number;
  /** µs spent by completed reads, and by writes. */
  read_time_us: number;
  write_time_us: number;
  read_io_latency_histogram: EbsLatencyBin[];
  write_io_latency_histogram: EbsLatencyBin[];
}

/** The emulation's scale, on a result measured on an emulated volume (rates and times factors). */
export interface CloudEmulation {
  rate: number;
  time: number;
}
