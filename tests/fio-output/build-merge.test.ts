/**
 * buildReport merging instances (group_reporting) and directions (unified_rw_reporting). The
 * expected merged mean and stddev are computed here from the definitions (all samples together),
 * not with the code under test.
 */
import { describe, expect, it } from 'vitest';
import { buildReport } from '../../src/fio-output/index.js';
import { requires } from '../helpers/requires.js';
import { dir, hist, jobOptions, lat, point, reportJob, result, runInput, seriesDir } from './inputs.js';

requires();

/** Mean and stddev of two sample sets given as (n, mean, stddev), from Σx and Σx². */
function pooled(a: [number, number, number], b: [number, number, number]): { mean: number; stddev: number } {
  const sum = (n: number, mean: number) => n * mean;
  const sumSq = (n: number, mean: number, sd: number) => sd * sd * (n - 1) + n * mean * mean;
  const n = a[0] + b[0];
  const total = sum(a[0], a[1]) + sum(b[0], b[1]);
  const totalSq = sumSq(...a) + sumSq(...b);
  const mean = total / n;
  return { mean, stddev: Math.sqrt((totalSq - n * mean * mean) / (n - 1)) };
}

/**
 * Two instances of one randread job. Instance 1: 100 reads at ~1 µs (bucket value 1004),
 * 2001 ms. Instance 2: 300 reads at ~2 µs (bucket value 2008), 2002 ms.
 */
function twoInstances(groupReporting: boolean) {
  const options = jobOptions({ name: 'randread-nj2', numjobs: 2, group_reporting: groupReporting, iodepth: 16 });
  const first = result({
    instance: 0, runtimeNs: 2_000_400_000, usrNs: 10e6, sysNs: 100e6, ctx: 10, minf: 5,
    dirs: [dir({
      ioBytes: 409600, totalIos: 100, runtimeNs: 2_000_400_000,
      clat: lat(100, 1000, 99 * 100, 990, 1010), clatHist: hist([[1000, 100]]),
      bw: lat(4, 180, 300, 150, 210), iops: lat(4, 45, 18.75, 37, 52),
    }), dir(), dir()],
    iodepthLevel: [0, 0, 0, 0, 100, 0, 0], iodepthSubmit: [0, 100, 0, 0, 0, 0, 0], iodepthComplete: [0, 100, 0, 0, 0, 0, 0],
    series: [point(1000, 1000, seriesDir(50, 204800, 1000, 1004)), point(2000, 1000, seriesDir(50, 204800, 1000, 1004))],
  });
  const second = result({
    instance: 1, runtimeNs: 2_001_200_000, usrNs: 20e6, sysNs: 300e6, ctx: 30, minf: 7,
    dirs: [dir({
      ioBytes: 1228800, totalIos: 300, runtimeNs: 2_001_200_000,
      clat: lat(300, 2000, 299 * 400, 1980, 2020), clatHist: hist([[2000, 300]]),
      bw: lat(4, 600, 900, 500, 700), iops: lat(4, 150, 56.25, 125, 175),
    }), dir(), dir()],
    iodepthLevel: [0, 0, 0, 0, 300, 0, 0], iodepthSubmit: [0, 300, 0, 0, 0, 0, 0], iodepthComplete: [0, 300, 0, 0, 0, 0, 0],
    series: [
      point(1000, 1000, seriesDir(150, 614400, 2000, 2008)),
      point(2000, 1000, seriesDir(150, 614400, 2000, 2008)),
      point(2001, 1, seriesDir(0, 0, 0, 0)),
    ],
  });
  return runInput([reportJob(options, [first, second], { ownOptions: [['name', 'randread-nj2'], ['numjobs', '2']] })]);
}

