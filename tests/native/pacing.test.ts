/**
 * Options that pace a job: rate_iops, thinktime, startdelay and ramp_time. The assertions are
 * bounds that follow from the options themselves (a rate caps the count, a think time or a
 * delay puts a floor under the elapsed time), never measurements of speed.
 */
import { afterAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import { KiB, MiB, ScratchDir, dir, runJob } from '../helpers/run-fixtures.js';

const needs = requires('tmpfs', 'serial');

const scratch = new ScratchDir('pacing');
afterAll(() => scratch.remove());

describe('pacing options', () => {
  it('rate_iops=500 for 2 s completes at most 500·2 + iodepth I/Os, and some', async () => {
    const iodepth = 4;
    const { job } = await runJob({
      name: 'rate', filename: scratch.path('rate.dat'), size: '16m', rw: 'randread', rate_iops: 500,
      time_based: 1, runtime: '2s', iodepth,
    });
    expect(job.error).toBe(0);
    const ios = dir(job, 'read').total_ios;
    expect(ios).toBeGreaterThan(0);
    expect(ios).toBeLessThanOrEqual(500 * 2 + iodepth);
  });

  // The next paced I/O is due a second after the last, past the 1.5 s runtime.
  for (const [label, pace] of [['rate_iops=1', { rate_iops: 1 }], ['thinktime=1s', { thinktime: '1s' }]] as const) {
    it(`${label} with runtime=1.5s ends at the runtime, not at the next paced I/O`, async () => {
      // Regression: a held I/O or a think time was waited out past the end of the runtime.
      const started = performance.now();
      const { job } = await runJob({
        name: 'paced', filename: scratch.path('paced.dat'), size: '1m', rw: 'randread', time_based: 1, runtime: '1500ms', ...pace,
      });
      const elapsed = performance.now() - started;
      expect(job.error).toBe(0);
      expect(dir(job, 'read').total_ios).toBeGreaterThan(0);
      expect(job.job_runtime).toBeLessThan(1800);
      expect(elapsed).toBeLessThan(1800 + 500);
    });
  }

  it('thinktime=2ms after every block puts at least 2 ms between I/Os', async () => {
    const ios = 100;
    const { job } = await runJob({
      name: 'think', filename: scratch.path('think.dat'), size: `${ios * 4}k`, bs: '4k', rw: 'randread',
      thinktime: '2ms', thinktime_blocks: 1,
    });
    expect(job.error).toBe(0);
    expect(dir(job, 'read').total_ios).toBe(ios);
    // ios - 1 pauses of 2 ms at least lie between the first I/O and the last.
    expect(job.job_runtime).toBeGreaterThanOrEqual((ios - 1) * 2);
  });

  it('startdelay=500ms holds the job back half a second, then runs it whole', async () => {
    const started = performance.now();
    const { job } = await runJob({
      name: 'delay', filename: scratch.path('delay.dat'), size: '1m', rw: 'randread', startdelay: '500ms',
    });
    expect(performance.now() - started).toBeGreaterThanOrEqual(500);
    expect(job.error).toBe(0);
    expect(dir(job, 'read').total_ios).toBe(MiB / (4 * KiB));
  });

  it('ramp_time I/O counts toward size but not toward the reported numbers, as in fio', async () => {
    // 1024 I/Os at 1000 IOPS take a second: the 500 ms ramp takes some of them and the
    // measured part gets the rest.
    const started = performance.now();
    const { job } = await runJob({
      name: 'ramp', filename: scratch.path('ramp.dat'), size: '4m', bs: '4k', rw: 'randread', rate_iops: 1000,
      ramp_time: '500ms', ioengine: 'psync',
    });
    expect(performance.now() - started).toBeGreaterThanOrEqual(500);
    expect(job.error).toBe(0);
    const read = dir(job, 'read');
    expect(read.total_ios).toBeGreaterThan(0);
    expect(read.total_ios).toBeLessThan(1024);
    expect(read.io_bytes).toBe(read.total_ios * 4 * KiB);
    expect(read.clat_ns.N).toBe(read.total_ios);
  });
});
