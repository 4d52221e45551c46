/**
 * EBS's own latency for a job, from the histogram its statistics page keeps (µs bins, deltas
 * over the job): beside volbench's completion latency it shows the network hop apart from the
 * host. A percentile is the upper edge of the bin that holds it: the page gives no finer grain.
 */
import type { EbsLatencyBin, VolbenchEbsStats } from '../fio-output/ebs-stats-section.js';
import type { Dir } from './suite-columns.js';

/** The `p`-th percentile (0–100) of `bins`, µs, or null for an empty histogram. */
export function histogramPercentileUs(bins: readonly EbsLatencyBin[], p: number): number | null {
  const sorted = bins.filter((b) => b.count > 0).sort((a, b) => a.lower_us - b.lower_us);
  const total = sorted.reduce((s, b) => s + b.count, 0);
  if (total === 0) return null;
  const wanted = (p / 100) * total;
  let seen = 0;
  for (const b of sorted) {
    seen += b.count;
    if (seen >= wanted) return b.upper_us;
  }
  return sorted[sorted.length - 1].upper_us;
}

/** EBS's p99 for one direction of a job, µs. */
export function ebsP99Us(ebs: VolbenchEbsStats | undefined, dir: Dir): number | null {
  if (!ebs) return null;
  return histogramPercentileUs(dir === 'read' ? ebs.read_io_latency_histogram : ebs.write_io_latency_histogram, 99);
}
