/**
 * steadystate (ss), steadystate_duration (ss_dur), steadystate_ramp_time (ss_ramp): parsed as
 * fio reads them, echoed under fio's names, and refused with an error naming the option when
 * fio would refuse them (or when they could never work: a window shorter than fio's 1 s sample).
 */
import { describe, expect, it } from 'vitest';

import { parseFioArgs, parseSpec } from '../../src/jobspec/index.js';
import { steadyStateText } from '../../src/jobspec/steadystate.js';
import type { JobOptions } from '../../src/jobspec/types.js';
import { errorOf } from '../helpers/errors.js';
import { requires } from '../helpers/requires.js';
import { sampleCommand, sampleJson } from './samples.js';

requires();

const one = (options: Record<string, string | number | boolean>): JobOptions =>
  parseSpec({ jobs: [{ name: 'j', ...options }] }).jobs[0].options;

describe('steady-state options', () => {
  it('are off by default, with fio\'s default criterion iops_slope:0.01%', () => {
    const o = one({});
    expect(o.steadystate_duration_ns).toBe(0);
    expect(o.steadystate_ramp_time_ns).toBe(0);
    expect(steadyStateText(o.steadystate)).toBe('iops_slope:0.010000%');
  });

  it('read the four criteria with a percentage or an absolute limit', () => {
    expect(one({ ss: 'iops:5%' }).steadystate).toEqual({ metric: 'iops', slope: false, limit: 5, percent: true });
    expect(one({ ss: 'iops_slope:0.1%' }).steadystate).toEqual({ metric: 'iops', slope: true, limit: 0.1, percent: true });
    expect(one({ steadystate: 'bw:50000000' }).steadystate).toEqual({ metric: 'bw', slope: false, limit: 5e7, percent: false });
    expect(one({ ss: 'BW_SLOPE:2' }).steadystate).toEqual({ metric: 'bw', slope: true, limit: 2, percent: false });
  });

  it('take durations in seconds by default, the window in whole seconds as fio counts it', () => {
    expect(one({ ss_dur: 3, ss_ramp: '1' })).toMatchObject({ steadystate_duration_ns: 3e9, steadystate_ramp_time_ns: 1e9 });
    expect(one({ steadystate_duration: '2500ms' }).steadystate_duration_ns).toBe(2e9);
    expect(one({ ss_ramp: '1500ms' }).steadystate_ramp_time_ns).toBe(1.5e9);
  });

  it('sample 11\'s command line echoes the options under fio\'s names', () => {
    const parsed = parseSpec(parseFioArgs(sampleCommand('11-steadystate-iops5pct.json')).spec);
    const fio = sampleJson('11-steadystate-iops5pct.json');
    expect(parsed.jobs[0].ownOptions).toEqual(Object.entries(fio.jobs[0]['job options']));
  });

  it.each([
    ['ss', 'iops:abc', /not a number/],
    ['ss', 'foo:5%', /'foo' is not a steady-state criterion/],
    ['ss', 'iops', /has no limit/],
    ['ss', 'iops:-1%', /negative/],
    ['steadystate', 'bw:', /not a number/],
  ])('%s=%s is refused, naming the option', (name, value, message) => {
    const err = errorOf(() => one({ [name]: value }));
    expect(err.code).toBe('EINVALID_VALUE');
    expect(err.field).toBe(`jobs[0].${name}`);
    expect(err.message).toMatch(message);
    expect(err.accepted).toMatch(/iops_slope/);
  });

  it.each([
    ['ss_dur', '-3'],
    ['ss_dur', '500ms'],
    ['steadystate_duration', '999ms'],
    ['ss_ramp', '-1s'],
    ['ss_ramp', 'soon'],
  ])('%s=%s is refused, naming the option', (name, value) => {
    const err = errorOf(() => one({ [name]: value }));
    expect(err.code).toBe('EINVALID_VALUE');
    expect(err.field).toBe(`jobs[0].${name}`);
  });
});
