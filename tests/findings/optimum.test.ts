/**
 * The sweep's arithmetic without I/O: the weighted harmonic mean and its optimum on curves with
 * a known answer, the early stop, and the layout of uniformity probes.
 */
import { describe, expect, it } from 'vitest';

import { harmonicScore, optimumIndex, scorePoints } from '../../src/findings/optimum.js';
import { stopReason, sweepSection, sweepValues } from '../../src/analysis/sweep.js';
import { uniformityLayout } from '../../src/analysis/uniformity.js';
import type { VolbenchSweepPoint } from '../../src/fio-output/analysis-sections.js';
import { requires } from '../helpers/requires.js';

requires();

const MiB = 1024 * 1024;

/** A device of `ceiling` IOPS and `base` ns latency at depth 1: IOPS grow until they meet the ceiling (Little's law). */
function device(depths: number[], baseNs: number, ceiling: number) {
  return depths.map((d) => {
    const iops = Math.min(ceiling, (d * 1e9) / baseNs);
    return { iops, latencyNs: (d * 1e9) / iops };
  });
}

describe('the optimum', () => {
  it('is the weighted harmonic mean T·L / (α·L + (1−α)·T)', () => {
    expect(harmonicScore(1, 1, 0.8)).toBeCloseTo(1, 12);
    expect(harmonicScore(0.5, 1, 0.8)).toBeCloseTo(0.5 / (0.8 + 0.1), 12);
    expect(harmonicScore(1, 0.25, 0.8)).toBeCloseTo(0.25 / (0.2 + 0.2), 12);
    expect(harmonicScore(0, 1, 0.8)).toBe(0);
  });

  it('lands on the knee of a curve that rises then flattens', () => {
    const depths = sweepValues(256);
    // 100us at depth 1, 80k IOPS at most: the knee is at depth 8 (80k = 8 / 100us).
    const points = device(depths, 100_000, 80_000);
    const scores = scorePoints(points, 0.8);
    expect(depths[optimumIndex(scores)]).toBe(8);
    expect(scores[optimumIndex(scores)].score).toBeCloseTo(1 / (0.8 + 0.2 * 1), 12);
  });

  it('moves with alpha: all throughput picks the first of the flat top, all latency depth 1', () => {
    const depths = sweepValues(64);
    const points = device(depths, 100_000, 80_000);
    expect(depths[optimumIndex(scorePoints(points, 1))]).toBe(8);
    expect(depths[optimumIndex(scorePoints(points, 0))]).toBe(1);
    // Between the two, more weight on latency never picks a deeper point.
    const picks = [0.2, 0.5, 0.8, 0.95].map((a) => depths[optimumIndex(scorePoints(points, a))]);
    expect([...picks].sort((a, b) => a - b)).toEqual(picks);
  });

  it('scores points without I/O 0, and finds none when no point did I/O', () => {
    const scores = scorePoints([{ iops: 0, latencyNs: 0 }, { iops: 1000, latencyNs: 1e6 }], 0.8);
    expect(scores[0].score).toBe(0);
    expect(optimumIndex(scores)).toBe(1);
    expect(optimumIndex(scorePoints([{ iops: 0, latencyNs: 0 }], 0.8))).toBe(-1);
  });
});

function point(value: number, iops: number, p99 = 1e6): VolbenchSweepPoint {
  return {
    value, iodepth: value, numjobs: 1, job: `j-qd${value}`, iops, bw_bytes: iops * 4096, clat_mean_ns: (value * 1e9) / iops,
    clat_p50_ns: 0, clat_p99_ns: p99, clat_p999_ns: 0, throughput_norm: 0, latency_norm: 0, score: 0,
  };
}

describe('the sweep', () => {
  it('doubles from 1 up to the highest power of two not above the maximum', () => {
    expect(sweepValues(1)).toEqual([1]);
    expect(sweepValues(256)).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256]);
    expect(sweepValues(100)).toEqual([1, 2, 4, 8, 16, 32, 64]);
  });

  it('stops once IOPS grow less than 5% over two doublings, or p99 passes the limit', () => {
    expect(stopReason([point(1, 1000), point(2, 1900)], null)).toBeNull();
    expect(stopReason([point(1, 1000), point(2, 1900), point(4, 1049)], null)).toBe('flat');
    expect(stopReason([point(1, 1000), point(2, 1900), point(4, 1050)], null)).toBeNull();
    expect(stopReason([point(1, 1000, 2e6)], 1e6)).toBe('max_p99');
  });

  it('reports the optimum with its speedup over the first point', () => {
    const s = sweepSection([point(1, 10_000), point(2, 19_000), point(4, 30_000), point(8, 31_000)],
      { over: 'iodepth', alpha: 0.8, maxDepth: 8, maxP99Ns: null, stopped: 'max_depth' });
    expect(s.max_iops).toBe(31_000);
    expect(s.optimum?.value).toBe(4);
    expect(s.optimum?.speedup).toBeCloseTo(3, 12);
    const best = s.points.reduce((a, b) => (b.score > a.score ? b : a));
    expect(best.value).toBe(4);
  });
});

describe('uniformity layout', () => {
  it('splits the target into even 4 KiB-aligned chunks with a probe at the start of each', () => {
    const l = uniformityLayout(1024 * MiB, 100, 128 * MiB, MiB, false);
    expect(l.probes).toHaveLength(100);
    expect(l.chunkBytes % 4096).toBe(0);
    expect(l.chunkBytes * 100).toBeLessThanOrEqual(1024 * MiB);
    // 10.2 MiB chunks: the probe shrinks to the whole MiBs that fit.
    expect(l.probes[0]).toEqual({ offset: 0, bytes: 10 * MiB });
    expect(l.probes[99].offset).toBe(99 * l.chunkBytes);
  });

  it('covers every byte with initialize, the last chunk taking the rest', () => {
    const l = uniformityLayout(1000 * MiB, 7, 128 * MiB, MiB, true);
    const covered = l.probes.reduce((n, p) => n + p.bytes, 0);
    expect(covered).toBe(1000 * MiB);
    l.probes.slice(1).forEach((p, i) => expect(p.offset).toBe(l.probes[i].offset + l.probes[i].bytes));
  });

  it('refuses more chunks than 4 KiB pieces', () => {
    expect(() => uniformityLayout(64 * 1024, 100, MiB, MiB, false)).toThrow(/cannot be split into 100 chunks/);
  });
});
