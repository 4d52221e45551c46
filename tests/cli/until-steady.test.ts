/**
 * `volbench run --until-steady MAX`: the job runs time-based for MAX at most and ends once fio's
 * steady-state criterion holds; a criterion the job gives wins over the default. A rate-limited
 * job is steady by construction, so it ends as soon as its window allows.
 */
import { afterAll, describe, expect, it } from 'vitest';

import { volbench } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';
import { ScratchDir } from '../helpers/run-fixtures.js';

const needs = requires('child', 'tmpfs', 'serial');

const scratch = new ScratchDir('until-steady');
afterAll(() => scratch.remove());

const job = (name: string) => [
  `--name=${name}`, `--filename=${scratch.path(`${name}.dat`)}`, '--size=8m', '--bs=4k', '--rw=randread',
  '--ioengine=psync', '--rate_iops=1000', '--output-format=json',
];

describe('volbench run --until-steady', () => {
  it('ends a steady job early, with its own criterion and window, and prints fio\'s block', async () => {
    const out = await volbench(['run', ...job('own'), '--ss=iops:10%', '--ss_dur=2', '--until-steady', '60']);
    expect(out.code, out.stderr).toBe(0);
    const doc = JSON.parse(out.stdout);
    const ss = doc.jobs[0].steadystate;
    expect(ss).toMatchObject({ ss: 'iops:10.000000%', duration: 2, attained: 1 });
    expect(doc.jobs[0].read.runtime).toBeGreaterThanOrEqual(2000);
    expect(doc.jobs[0].read.runtime).toBeLessThan(30000);
  });

  it('without a criterion uses iops_slope:0.1% over half of a short MAX', async () => {
    const out = await volbench(['run', ...job('default'), '--until-steady=6s']);
    expect(out.code, out.stderr).toBe(0);
    const ss = JSON.parse(out.stdout).jobs[0].steadystate;
    expect(ss).toMatchObject({ ss: 'iops_slope:0.100000%', duration: 3 });
    expect(ss.data.iops).toHaveLength(3);
  });

  it('refuses a MAX under a second, naming the flag (exit 2)', async () => {
    const out = await volbench(['run', ...job('bad'), '--until-steady', '500ms']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('--until-steady');
  });
});
