/**
 * Seek and rotation from latency samples with a known answer: jumps generated as a disk makes
 * them (seek + a uniform wait for the sector, noise, a few outliers), then estimated back.
 */
import { describe, expect, it } from 'vitest';

import { estimateRotation, madFilter, median, quantile } from '../../src/findings/rotational-stats.js';
import { requires } from '../helpers/requires.js';

requires();

/** Deterministic uniform numbers in [0, 1). */
function generator(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

/** Normal noise by Box-Muller. */
function noise(random: () => number, sigma: number): number {
  return sigma * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

function jumps(n: number, seekNs: number, revolutionNs: number, random: () => number, outliers: number): number[] {
  const out = Array.from({ length: n }, () => seekNs + random() * revolutionNs + noise(random, 50_000));
  // Outliers: requests that waited behind something else, several revolutions long.
  for (let i = 0; i < outliers; i++) out[Math.floor(random() * n)] = seekNs + 5 * revolutionNs + random() * 20e6;
  return out;
}

describe('MAD filtering', () => {
  it('drops values far from the median and keeps the rest', () => {
    const { kept, dropped } = madFilter([10, 11, 12, 11, 10, 12, 11, 500, -300]);
    expect(dropped).toBe(2);
    expect(kept.sort((a, b) => a - b)).toEqual([10, 10, 11, 11, 11, 12, 12]);
  });

  it('keeps a uniform sample whole', () => {
    const values = Array.from({ length: 101 }, (_, i) => i);
    expect(madFilter(values).dropped).toBe(0);
  });

  it('computes medians and interpolated quantiles', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(quantile([0, 10], 0.25)).toBe(2.5);
  });
});

describe('estimateRotation', () => {
  for (const [rpm, seekMs, trackMs] of [[7200, 15, 1], [5400, 22, 1.5], [15000, 7, 0.4]] as const) {
    it(`finds ${rpm} RPM, a ${seekMs} ms full stroke and a ${trackMs} ms track-to-track seek`, () => {
      const random = generator(rpm);
      const revolution = 60e9 / rpm;
      const long = jumps(400, seekMs * 1e6, revolution, random, 12);
      const short = jumps(400, trackMs * 1e6, revolution, random, 12);
      const e = estimateRotation(long, short);
      expect(e.rpm! / rpm).toBeGreaterThan(0.97);
      expect(e.rpm! / rpm).toBeLessThan(1.03);
      expect(Math.abs(e.revolutionNs! - revolution)).toBeLessThan(0.03 * revolution);
      expect(Math.abs(e.fullStrokeSeekNs! - seekMs * 1e6)).toBeLessThan(0.03 * revolution);
      expect(Math.abs(e.trackToTrackNs! - trackMs * 1e6)).toBeLessThan(0.03 * revolution);
      expect(e.longOutliers).toBeGreaterThanOrEqual(10);
      expect(e.shortOutliers).toBeGreaterThanOrEqual(10);
    });
  }

  it('says nothing from too few samples', () => {
    const e = estimateRotation([1e6, 2e6], [1e6]);
    expect(e.revolutionNs).toBeNull();
    expect(e.rpm).toBeNull();
    expect(e.fullStrokeSeekNs).toBeNull();
  });
});
