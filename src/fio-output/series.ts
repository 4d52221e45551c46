/**
 * volbench's per-interval time series (about one point a second), the thing fio's JSON lacks
 * and cloud volumes need: burst-credit cliffs show as a step in iops and bw_bytes.
 */
import type { NativeSeriesPoint } from '../engine/native-types.js';
import type { VolbenchSeriesDir, VolbenchSeriesPoint } from './fio-result.js';
import { mulDiv } from './printf.js';

const DIR_NAMES = ['read', 'write', 'trim'] as const;

interface DirAcc {
  ios: number;
  bytes: number;
  /** Σ clat mean · ios, for the ios-weighted mean. */
  clatWeighted: number;
  clatP99Ns: number;
}

interface PointAcc {
  tMs: number;
  durMs: number;
  dirs: [DirAcc, DirAcc, DirAcc];
}

function emptyPoint(p: NativeSeriesPoint): PointAcc {
  const dir = (): DirAcc => ({ ios: 0, bytes: 0, clatWeighted: 0, clatP99Ns: 0 });
  return { tMs: p.tMs, durMs: p.durMs, dirs: [dir(), dir(), dir()] };
}

/**
 * Sums the instances of one job entry interval by interval (same index = same second of each
 * instance's measured period). ios and bytes add up and the clat mean is weighted by ios. The
 * p99 is the largest of the instances' p99s: at least 99% of every instance's I/Os, hence of
 * all of them, completed within it, so it is an upper bound of the true merged p99 (the exact
 * value would need per-interval histograms).
 */
export function mergeSeries(instances: ReadonlyArray<readonly NativeSeriesPoint[]>): PointAcc[] {
  const merged: PointAcc[] = [];
  for (const series of instances) {
    series.forEach((p, i) => {
      const acc = (merged[i] ??= emptyPoint(p));
      p.dirs.forEach((d, k) => {
        const a = acc.dirs[k];
        a.ios += d.ios;
        a.bytes += d.bytes;
        a.clatWeighted += d.clatMeanNs * d.ios;
        if (d.ios > 0) a.clatP99Ns = Math.max(a.clatP99Ns, d.clatP99Ns);
      });
    });
  }
  return merged;
}

function dirPoint(a: DirAcc, durMs: number): VolbenchSeriesDir {
  return {
    iops: durMs ? (a.ios * 1000) / durMs : 0,
    bw_bytes: durMs ? mulDiv(a.bytes, 1000, durMs) : 0,
    clat_mean_ns: a.ios ? a.clatWeighted / a.ios : 0,
    clat_p99_ns: a.clatP99Ns,
  };
}

/** JSON points carrying the directions the job does (`dirs[d]` true), zeros included. */
export function seriesJson(points: readonly PointAcc[], dirs: readonly boolean[]): VolbenchSeriesPoint[] {
  return points.map((p) => {
    const out: VolbenchSeriesPoint = { t_ms: p.tMs, dur_ms: p.durMs };
    DIR_NAMES.forEach((name, d) => {
      if (dirs[d]) out[name] = dirPoint(p.dirs[d], p.durMs);
    });
    return out;
  });
}
