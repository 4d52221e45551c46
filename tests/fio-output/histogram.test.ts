import { describe, expect, it } from 'vitest';
import {
  HIST_BUCKETS, bucketIndex, bucketValue, emptyHist, histBins, mergeHist, percentiles,
} from '../../src/fio-output/index.js';
import type { FioLatStats } from '../../src/fio-output/index.js';
import { requires } from '../helpers/requires.js';
import { fixtureText, jsonDocuments, parseResult } from './samples.js';

requires();

/** Every lat object with json+ bins in a sample, with where it was found. */
function binnedLatencies(file: string): Array<{ where: string; lat: FioLatStats }> {
  const found: Array<{ where: string; lat: FioLatStats }> = [];
  const result = parseResult(jsonDocuments(fixtureText(file))[0]);
  result.jobs.forEach((job, j) => {
    for (const dir of ['read', 'write', 'trim', 'mixed'] as const) {
      for (const kind of ['slat_ns', 'clat_ns', 'lat_ns'] as const) {
        const lat = job[dir]?.[kind];
        if (lat?.bins) found.push({ where: `${file} job ${j} ${dir}.${kind}`, lat });
      }
    }
    if (job.sync?.lat_ns.bins) found.push({ where: `${file} job ${j} sync`, lat: job.sync.lat_ns });
  });
  return found;
}

function histFromBins(bins: Record<string, number>): Float64Array {
  const hist = emptyHist();
  for (const [value, count] of Object.entries(bins)) hist[bucketIndex(Number(value))] += count;
  return hist;
}

describe('fio latency histogram layout', () => {
  it('has 1856 buckets and maps values below 128 ns one to one', () => {
    expect(HIST_BUCKETS).toBe(1856);
    for (let v = 0; v < 128; v++) {
      expect(bucketIndex(v)).toBe(v);
      expect(bucketValue(v)).toBe(v);
    }
  });

  it('puts 128..255 ns in 2 ns buckets reported at their midpoint', () => {
    // msb 7: one error bit, group base index 128.
    expect(bucketIndex(128)).toBe(128);
    expect(bucketIndex(129)).toBe(128);
    expect(bucketIndex(130)).toBe(129);
    expect(bucketValue(128)).toBe(129);
    expect(bucketIndex(255)).toBe(191);
  });

  it('reports the bucket values fio prints as json+ bins (sample 02)', () => {
    expect(bucketValue(bucketIndex(481280))).toBe(481280);
    for (const { lat } of binnedLatencies('reference/02-randread-qd32-iouring.jsonplus.json')) {
      for (const v of Object.keys(lat.bins ?? {})) expect(bucketValue(bucketIndex(Number(v)))).toBe(Number(v));
    }
  });

  it('is its own inverse on bucket values and keeps the error within 1/128', () => {
    for (let i = 0; i < HIST_BUCKETS; i++) expect(bucketIndex(bucketValue(i))).toBe(i);
    for (const v of [1000, 4095, 4096, 65_537, 1_000_000, 123_456_789, 2 ** 33 + 12345]) {
      expect(Math.abs(bucketValue(bucketIndex(v)) - v) / v).toBeLessThanOrEqual(1 / 128);
    }
  });

  it('puts everything past 2^34 ns in the last bucket', () => {
    expect(bucketIndex(2 ** 34)).toBe(HIST_BUCKETS - 1);
    expect(bucketIndex(60e9)).toBe(HIST_BUCKETS - 1);
    expect(bucketIndex(2 ** 34 - 1)).toBe(HIST_BUCKETS - 1);
    expect(bucketIndex(2 ** 33)).toBe(28 * 64);
  });

  it('merges histograms bucket by bucket', () => {
    const a = emptyHist();
    const b = emptyHist();
    a[5] = 2;
    b[5] = 3;
    b[700] = 1;
    mergeHist(a, b);
    expect([a[5], a[700], b[5]]).toEqual([5, 1, 3]);
  });

  it('lists non-empty buckets as json+ bins keyed by bucket value', () => {
    const h = emptyHist();
    h[bucketIndex(500_000)] = 7;
    h[3] = 1;
    expect(histBins(h)).toEqual({ '3': 1, [String(bucketValue(bucketIndex(500_000)))]: 7 });
  });
});

describe('percentiles', () => {
  it('report the first bucket where the running count reaches p/100·N', () => {
    const h = emptyHist();
    for (let i = 0; i < 100; i++) h[i] = 1; // 100 samples of 0..99 ns
    expect(percentiles(h, 100, [1, 50, 99, 100])).toEqual([0, 49, 98, 99]);
    expect(percentiles(h, 100, [99, 1])).toEqual([98, 0]);
  });

  it('are not clamped: N larger than the histogram reports the last non-empty bucket', () => {
    const h = emptyHist();
    h[10] = 1;
    expect(percentiles(h, 10, [50])).toEqual([10]);
  });

  const files = [
    'reference/02-randread-qd32-iouring.jsonplus.json',
    'reference/18-slat-clat-lat-percentiles-jsonplus.json',
    'n1-randrw-nj2-group_reporting.jsonplus+normal.txt',
    'p-number_ios200.jsonplus.json',
    'p-number_ios1000.jsonplus.json',
    'p-number_ios2000.jsonplus.json',
  ];
  for (const file of files) {
    it(`rebuilt from json+ bins equal fio's (${file})`, () => {
      const lats = binnedLatencies(file);
      expect(lats.length).toBeGreaterThan(0);
      for (const { where, lat } of lats) {
        const list = Object.keys(lat.percentile ?? {}).map(Number);
        const ours = percentiles(histFromBins(lat.bins ?? {}), lat.N, list);
        expect(ours, where).toEqual(Object.values(lat.percentile ?? {}));
      }
    });
  }

  it('decide bounds that fall on a sample exactly, as fio does (not in doubles)', () => {
    // 200 samples in distinct buckets: 55.5% of 200 = 111 exactly. In doubles 0.555·200 is
    // 111.00000000000001, which would wrongly ask for the 112th sample.
    const h = emptyHist();
    for (let i = 0; i < 200; i++) h[i] = 1;
    expect(percentiles(h, 200, [55.5])).toEqual([110]);
    // 99.95 is stored as 99.9500000000000028…, so its bound over 2000 samples is just above
    // 1999 and needs the 2000th sample; doubles round the product to 1999.
    const g = emptyHist();
    g[0] = 1999;
    g[1] = 1;
    expect(percentiles(g, 2000, [99.95])).toEqual([1]);
  });
});
