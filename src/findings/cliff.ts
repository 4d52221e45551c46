/**
 * A cliff in a rate series: the best split of the series into two flat levels (least squares,
 * one pass over prefix sums), kept only when it is a step down that stays down. A burst bucket
 * running dry looks like that: a level, a drop within a second, a lower level to the end.
 */

/** Fewest points on each side: a level is several seconds at one rate, not a dip of one or two. */
export const MIN_SIDE = 3;
/**
 * The level after must be under this share of the level before. Credit buckets drop far more
 * (gp2 100 GiB: 3,000 → 300 IOPS; st1 and sc1 to a sixth), while a shared or throttled device's
 * drift, a filesystem's writeback or a noisy neighbour seldom take a third off for good.
 */
export const MAX_AFTER_RATIO = 0.7;
/**
 * The step must be this many standard deviations of the points about their levels. A steady
 * slide (a linear ramp) splits best in its middle at about 3.5 σ, so a slide is not a cliff;
 * a real step with 10% noise is 7 σ and more.
 */
export const MIN_STEP_SIGMAS = 4;
/**
 * Share of each side's points that must lie on their side of the halfway rate: a dip that
 * recovers, or a spike, is no cliff, while one mixed second at the edge is allowed for.
 */
export const MIN_SIDE_AGREEMENT = 0.8;

export interface RatePoint {
  /** End of the interval, seconds into the measured period. */
  endS: number;
  /** Interval length, seconds. */
  durS: number;
  /** The rate over the interval (IOPS, MiB/s, ...). */
  rate: number;
}

export interface Cliff {
  /** Index of the first point after the cliff. */
  split: number;
  before: number;
  after: number;
  /** Work above the level after, up to and including the first point after: rate·s. */
  credits: number;
  /** When the level before would have had to stop to do that work, seconds into the period. */
  atS: number;
}

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * A side's level: its median without the point next to the cliff, which holds part of each
 * level when the step falls inside a second, as long as two points remain.
 */
function sideLevel(values: readonly number[], edgeAtEnd: boolean): number {
  if (values.length <= 2) return median(values);
  return median(edgeAtEnd ? values.slice(0, -1) : values.slice(1));
}

/** The split with the least squared error about the two sides' means, sides of MIN_SIDE at least. */
function bestSplit(rates: readonly number[]): { split: number; sse: number } | null {
  const n = rates.length;
  const sum = [0];
  const sq = [0];
  for (const r of rates) {
    sum.push(sum[sum.length - 1] + r);
    sq.push(sq[sq.length - 1] + r * r);
  }
  const sse = (a: number, b: number): number => {
    const s = sum[b] - sum[a];
    return Math.max(0, sq[b] - sq[a] - (s * s) / (b - a));
  };
  let best: { split: number; sse: number } | null = null;
  for (let k = MIN_SIDE; k <= n - MIN_SIDE; k++) {
    const e = sse(0, k) + sse(k, n);
    if (!best || e < best.sse) best = { split: k, sse: e };
  }
  return best;
}

/** The cliff in `points`, or null for a flat, noisy, rising, sliding or recovering series. */
export function findCliff(points: readonly RatePoint[]): Cliff | null {
  const rates = points.map((p) => p.rate);
  const found = bestSplit(rates);
  if (!found) return null;
  const { split } = found;
  const beforeMean = rates.slice(0, split).reduce((a, b) => a + b, 0) / split;
  const afterMean = rates.slice(split).reduce((a, b) => a + b, 0) / (rates.length - split);
  if (!(beforeMean > 0) || afterMean >= MAX_AFTER_RATIO * beforeMean) return null;
  const sigma = Math.sqrt(found.sse / Math.max(1, rates.length - 2));
  if (beforeMean - afterMean < MIN_STEP_SIGMAS * sigma) return null;
  const half = (beforeMean + afterMean) / 2;
  const agree = (side: number[], above: boolean): boolean =>
    side.filter((r) => (above ? r > half : r < half)).length >= MIN_SIDE_AGREEMENT * side.length;
  if (!agree(rates.slice(0, split), true) || !agree(rates.slice(split), false)) return null;
  const before = sideLevel(rates.slice(0, split), true);
  const after = sideLevel(rates.slice(split), false);
  if (!(before > after) || after >= MAX_AFTER_RATIO * before) return null;
  // The work above the level after, the mixed second after the edge included; spread at the
  // level before it gives the time the level before ended (inside a second, not on its edge).
  let credits = 0;
  for (let i = 0; i <= split; i++) credits += (points[i].rate - after) * points[i].durS;
  const startS = points[0].endS - points[0].durS;
  return { split, before, after, credits, atS: startS + credits / (before - after) };
}

/** The series' median rate, the level of a series without a cliff. */
export function medianRate(points: readonly RatePoint[]): number {
  return points.length ? median(points.map((p) => p.rate)) : 0;
}
