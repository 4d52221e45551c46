/**
 * The percentage tables of a job: IO depths (stat_calc_dist) and the latency buckets
 * latency_ns / latency_us / latency_ms (stat_calc_lat), with fio's keys and rounding floors.
 */
import { HIST_BUCKETS, bucketValue } from './histogram.js';

/** fio's stat_calc_dist: percent of `total`; a non-zero share under 0.1 shows as 0.1. */
export function depthPercents(counts: readonly number[], total: number): number[] {
  return counts.map((c) => {
    if (!total) return 0;
    const pct = (c / total) * 100;
    return pct < 0.1 && c ? 0.1 : pct;
  });
}

/** fio's stat_calc_lat: the same with a 0.01 floor. */
export function latencyPercents(counts: readonly number[], total: number): number[] {
  return counts.map((c) => {
    if (!total) return 0;
    const pct = (c / total) * 100;
    return pct < 0.01 && c ? 0.01 : pct;
  });
}

export const DEPTH_LEVEL_KEYS = ['1', '2', '4', '8', '16', '32', '>=64'];
export const DEPTH_CALL_KEYS = ['0', '4', '8', '16', '32', '64', '>=64'];
export const LAT_KEYS = ['2', '4', '10', '20', '50', '100', '250', '500', '750', '1000'];
export const LAT_MS_KEYS = [...LAT_KEYS, '2000', '>=2000'];

/** Upper bounds (exclusive) of io_u.c's io_u_mark_lat_* switch cases, per unit. */
const BOUNDS = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000];

function boundIndex(v: number): number {
  const i = BOUNDS.findIndex((b) => v < b);
  return i < 0 ? BOUNDS.length : i;
}

export interface LatencyCounts {
  ns: number[];
  us: number[];
  ms: number[];
}

/**
 * fio counts each I/O's clat into these buckets as it completes (io_u.c io_u_mark_latency); we
 * have the clat histogram instead, so each histogram bucket counts at its reported value. Bucket
 * edges that are not multiples of the histogram's resolution (10 µs, 20 µs, ...) can move a few
 * I/Os to the neighbouring bucket.
 */
export function latencyCounts(clatHists: ReadonlyArray<ArrayLike<number>>): LatencyCounts {
  const counts: LatencyCounts = { ns: new Array(10).fill(0), us: new Array(10).fill(0), ms: new Array(12).fill(0) };
  for (const hist of clatHists) {
    for (let i = 0; i < HIST_BUCKETS; i++) {
      const c = hist[i] ?? 0;
      if (!c) continue;
      const ns = bucketValue(i);
      if (ns < 1000) counts.ns[boundIndex(ns)] += c;
      else if (ns < 1_000_000) counts.us[boundIndex(Math.floor(ns / 1000))] += c;
      else {
        const ms = Math.floor(ns / 1_000_000);
        counts.ms[ms < 1000 ? boundIndex(ms) : ms < 2000 ? 10 : 11] += c;
      }
    }
  }
  return counts;
}

/** Zips keys and values into an object in key order. */
export function keyed(keys: readonly string[], values: readonly number[]): Record<string, number> {
  const out: Record<string, number> = {};
  keys.forEach((k, i) => (out[k] = values[i] ?? 0));
  return out;
}
