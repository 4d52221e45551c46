/**
 * A job's EBS statistics: two reads of the page (before and after its stage), as the deltas a
 * result carries (fio-output/ebs-stats.ts). Counters only grow while a volume stays attached; one
 * that went back (detached and attached again meanwhile) reads as 0, as disk_util does.
 */
import type { EbsExceeded, EbsLatencyBin, EbsStatsJob } from '../fio-output/ebs-stats.js';
import type { EbsLogPage, EbsPageCounter } from './ebs-log-page.js';

/** A decoded page, when it was read (performance.now() ms) and from where. */
export interface EbsPageAt {
  source: 'nvme' | 'emulated';
  device: string;
  page: EbsLogPage;
  atMs: number;
}

function grown(before: EbsLogPage, after: EbsLogPage, key: EbsPageCounter): number {
  return Math.max(0, after[key] - before[key]);
}

/** Each bin of `after` less the same bin (same bounds) of `before`. */
function binsGrown(before: EbsLatencyBin[], after: EbsLatencyBin[]): EbsLatencyBin[] {
  return after.map((bin) => {
    const was = before.find((b) => b.lower_us === bin.lower_us && b.upper_us === bin.upper_us)?.count ?? 0;
    return { lower_us: bin.lower_us, upper_us: bin.upper_us, count: Math.max(0, bin.count - was) };
  });
}

/** A share of the elapsed time, 0 to 1, to four places. */
function share(us: number, elapsedUs: number): number {
  return elapsedUs > 0 ? Math.round(Math.min(1, us / elapsedUs) * 1e4) / 1e4 : 0;
}

export function ebsStatsDelta(before: EbsPageAt, after: EbsPageAt): EbsStatsJob {
  const a = before.page;
  const b = after.page;
  const elapsedUs = Math.max(0, Math.round((after.atMs - before.atMs) * 1000));
  const exceeded: EbsExceeded = {
    volume_iops: grown(a, b, 'ebs_volume_performance_exceeded_iops'),
    volume_throughput: grown(a, b, 'ebs_volume_performance_exceeded_tp'),
    instance_iops: grown(a, b, 'ec2_instance_ebs_performance_exceeded_iops'),
    instance_throughput: grown(a, b, 'ec2_instance_ebs_performance_exceeded_tp'),
  };
  return {
    source: after.source,
    device: after.device,
    page: b.page,
    elapsed_us: elapsedUs,
    exceeded_us: exceeded,
    exceeded_share: {
      volume_iops: share(exceeded.volume_iops, elapsedUs),
      volume_throughput: share(exceeded.volume_throughput, elapsedUs),
      instance_iops: share(exceeded.instance_iops, elapsedUs),
      instance_throughput: share(exceeded.instance_throughput, elapsedUs),
    },
    read_ops: grown(a, b, 'total_read_ops'),
    write_ops: grown(a, b, 'total_write_ops'),
    read_bytes: grown(a, b, 'total_read_bytes'),
    write_bytes: grown(a, b, 'total_write_bytes'),
    read_time_us: grown(a, b, 'total_read_time'),
    write_time_us: grown(a, b, 'total_write_time'),
    read_io_latency_histogram: binsGrown(a.read_io_latency_histogram, b.read_io_latency_histogram),
    write_io_latency_histogram: binsGrown(a.write_io_latency_histogram, b.write_io_latency_histogram),
  };
}
