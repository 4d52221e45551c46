/**
 * The best point of a concurrency sweep: the one that maximises the weighted harmonic mean of
 * throughput and the reciprocal of latency, each normalised to the sweep's best,
 *
 *   score = T·L / (α·L + (1−α)·T)     (= 1 / (α/T + (1−α)/L))
 *
 * T = IOPS / the sweep's highest IOPS, L = (1 / latency) / (1 / the lowest latency). α weighs
 * throughput against latency: 1 picks the highest IOPS whatever it costs, 0 the lowest latency
 * (usually depth 1); the default 0.8 favours throughput until latency grows much faster than it.
 */
export const DEFAULT_ALPHA = 0.8;

export interface CurvePoint {
  iops: number;
  /** The latency the score uses (the mean completion latency), ns. */
  latencyNs: number;
}

export interface PointScore {
  /** Throughput normalised to the best point's, 0..1. */
  throughput: number;
  /** Reciprocal latency normalised to the best point's, 0..1. */
  latency: number;
  score: number;
}

/** The weighted harmonic mean of two normalised values; 0 when either is 0. */
export function harmonicScore(t: number, l: number, alpha: number): number {
  const denominator = alpha * l + (1 - alpha) * t;
  return t > 0 && l > 0 && denominator > 0 ? (t * l) / denominator : 0;
}

/** Each point's normalised throughput, latency and score. Points without I/O score 0. */
export function scorePoints(points: readonly CurvePoint[], alpha: number = DEFAULT_ALPHA): PointScore[] {
  const bestIops = Math.max(0, ...points.map((p) => p.iops));
  const usable = points.filter((p) => p.iops > 0 && p.latencyNs > 0);
  const bestLatency = usable.length ? Math.min(...usable.map((p) => p.latencyNs)) : 0;
  return points.map((p) => {
    const throughput = bestIops > 0 ? p.iops / bestIops : 0;
    const latency = p.iops > 0 && p.latencyNs > 0 ? bestLatency / p.latencyNs : 0;
    return { throughput, latency, score: harmonicScore(throughput, latency, alpha) };
  });
}

/** Index of the highest score (the first of equals: the shallower point), or -1 when none scores. */
export function optimumIndex(scores: readonly PointScore[]): number {
  let best = -1;
  scores.forEach((s, i) => {
    if (s.score > 0 && (best < 0 || s.score > scores[best].score)) best = i;
  });
  return best;
}
