/**
 * fio's `struct io_stat`: count, extremes, Welford mean and sum of squared deviations (S), and
 * the two ways stat.c combines them when it sums thread stats.
 */
import type { NativeLatStats, NativeSampleStats } from '../engine/native-types.js';

export interface IoStat {
  samples: number;
  min: number;
  max: number;
  mean: number;
  S: number;
}

export function emptyIoStat(): IoStat {
  return { samples: 0, min: Infinity, max: 0, mean: 0, S: 0 };
}

export function ioStatFromNative(s: NativeLatStats | NativeSampleStats): IoStat {
  if (!s || s.n <= 0) return emptyIoStat();
  return { samples: s.n, min: s.min, max: s.max, mean: s.mean, S: s.m2 };
}

/**
 * Latencies: the parallel form of Welford's method (Chan et al.), as stat.c's __sum_stat, so
 * merged mean and stddev equal those of all samples taken together.
 */
export function mergeParallel(dst: IoStat, src: IoStat): void {
  if (src.samples === 0) return;
  dst.min = Math.min(dst.min, src.min);
  dst.max = Math.max(dst.max, src.max);
  if (dst.samples === 0) {
    dst.mean = src.mean;
    dst.S = src.S;
  } else {
    const total = dst.samples + src.samples;
    const delta = src.mean - dst.mean;
    dst.mean = (src.mean * src.samples + dst.mean * dst.samples) / total;
    dst.S = src.S + dst.S + (delta * delta * (dst.samples * src.samples)) / total;
  }
  dst.samples += src.samples;
}

/**
 * bw and iops samples: stat.c's sum_stat with pure_sum adds every field (min to min, mean to
 * mean, S to S, counts to counts), so a group's bw_min is the sum of its jobs' minimums. fio
 * does this on purpose ("we should just add those up"); the stddev it then prints,
 * sqrt(ΣS / (Σn − 1)), is only an indication.
 */
export function mergePureSum(dst: IoStat, src: IoStat): void {
  if (src.samples === 0) return;
  if (dst.samples === 0) {
    Object.assign(dst, src);
    return;
  }
  dst.min += src.min;
  dst.max += src.max;
  dst.samples += src.samples;
  dst.mean += src.mean;
  dst.S += src.S;
}

/** stat.c's calc_lat: undefined when there are no samples; stddev = sqrt(S / (n − 1)). */
export function calcLat(s: IoStat): { min: number; max: number; mean: number; dev: number } | undefined {
  if (s.samples === 0) return undefined;
  const dev = s.samples > 1 ? Math.sqrt(Math.max(0, s.S) / (s.samples - 1)) : 0;
  return { min: s.min, max: s.max, mean: s.mean, dev };
}
