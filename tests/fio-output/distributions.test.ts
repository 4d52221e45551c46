/**
 * latency_ns/us/ms from clat histograms. fio counts each I/O's exact clat; the report only has
 * the histogram, so a bucket that straddles a bound (10 µs, 250 µs, 500 µs, ...) counts on one
 * side. Against fio's json+ samples the tables agree to within 0.1 percentage point, and exactly
 * below 1 µs where buckets are 1–8 ns wide and every bound falls on a bucket edge.
 */
import { describe, expect, it } from 'vitest';
import { bucketIndex, emptyHist } from '../../src/fio-output/index.js';
import { depthPercents, latencyCounts, latencyPercents } from '../../src/fio-output/distributions.js';
import { formatFixed } from '../../src/fio-output/printf.js';
import { requires } from '../helpers/requires.js';
import { fixtureText, jsonDocuments, parseResult } from './samples.js';

requires();

const SAMPLES = [
  'reference/02-randread-qd32-iouring.jsonplus.json',
  'reference/18-slat-clat-lat-percentiles-jsonplus.json',
  'n1-randrw-nj2-group_reporting.jsonplus+normal.txt',
  'p-number_ios2000.jsonplus.json',
];

describe('latency distribution from the clat histogram', () => {
  for (const file of SAMPLES) {
    it(`is within 0.1 point of fio's (${file})`, () => {
      const job = parseResult(jsonDocuments(fixtureText(file))[0]).jobs[0];
      const dirs = [job.read!, job.write!, job.trim!];
      const hists = dirs.map((d) => {
        const h = emptyHist();
        for (const [ns, count] of Object.entries(d.clat_ns.bins ?? {})) h[bucketIndex(Number(ns))] += count;
        return h;
      });
      const total = dirs.reduce((s, d) => s + d.total_ios, 0);
      const counts = latencyCounts(hists);
      const sixDigits = (v: number[]) => v.map((x) => formatFixed(x, 6));
      expect(sixDigits(latencyPercents(counts.ns, total))).toEqual(sixDigits(Object.values(job.latency_ns)));
      const close = (ours: number[], fio: Record<string, number>) =>
        ours.forEach((v, i) => expect(Math.abs(v - Object.values(fio)[i])).toBeLessThanOrEqual(0.1));
      close(latencyPercents(counts.us, total), job.latency_us);
      close(latencyPercents(counts.ms, total), job.latency_ms);
    });
  }

  it('counts a bucket at its reported value: ≥ 2000 ms goes to the last key', () => {
    const h = emptyHist();
    h[bucketIndex(999)] = 1; // ns "1000"
    h[bucketIndex(1000)] = 1; // 1 µs: us "2"
    h[bucketIndex(1_500_000_000)] = 1; // reported as 1501560832 ns: ms "2000"
    h[bucketIndex(30e9)] = 1; // last bucket: ms ">=2000"
    const c = latencyCounts([h]);
    expect([c.ns[9], c.us[0], c.ms[10], c.ms[11]]).toEqual([1, 1, 1, 1]);
  });
});

describe("fio's percentage floors", () => {
  it('shows a non-zero share under 0.1 as 0.1 for depths and under 0.01 as 0.01 for latencies', () => {
    expect(depthPercents([1, 9999, 0], 10000)).toEqual([0.1, (9999 / 10000) * 100, 0]);
    expect(latencyPercents([1, 99_999, 0], 100_000)).toEqual([0.01, (99_999 / 100_000) * 100, 0]);
    expect(depthPercents([1, 2], 0)).toEqual([0, 0]);
  });
});
