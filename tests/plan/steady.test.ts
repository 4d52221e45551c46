/**
 * Steady state in planning: which instances judge together (a job alone, or with
 * group_reporting its whole reporting group), and fio's refusal of a reporting group whose jobs'
 * steady-state options differ.
 */
import { afterAll, describe, expect, it } from 'vitest';

import { parseSpec } from '../../src/jobspec/index.js';
import type { JobSpec } from '../../src/jobspec/types.js';
import { planRun } from '../../src/plan/index.js';
import { ScratchDir, volbenchError } from '../helpers/run-fixtures.js';

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