describe('buildReport with group_reporting', () => {
  const report = buildReport(twoInstances(true));
  const job = report.jobs[0];
  const read = job.read!;

  it('makes one entry named after the job, summing counters', () => {
    expect(report.jobs).toHaveLength(1);
    expect(job.jobname).toBe('randread-nj2');
    expect([read.io_bytes, read.total_ios, job.ctx, job.minf]).toEqual([1638400, 400, 40, 12]);
    expect(report.volbench!.jobs[0].members).toBe(2);
  });

  it('sums job_runtime and takes the longest direction runtime', () => {
    expect(job.job_runtime).toBe(2000 + 2001);
    expect(read.runtime).toBe(2002);
    expect(read.bw_bytes).toBe(818381); // floor(1638400·1000 / 2002)
    expect(read.iops).toBe(400_000 / 2002);
    expect(job.usr_cpu).toBe((30 * 100) / 4001);
    expect(job.sys_cpu).toBe((400 * 100) / 4001);
  });

  it('merges latency stats as if all samples were one set', () => {
    const expected = pooled([100, 1000, 10], [300, 2000, 20]);
    const clat = read.clat_ns;
    expect([clat.N, clat.min, clat.max]).toEqual([400, 990, 2020]);
    expect(clat.mean).toBeCloseTo(expected.mean, 9);
    expect(clat.stddev).toBeCloseTo(expected.stddev, 9);
    expect(clat.mean).toBe(1750);
  });

  it('adds the histograms: a quarter of the I/Os at ~1 µs, the rest at ~2 µs', () => {
    const pct = read.clat_ns.percentile!;
    expect([pct['20.000000'], pct['30.000000'], pct['99.990000']]).toEqual([1004, 2008, 2008]);
    expect(read.clat_ns.bins).toEqual({ '1004': 100, '2008': 300 });
    expect(job.latency_us['2']).toBe(25);
    expect(job.latency_us['4']).toBe(75);
  });

  it("sums bw and iops sample stats field by field, as fio's sum_stat does", () => {
    // min+min, max+max, mean+mean, n+n, M2+M2
    expect([read.bw_min, read.bw_max, read.bw_mean, read.bw_samples]).toEqual([650, 910, 780, 8]);
    expect(read.bw_dev).toBe(Math.sqrt(1200 / 7));
    expect([read.iops_min, read.iops_max, read.iops_mean, read.iops_samples]).toEqual([162, 227, 195, 8]);
    expect(read.bw_agg).toBe((780 * 100) / (818381 / 1024)); // against the 799.2 KiB/s aggregate
  });

  it('sums the series by interval: ios and bytes add, clat mean weighted by ios, p99 the largest', () => {
    expect(report.volbench!.jobs[0].series).toEqual([
      { t_ms: 1000, dur_ms: 1000, read: { iops: 200, bw_bytes: 819200, clat_mean_ns: 1750, clat_p99_ns: 2008 } },
      { t_ms: 2000, dur_ms: 1000, read: { iops: 200, bw_bytes: 819200, clat_mean_ns: 1750, clat_p99_ns: 2008 } },
      { t_ms: 2001, dur_ms: 1, read: { iops: 0, bw_bytes: 0, clat_mean_ns: 0, clat_p99_ns: 0 } },
    ]);
  });
});

describe('buildReport without group_reporting', () => {
  const report = buildReport(twoInstances(false));

  it('makes one entry per instance, all with the job name', () => {
    expect(report.jobs.map((j) => [j.jobname, j.read!.total_ios, j.read!.runtime, j.job_runtime])).toEqual([
      ['randread-nj2', 100, 2001, 2000],
      ['randread-nj2', 300, 2002, 2001],
    ]);
    expect(report.volbench!.jobs.map((j) => j.members)).toEqual([1, 1]);
  });

  it("measures each entry's bw_agg against the group's aggregate bandwidth", () => {
    // group: 1638400 bytes over the longest runtime 2002 ms = 818381 B/s = 799.2 KiB/s
    const agg = 818381 / 1024;
    expect(report.jobs.map((j) => j.read!.bw_agg)).toEqual([(180 * 100) / agg, (600 * 100) / agg]);
  });
});

