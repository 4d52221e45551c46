/**
 * The statistics of a rotational target's jumps (drvperf's fullstroke and tracktotrack), on
 * latency samples in ns.
 *
 * A read that jumps to a random block waits for the seek, then for the block to come round:
 * a delay uniform between 0 and one revolution. So the latencies of many jumps of one kind are
 * uniform over [seek, seek + revolution], plus noise and a few outliers (a remapped sector, a
 * request that waited behind another). Outliers are dropped first by MAD filtering (more than
 * `k` scaled median absolute deviations from the median). Then a uniform is fitted to what is
 * left (uniformFit), so
 *
 *   revolution       = the width fitted to the short jumps
 *   RPM              = 60 s / revolution
 *   track-to-track   = the lower end fitted to the short jumps (a jump with no wait for the sector)
 *   full-stroke seek = the lower end fitted to the long jumps
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

/** Fewer samples than this after filtering say nothing. */
const MIN_SAMPLES = 8;

/** Share of the sorted samples left out at each end of the fit. */
const FIT_TRIM = 0.025;

/**
 * The uniform distribution [lower, lower + width] of sorted samples, from their quantiles near
 * the ends: the t and 1−t quantiles of a uniform lie t × width inside it. Near-end quantiles
 * rather than a fit over the middle: for a uniform they vary far less (a middle quantile
 * wanders by about width / (2√n)), and unlike min and max they hold under noise and the few
 * outliers the filter kept. Null with fewer than MIN_SAMPLES.
 */
export function uniformFit(sorted: readonly number[]): { lower: number; width: number } | null {
  if (sorted.length < MIN_SAMPLES) return null;
  const lo = quantile(sorted, FIT_TRIM);
  const hi = quantile(sorted, 1 - FIT_TRIM);
  const width = (hi - lo) / (1 - 2 * FIT_TRIM);
  return { lower: lo - FIT_TRIM * width, width };
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

/** Estimates from the latencies of long (full-stroke) and short (shortest) jumps. */
export function estimateRotation(longNs: readonly number[], shortNs: readonly number[], k: number = DEFAULT_MAD_K): RotationalEstimate {
  const long = madFilter(longNs, k);
  const short = madFilter(shortNs, k);
  const s = [...short.kept].sort((a, b) => a - b);
  const l = [...long.kept].sort((a, b) => a - b);
  const shortFit = uniformFit(s);
  const longFit = uniformFit(l);
  const usable = shortFit !== null && shortFit.width > 0 ? shortFit.width : null;
  return {
    revolutionNs: usable,
    rpm: usable === null ? null : 60e9 / usable,
    fullStrokeSeekNs: usable === null || longFit === null ? null : Math.max(0, longFit.lower),
    trackToTrackNs: usable === null ? null : Math.max(0, shortFit!.lower),
    longMedianNs: l.length ? quantile(l, 0.5) : null,
    shortMedianNs: s.length ? quantile(s, 0.5) : null,
    longOutliers: long.dropped,
    shortOutliers: short.dropped,
  };
}
