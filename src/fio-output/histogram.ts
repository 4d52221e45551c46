/**
 * fio's log-linear latency histogram (stat.h FIO_IO_U_PLAT_*): 29 groups of 64 buckets. Values
 * below 128 ns have a bucket each; above, the most significant bit picks the group and the next
 * 6 bits the bucket, so a bucket is at most 1/64 of its value wide and its midpoint is off by at
 * most 1/128. The native engine fills histograms with this layout, so percentiles come out as
 * fio's and json+ `bins` are real.
 */
import { HIST_BUCKETS } from '../engine/native-types.js';
import { asFraction } from './exact.js';

const PLAT_BITS = 6;
const PLAT_VAL = 1 << PLAT_BITS;

export { HIST_BUCKETS };

/** Position of the highest set bit of a non-negative integer (0 for 0), past 32 bits too. */
function mostSignificantBit(value: number): number {
  if (value < 2 ** 32) return value === 0 ? 0 : 31 - Math.clz32(value);
  let msb = Math.floor(Math.log2(value));
  // log2 may round across a power of two; settle it exactly.
  while (2 ** msb > value) msb--;
  while (2 ** (msb + 1) <= value) msb++;
  return msb;
}

/** Bucket of a latency in ns; past 2^34 ns everything lands in the last bucket, as in fio. */
export function bucketIndex(ns: number): number {
  const value = Math.max(0, Math.trunc(ns));
  const msb = mostSignificantBit(value);
  if (msb <= PLAT_BITS) return value;
  const errorBits = msb - PLAT_BITS;
  const base = (errorBits + 1) << PLAT_BITS;
  const offset = Math.floor(value / 2 ** errorBits) & (PLAT_VAL - 1);
  return Math.min(base + offset, HIST_BUCKETS - 1);
}

/** The value a bucket reports: its midpoint, truncated to an integer as fio's plat_idx_to_val. */
export function bucketValue(index: number): number {
  if (index < PLAT_VAL << 1) return index;
  const errorBits = (index >> PLAT_BITS) - 1;
  const base = 2 ** (errorBits + PLAT_BITS);
  const k = index % PLAT_VAL;
  return base + Math.trunc((k + 0.5) * 2 ** errorBits);
}

/**
 * Percentiles the way fio's calc_clat_percentiles finds them: walk the buckets adding counts and
 * report the value of the first bucket where the running count reaches p/100·n, with n the
 * sample count of the latency (not clamped to its min/max). Returns one value per entry of
 * `list`, in the order given. Should the histogram hold fewer than n samples, percentiles never
 * reached report the last non-empty bucket (fio leaves them undefined).
 */
export function percentiles(hist: ArrayLike<number>, n: number, list: readonly number[]): number[] {
  const order = list.map((p, i) => ({ i, reached: thresholdTest(p, n) }));
  order.sort((a, b) => list[a.i] - list[b.i]);
  const values = new Array<number>(list.length).fill(-1);
  let next = 0;
  let sum = 0;
  let lastSeen = 0;
  for (let bucket = 0; bucket < HIST_BUCKETS && next < order.length; bucket++) {
    const count = hist[bucket] ?? 0;
    sum += count;
    if (count > 0) lastSeen = bucket;
    while (next < order.length && order[next].reached(sum)) {
      values[order[next].i] = bucketValue(bucket);
      next++;
    }
  }
  return values.map((v) => (v < 0 ? bucketValue(lastSeen) : v));
}

/**
 * `count >= p/100·n` decided exactly (count·100 ≥ p·n with p's exact binary value). fio computes
 * the bound in x87 long double under -ffast-math; checked against fio 3.33 runs, that agrees with
 * the exact comparison, while plain doubles pick another bucket now and then (p = 99.95 with
 * n = 2000, p = 55.5 with n = 200). Doubles decide when far from the bound.
 */
function thresholdTest(percent: number, n: number): (count: number) => boolean {
  const approx = (percent / 100) * n;
  const slack = 1e-9 * Math.max(1, approx);
  const [num, den] = asFraction(Math.abs(percent));
  const bound = num * BigInt(Math.trunc(n));
  return (count) => {
    if (count < approx - slack) return false;
    if (count > approx + slack) return true;
    return BigInt(Math.trunc(count)) * 100n * den >= bound;
  };
}

/** Adds `src` into `dst` bucket by bucket (fio sums instances' histograms the same way). */
export function mergeHist(dst: Float64Array, src: ArrayLike<number> | undefined): Float64Array {
  if (!src) return dst;
  for (let i = 0; i < HIST_BUCKETS; i++) dst[i] += src[i] ?? 0;
  return dst;
}

export function emptyHist(): Float64Array {
  return new Float64Array(HIST_BUCKETS);
}

/** json+'s `bins`: `{"<bucket value>": count}` for the non-empty buckets, in bucket order. */
export function histBins(hist: ArrayLike<number>): Record<string, number> {
  const bins: Record<string, number> = {};
  for (let i = 0; i < HIST_BUCKETS; i++) {
    const count = hist[i] ?? 0;
    if (count) bins[String(bucketValue(i))] = count;
  }
  return bins;
}
