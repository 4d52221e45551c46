/**
 * fio's steady state: once a second the job's IOPS and bandwidth are sampled; once the last
 * ss_dur samples meet the criterion the job ends as at the end of its runtime, and its entry
 * carries fio's `steadystate` block. A rate-limited job is steady by construction, so these runs
 * settle in the shortest time the window allows; a limit of 0 (fio compares strictly) can never
 * be met, so such a job runs its whole runtime.
 */
import { afterAll, describe, expect, it } from 'vitest';

import type { FioJob } from '../../src/index.js';
import { runJobs } from '../../src/index.js';
import { requires } from '../helpers/requires.js';
import { ScratchDir, dir, runJob } from '../helpers/run-fixtures.js';

const needs = requires('tmpfs', 'serial');

const scratch = new ScratchDir('steadystate');
afterAll(() => scratch.remove());

const base = (name: string) => ({
  name, filename: scratch.path(`${name}.dat`), size: '8m', rw: 'randread', bs: '4k', ioengine: 'psync', time_based: 1,
});

function block(job: FioJob) {
  const ss = job.steadystate;
  if (!ss) throw new Error(`job ${job.jobname} has no steadystate block`);
  return ss;
}

/** The window's mean, largest deviation and least-squares slope, computed here from its data. */
function judged(values: number[]) {
  const n = values.length;
  const mean = values.reduce((s, v) => s + v, 0) / n;
  const dev = Math.max(...values.map((v) => Math.abs(v - mean)));
  const xm = (n - 1) / 2;
  let sxy = 0;
  let sxx = 0;
  values.forEach((v, i) => {
    sxy += (i - xm) * (v - mean);
    sxx += (i - xm) ** 2;
  });
  return { mean, dev, slope: sxx ? sxy / sxx : 0 };
}

describe('steadystate', () => {
  it('a steady job ends once its window meets the criterion, with fio\'s block', async () => {
    const { job } = await runJob({ ...base('settles'), rate_iops: 2000, runtime: '30s', ss: 'iops:20%', ss_dur: '3s' });
    expect(job.error).toBe(0);
    const ss = block(job);
    expect(Object.keys(ss)).toEqual(['ss', 'duration', 'attained', 'criterion', 'max_deviation', 'slope', 'data']);
    expect(Object.keys(ss.data)).toEqual(['bw_mean', 'iops_mean', 'iops', 'bw']);
    expect(ss).toMatchObject({ ss: 'iops:20.000000%', duration: 3, attained: 1, slope: 0 });
    expect(ss.data.iops).toHaveLength(3);
    expect(ss.data.bw).toHaveLength(3);
    for (const v of [...ss.data.iops, ...ss.data.bw, ss.data.iops_mean, ss.data.bw_mean]) expect(Number.isInteger(v)).toBe(true);
    // Each sample is a second of 4 KiB reads at 2000 IOPS.
    ss.data.iops.forEach((iops, i) => {
      expect(iops).toBeGreaterThan(1800);
      expect(iops).toBeLessThan(2200);
      expect(Math.abs(ss.data.bw[i] - iops * 4096)).toBeLessThan(4096);
    });
    const { mean, dev } = judged(ss.data.iops);
    expect(ss.data.iops_mean).toBe(Math.floor(mean));
    expect(ss.max_deviation).toBeCloseTo(dev, 6);
    expect(ss.criterion).toBe(`${((dev * 100) / mean).toFixed(6)}%`);
    // Three whole seconds at least, and far from the 30 s runtime.
    expect(dir(job, 'read').runtime).toBeGreaterThanOrEqual(3000);
    expect(dir(job, 'read').runtime).toBeLessThan(15000);
  });

  it('a limit that cannot be met runs the whole runtime, attained 0, the last window kept', async () => {
    const { job } = await runJob({ ...base('never'), rate_iops: 1000, runtime: '3s', ss: 'iops_slope:0', ss_dur: '2s' });
    const ss = block(job);
    expect(ss).toMatchObject({ ss: 'iops_slope:0.000000', duration: 2, attained: 0, max_deviation: 0 });
    expect(dir(job, 'read').runtime).toBeGreaterThanOrEqual(3000);
    expect(ss.data.iops.every((v) => v > 900)).toBe(true);
    const { slope } = judged(ss.data.iops);
    expect(ss.slope).toBeCloseTo(slope, 6);
    // An absolute criterion is printed rounded to a whole number, as fio does.
    expect(ss.criterion).toBe(Math.round(slope).toFixed(6));
  });

  it('a window that never fills pads its data with zeros and judges nothing', async () => {
    const { job } = await runJob({ ...base('short'), rate_iops: 1000, runtime: '2s', ss_dur: 5 });
    const ss = block(job);
    // ss_dur alone turns on fio's default criterion.
    expect(ss).toMatchObject({ ss: 'iops_slope:0.010000%', duration: 5, attained: 0, criterion: '0.000000%' });
    expect(ss.data.iops.slice(2)).toEqual([0, 0, 0]);
    expect(ss.data.iops.slice(0, 2).every((v) => v > 900)).toBe(true);
    expect(ss.data.iops_mean).toBe(Math.floor((ss.data.iops[0] + ss.data.iops[1]) / 5));
  });

  it('ss_ramp delays the window: no judgement before ramp + duration', async () => {
    const { job } = await runJob({ ...base('ramp'), rate_iops: 1000, runtime: '20s', ss: 'iops:10%', ss_dur: 2, ss_ramp: 2 });
    expect(block(job).attained).toBe(1);
    expect(dir(job, 'read').runtime).toBeGreaterThanOrEqual(4000);
    expect(dir(job, 'read').runtime).toBeLessThan(15000);
  });

  it('with group_reporting the group is judged on its summed samples and stops together', async () => {
    const result = await runJobs({
      jobs: [{ ...base('group'), rate_iops: 1000, runtime: '20s', numjobs: 2, group_reporting: 1, ss: 'iops:10%', ss_dur: 2 }],
    });
    expect(result.jobs).toHaveLength(1);
    const ss = block(result.jobs[0]);
    expect(ss.attained).toBe(1);
    // Two jobs at 1000 IOPS each.
    expect(ss.data.iops.every((v) => v > 1800 && v < 2200)).toBe(true);
    // Both instances stopped early (job_runtime sums them).
    expect(result.jobs[0].job_runtime).toBeLessThan(2 * 15000);
    expect(result.volbench.jobs[0].cancelled).toBe(false);
  });

  it('without group_reporting each job has its own block', async () => {
    const result = await runJobs({
      jobs: [{ ...base('each'), rate_iops: 1000, runtime: '20s', numjobs: 2, ss: 'iops:10%', ss_dur: 2 }],
    });
    expect(result.jobs).toHaveLength(2);
    for (const job of result.jobs) {
      const ss = block(job);
      expect(ss.attained).toBe(1);
      expect(ss.data.iops.every((v) => v > 900 && v < 1100)).toBe(true);
    }
  });

  it('a job without steadystate_duration has no block', async () => {
    const { job } = await runJob({ ...base('off'), rate_iops: 1000, runtime: '1s', ss: 'iops:10%' });
    expect(job.steadystate).toBeUndefined();
  });
});