/** One randrw instance: 70 reads at ~1 µs, 30 writes at ~2 µs, 2001 ms each. */
function randrw(unified: 'mixed' | 'both') {
  const options = jobOptions({ name: 'randrw', rw: 'randrw', rwmixread: 70, unified_rw_reporting: unified, iodepth: 16 });
  const instance = result({
    dirs: [
      dir({
        ioBytes: 286720, totalIos: 70, runtimeNs: 2_000_400_000,
        clat: lat(70, 1000, 69 * 100, 990, 1010), clatHist: hist([[1000, 70]]),
        bw: lat(4, 130, 60, 110, 150), iops: lat(4, 35, 3, 30, 40),
      }),
      dir({
        ioBytes: 122880, totalIos: 30, runtimeNs: 2_000_400_000,
        clat: lat(30, 2000, 29 * 400, 1980, 2020), clatHist: hist([[2000, 30]]),
        bw: lat(4, 50, 30, 40, 60), iops: lat(4, 15, 2, 12, 17),
      }),
      dir(),
    ],
  });
  return runInput([reportJob(options, [instance])]);
}

describe('buildReport with unified_rw_reporting', () => {
  it('mixed: one "mixed" direction replaces read, write, trim and sync', () => {
    const job = buildReport(randrw('mixed')).jobs[0];
    expect(Object.keys(job).slice(5, 8)).toEqual(['job options', 'mixed', 'job_runtime']);
    const mixed = job.mixed!;
    expect([mixed.io_bytes, mixed.total_ios, mixed.runtime, mixed.bw_bytes]).toEqual([409600, 100, 2001, 204697]);
    const expected = pooled([70, 1000, 10], [30, 2000, 20]);
    expect(mixed.clat_ns.mean).toBeCloseTo(expected.mean, 9);
    expect(mixed.clat_ns.stddev).toBeCloseTo(expected.stddev, 9);
    expect([mixed.bw_min, mixed.bw_max, mixed.bw_mean, mixed.bw_samples]).toEqual([150, 210, 180, 8]);
    expect(mixed.bw_agg).toBe((180 * 100) / (204697 / 1024));
    expect(mixed.clat_ns.percentile!['70.000000']).toBe(1004);
    expect(mixed.clat_ns.percentile!['80.000000']).toBe(2008);
  });

  it('both: read, write, trim, sync, then "mixed", measured against the read aggregate', () => {
    const job = buildReport(randrw('both')).jobs[0];
    expect(Object.keys(job).slice(6, 12)).toEqual(['read', 'write', 'trim', 'sync', 'mixed', 'job_runtime']);
    expect(job.read!.bw_agg).toBe((130 * 100) / (143288 / 1024));
    expect(job.write!.bw_agg).toBe((50 * 100) / (61409 / 1024));
    // 180 KiB/s mixed against the 139.9 KiB/s read aggregate: capped at 100, as in sample 17
    expect(job.mixed!.bw_agg).toBe(100);
    expect(job.mixed!.total_ios).toBe(100);
    expect(job.mixed!.clat_ns.N).toBe(100);
  });
});

describe('buildReport with several groups', () => {
  it('merges only consecutive jobs of the same group under group_reporting', () => {
    const a = jobOptions({ name: 'a', group_reporting: true });
    const b = jobOptions({ name: 'b', group_reporting: true });
    const c = jobOptions({ name: 'c', group_reporting: true, stonewall: true });
    const io = () => result({ dirs: [dir({ ioBytes: 4096, totalIos: 1, runtimeNs: 1e9 }), dir(), dir()] });
    const report = buildReport(runInput([
      reportJob(a, [io()], { ownOptions: [['rw', 'read']] }),
      reportJob(b, [io()], { ownOptions: [['rw', 'write']] }),
      reportJob(c, [io(), io()], { groupid: 1 }),
    ]));
    // fio names the entry after its first job and echoes the last job's options
    expect(report.jobs.map((j) => [j.jobname, j.groupid, j.read!.total_ios])).toEqual([['a', 0, 2], ['c', 1, 2]]);
    expect(report.jobs[0]['job options']).toEqual({ rw: 'write' });
  });
});
