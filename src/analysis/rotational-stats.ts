/**
 * The statistics of a rotational target's jumps (drvperf's fullstroke and tracktotrack), on
 * latency samples in ns.
 *
 * A read that jumps to a random block waits for the seek, then for the block to come round:
 * a delay uniform between 0 and one revolution. So the latencies of many jumps of one kind are
 * uniform over [seek, seek + revolution], plus noise and a few outliers (a remapped sector, a
 * request that waited behind another). Outliers are dropped first by MAD filtering (more than
 * `k` scaled median absolute deviations from the median); then
 *
 *   revolution  = 2 × the interquartile range of the short jumps (a uniform's IQR is half its width)
 *   RPM         = 60 s / revolution
 *   track-to-track = median of the short jumps − revolution / 2
 *   full-stroke seek = median of the long jumps − revolution / 2
 *
 * (the median of a uniform is its middle). Quartiles rather than min and max: they hold under
 * the noise that widens the extremes.
 */

/** 1.4826 × MAD estimates a normal distribution's standard deviation. */
const MAD_SCALE = 1.4826;
export const DEFAULT_MAD_K = 3;

/** The q-quantile (0..1) of sorted values, linearly interpolated. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

export function median(values: readonly number[]): number {
  return quantile([...values].sort((a, b) => a - b), 0.5);
}

/** Samples within `k` scaled MADs of the median, and how many were dropped. */
export function madFilter(samples: readonly number[], k: number = DEFAULT_MAD_K): { kept: number[]; dropped: number } {
  const finite = samples.filter((x) => Number.isFinite(x));
  if (finite.length === 0) return { kept: [], dropped: samples.length };
  const m = median(finite);
  const mad = median(finite.map((x) => Math.abs(x - m)));
  const limit = k * MAD_SCALE * mad;
  const kept = finite.filter((x) => Math.abs(x - m) <= limit);
  return { kept, dropped: samples.length - kept.length };
}

export interface RotationalEstimate {
  revolutionNs: number | null;
  rpm: number | null;
  fullStrokeSeekNs: number | null;
  trackToTrackNs: number | null;
  longMedianNs: number | null;
  shortMedianNs: number | null;
  longOutliers: number;
  shortOutliers: number;
}

/** Fewer samples than this after filtering say nothing. */
const MIN_SAMPLES = 8;

/** Estimates from the latencies of long (full-stroke) and short (shortest) jumps. */
export function estimateRotation(longNs: readonly number[], shortNs: readonly number[], k: number = DEFAULT_MAD_K): RotationalEstimate {
  const long = madFilter(longNs, k);
  const short = madFilter(shortNs, k);
  const s = [...short.kept].sort((a, b) => a - b);
  const l = [...long.kept].sort((a, b) => a - b);
  const shortMedian = s.length ? quantile(s, 0.5) : null;
  const longMedian = l.length ? quantile(l, 0.5) : null;
  const revolution = s.length >= MIN_SAMPLES ? 2 * (quantile(s, 0.75) - quantile(s, 0.25)) : null;
  const usable = revolution !== null && revolution > 0 ? revolution : null;
  return {
    revolutionNs: usable,
    rpm: usable === null ? null : 60e9 / usable,
    fullStrokeSeekNs: usable === null || longMedian === null || l.length < MIN_SAMPLES ? null : Math.max(0, longMedian - usable / 2),
    trackToTrackNs: usable === null || shortMedian === null ? null : Math.max(0, shortMedian - usable / 2),
    longMedianNs: longMedian,
    shortMedianNs: shortMedian,
    longOutliers: long.dropped,
    shortOutliers: short.dropped,
  };
}
