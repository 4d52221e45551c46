/**
 * A job's life: start delay, ramp, the measured main phase, and the end. Progress names the
 * phases a user knows; the engine's own in-between states (draining what is in flight,
 * stopping) never reach it. A size-based job can issue all its bytes inside ramp_time, and then
 * ends at once with nothing measured, as fio's does.
 */
import { afterAll, describe, expect, it } from 'vitest';

import { runJobs, type RunProgress } from '../../src/index.js';
import { requires } from '../helpers/requires.js';
import { ScratchDir, dir } from '../helpers/run-fixtures.js';

const needs = requires('tmpfs', 'serial');

const scratch = new ScratchDir('phases');
afterAll(() => scratch.remove());

describe('job phases', () => {
  it('progress names startdelay, ramp and running in that order, and nothing else', async () => {
    // Each phase lasts 2.5 s and progress comes about once a second, so each is seen.
    const reports: RunProgress[] = [];
    const result = await runJobs(
      {
        jobs: [{
          name: 'phases', filename: scratch.path('phases.dat'), size: '1m', rw: 'randread', rate_iops: 200,
          startdelay: '2500ms', ramp_time: '2500ms', time_based: 1, runtime: '2500ms',
        }],
      },
      { onProgress: (p) => reports.push(p) },
    );
    expect(result.jobs[0].error).toBe(0);
    const seen: string[] = [];
    for (const p of reports) {
      const phase = p.instances[0].phase;
      if (seen[seen.length - 1] !== phase) seen.push(phase);
    }
    expect(seen.filter((p) => p !== 'layout' && p !== 'done')).toEqual(['startdelay', 'ramp', 'running']);
  });

  it('a size-based job that issues all its bytes inside ramp_time ends at once with nothing measured', async () => {
    const started = performance.now();
    const result = await runJobs({
      jobs: [{ name: 'short', filename: scratch.path('short.dat'), size: '1m', rw: 'randread', ramp_time: '30s' }],
    });
    expect(performance.now() - started).toBeLessThan(10_000);
    const job = result.jobs[0];
    expect(job.error).toBe(0);
    expect(dir(job, 'read').total_ios).toBe(0);
    expect(job.job_runtime).toBe(0);
    expect(result.volbench.jobs[0].cancelled).toBe(false);
  });

  it('a run shorter than the reporting interval still reports once, where it ended', async () => {
    const reports: RunProgress[] = [];
    const result = await runJobs(
      { jobs: [{ name: 'brief', filename: scratch.path('brief.dat'), size: '1m', rw: 'randread', runtime: '200ms', time_based: 1 }] },
      { onProgress: (p) => reports.push(p) },
    );
    expect(result.jobs[0].error).toBe(0);
    expect(reports.length).toBeGreaterThanOrEqual(1);
    const last = reports[reports.length - 1];
    expect(last.instances[0].phase).toBe('done');
    expect(last.fraction).toBe(1);
  });
});
