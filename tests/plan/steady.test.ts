/**
 * Steady state in planning: which instances judge together (a job alone, or with
 * group_reporting its whole reporting group), fio's refusal of a reporting group whose jobs'
 * steady-state options differ, and --until-steady (untilSteadySec), which makes every job
 * time-based with MAX as its runtime and a default criterion the job's own options override.
 */
import { afterAll, describe, expect, it } from 'vitest';

import { parseSpec } from '../../src/jobspec/index.js';
import { steadyStateText } from '../../src/jobspec/steadystate.js';
import type { JobSpec } from '../../src/jobspec/types.js';
import { effectiveSpec, parseUntilSteadySec, planRun } from '../../src/plan/index.js';
import { errorOf } from '../helpers/errors.js';
import { requires } from '../helpers/requires.js';
import { ScratchDir, volbenchError } from '../helpers/run-fixtures.js';

const needs = requires('tmpfs');

const scratch = new ScratchDir('plan-steady');
afterAll(() => scratch.remove());

const job = (name: string, extra: Record<string, string | number | boolean> = {}) => ({
  name, filename: scratch.path(`${name}.dat`), rw: 'randread', bs: '4k', size: '1m', ...extra,
});
const groupsOf = async (spec: JobSpec) => {
  const p = await planRun(parseSpec(spec));
  p.release();
  return p.jobs.map((j) => j.instances.map((i) => i.ssGroup));
};

describe('steady-state groups', () => {
  it('give each instance its own check, or one per reporting group with group_reporting', async () => {
    expect(await groupsOf({ jobs: [job('a', { numjobs: 2, ss_dur: 2 })] })).toEqual([[1, 2]]);
    expect(await groupsOf({ global: { ss_dur: 2, group_reporting: 1 }, jobs: [job('a', { numjobs: 2 }), job('b')] }))
      .toEqual([[1, 1], [1]]);
    // A new group judges apart.
    expect(await groupsOf({ global: { ss_dur: 2, group_reporting: 1 }, jobs: [job('a'), job('b', { new_group: 1 })] }))
      .toEqual([[1], [2]]);
    expect(await groupsOf({ jobs: [job('a')] })).toEqual([[0]]);
  });

  it("refuse a reporting group whose jobs' steady-state options differ, as fio does", async () => {
    const err = await volbenchError(planRun(parseSpec({
      global: { ss_dur: 2 }, jobs: [job('a', { ss: 'iops:5%' }), job('b', { ss: 'iops:20%' })],
    })));
    expect(err.code).toBe('EINVALID_PLAN');
    expect(err.field).toBe('jobs[1].steadystate');
    expect(err.message).toContain('jobs[0]');
    // A stonewall puts them in different groups.
    expect(await groupsOf({ global: { ss_dur: 2 }, jobs: [job('a', { ss: 'iops:5%' }), job('b', { ss: 'iops:20%', stonewall: 1 })] }))
      .toEqual([[1], [2]]);
  });
});

describe('--until-steady (untilSteadySec)', () => {
  const options = (spec: JobSpec, sec: number) => effectiveSpec(parseSpec(spec), { untilSteadySec: sec }).jobs.map((j) => j.options);

  it('makes every job time-based with MAX as its runtime, iops_slope:0.1% over 30 s by default', () => {
    const [o] = options({ jobs: [job('a', { runtime: '5s' })] }, 600);
    expect(o).toMatchObject({ time_based: true, runtime_ns: 600e9, steadystate_duration_ns: 30e9, steadystate_ramp_time_ns: 0 });
    expect(steadyStateText(o.steadystate)).toBe('iops_slope:0.100000%');
  });

  it('keeps the window within half of a short MAX, but two samples long at least', () => {
    expect(options({ jobs: [job('a')] }, 20)[0].steadystate_duration_ns).toBe(10e9);
    expect(options({ jobs: [job('a')] }, 3)[0].steadystate_duration_ns).toBe(2e9);
  });

  it("lets the job's own steadystate, duration and ramp win, from its section or [global]", () => {
    const [a, b] = options({ global: { ss_ramp: 3 }, jobs: [job('a', { ss: 'bw:5%', ss_dur: 4 }), job('b', { ss_dur: 8 })] }, 60);
    expect(steadyStateText(a.steadystate)).toBe('bw:5.000000%');
    expect(a).toMatchObject({ steadystate_duration_ns: 4e9, steadystate_ramp_time_ns: 3e9 });
    expect(steadyStateText(b.steadystate)).toBe('iops_slope:0.100000%');
    expect(b.steadystate_duration_ns).toBe(8e9);
  });

  it('takes a time of at least a second', () => {
    expect(parseUntilSteadySec('10m', '--until-steady')).toBe(600);
    expect(parseUntilSteadySec('90', '--until-steady')).toBe(90);
    for (const bad of ['500ms', '0', 'soon', '-5']) {
      expect(errorOf(() => parseUntilSteadySec(bad, '--until-steady')).field).toBe('--until-steady');
    }
  });
});
