/**
 * The rules a caller sets on a run are planning options of the library: a default target, the
 * runtime budget across stages, the size and instance limits, which block devices may be
 * written, and the assertions judged on the result. They used to be patched into parsed
 * options by the service alone; the CLI and any library user now get them from planRun.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { parseSpec } from '../../src/jobspec/index.js';
import type { JobSpec } from '../../src/jobspec/types.js';
import { planRun, stagesOf, type PlanOptions } from '../../src/plan/index.js';
import { runJobs } from '../../src/index.js';
import { requires } from '../helpers/requires.js';
import { MiB, ScratchDir, volbenchError } from '../helpers/run-fixtures.js';
import { TargetFixtures } from '../helpers/target-fixtures.js';

const needs = requires('tmpfs', 'loop', 'dist');

const scratch = new ScratchDir('plan-rules');
afterAll(() => scratch.remove());

const plan = (spec: JobSpec, options: PlanOptions = {}) => planRun(parseSpec(spec), options);
const read = (extra: Record<string, string | number | boolean> = {}) => ({ name: 'r', rw: 'randread', bs: '4k', size: '1m', ...extra });

describe('stagesOf', () => {
  it('puts a stonewall job in a new stage and group, and new_group in a new group of the same stage', () => {
    const o = (stonewall: boolean, new_group: boolean) => ({ stonewall, new_group });
    const stages = stagesOf([o(false, false), o(false, true), o(true, false), o(true, true), o(false, false)]);
    expect(stages).toEqual([
      { index: 0, members: [{ index: 0, groupid: 0 }, { index: 1, groupid: 1 }] },
      { index: 1, members: [{ index: 2, groupid: 2 }] },
      { index: 2, members: [{ index: 3, groupid: 3 }, { index: 4, groupid: 3 }] },
    ]);
  });
});

describe('planRun rules', () => {
  it('sends jobs that name no path to the default target, and leaves the others alone', async () => {
    const p = await plan({ jobs: [read(), read({ name: 'own', filename: scratch.path('own.dat') })] },
      { defaultTarget: { directory: scratch.dir } });
    expect(p.jobs[0].instances[0].path).toBe(scratch.path('r.0.0'));
    expect(p.jobs[1].instances[0].path).toBe(scratch.path('own.dat'));
    expect(p.spec.jobs[0].options.directory).toEqual([scratch.dir]);
  });

  it('refuses stages longer than maxRuntimeSec in all, naming where the runtime was set', async () => {
    const spec: JobSpec = { global: { time_based: 1, runtime: '2s' }, jobs: [read(), read({ name: 's', stonewall: 1 })] };
    const err = await volbenchError(plan(spec, { limits: { maxRuntimeSec: 3 } }));
    expect(err.code).toBe('ELIMIT_EXCEEDED');
    expect(err.field).toBe('global.runtime');
    expect(err.message).toContain('the run: 4s');
    // A suite's loops count too.
    const one: JobSpec = { jobs: [read({ time_based: 1, runtime: '2s' })] };
    const looped = await volbenchError(plan(one, { limits: { maxRuntimeSec: 3 }, repeats: 2 }));
    expect(looped).toMatchObject({ code: 'ELIMIT_EXCEEDED', field: 'jobs[0].runtime' });
    expect(looped.message).toContain('over 2 loops');
  });

  it('gives a job without runtime what the timed stages leave, as its runtime', async () => {
    const spec: JobSpec = { jobs: [read({ time_based: 1, runtime: '1s' }), read({ name: 'untimed', stonewall: 1 })] };
    const p = await plan(spec, { limits: { maxRuntimeSec: 5 } });
    expect(p.jobs[1].options.runtime_ns).toBe(4e9);
    expect(p.jobs[1].instances[0].runtimeNs).toBe(4e9);
    // Without the limit it runs until its size is done.
    expect((await plan(spec)).jobs[1].instances[0].runtimeNs).toBe(0);
  });

  it('refuses a run addressing more than maxSizeBytes, and more instances than maxInstances', async () => {
    const big = await volbenchError(plan({ jobs: [read({ size: '2m', filename: scratch.path('big.dat') })] }, { limits: { maxSizeBytes: MiB } }));
    expect(big).toMatchObject({ code: 'ELIMIT_EXCEEDED', field: 'jobs[0].size' });
    const many = await volbenchError(plan({ jobs: [read({ numjobs: 3, filename: scratch.path('many.dat') })] }, { limits: { maxInstances: 2 } }));
    expect(many).toMatchObject({ code: 'ELIMIT_EXCEEDED', field: 'jobs[0].numjobs' });
    // The null engine's size is the work it does: it counts too.
    const idle = await volbenchError(plan({ jobs: [read({ ioengine: 'null', size: '2m' })] }, { limits: { maxSizeBytes: MiB } }));
    expect(idle).toMatchObject({ code: 'ELIMIT_EXCEEDED', field: 'jobs[0].size' });
  });

  it('refuses a run whose I/O buffers need more than maxMemoryBytes, before looking at any target', async () => {
    const spec: JobSpec = { jobs: [read({ bs: '1m', iodepth: 16, numjobs: 2, filename: '/nonexistent/dir/x' })] };
    const err = await volbenchError(plan(spec, { limits: { maxMemoryBytes: 16 * MiB } }));
    expect(err).toMatchObject({ code: 'ELIMIT_EXCEEDED', field: 'jobs[0].iodepth' });
    expect(err.message).toContain('bs 1048576 × iodepth 16 × numjobs 2');
  });

  it('binds assertions before any I/O and judges them on the result', async () => {
    const target = scratch.path('judged.dat');
    const refused = await volbenchError(runJobs({ jobs: [read({ filename: target })] }, { assertions: ['nosuch.iops >= 1'] }));
    expect(refused.code).toBe('EINVALID_ARGS');
    expect(existsSync(target)).toBe(false);
    const result = await runJobs({ jobs: [read({ filename: target })] }, { assertions: ['r.iops >= 1', 'r.io_bytes == 1m'] });
    expect(result.volbench.assertions?.map((a) => [a.expr, a.dir, a.passed])).toEqual([
      ['r.iops >= 1', 'read', true],
      ['r.io_bytes == 1m', 'read', true],
    ]);
  });
});

const loopSkip = needs.missing('loop');

describe.skipIf(loopSkip !== undefined)(`allowBlockWrite${loopSkip ? `: skipped, ${loopSkip}` : ''}`, () => {
  let fixtures: TargetFixtures;
  let device: string;
  beforeAll(() => {
    fixtures = new TargetFixtures('plan-rules', '/dev/shm');
    device = fixtures.attachLoop(fixtures.image('dev.img', 4 * MiB));
  });
  afterAll(() => fixtures?.release());

  it("decides block device writes in place of the spec's allow_block_write", async () => {
    const write = { name: 'w', rw: 'randwrite', bs: '4k', size: '1m', filename: device };
    const denied = await volbenchError(plan({ jobs: [{ ...write, allow_block_write: 1 }] }, { allowBlockWrite: () => false }));
    expect(denied.code).toBe('EUNSAFE_TARGET');
    const asked: string[] = [];
    const allowed = await plan({ jobs: [write] }, { allowBlockWrite: (dev) => (asked.push(dev), dev === device) });
    expect(allowed.jobs[0].instances[0].exclusive).toBe(true);
    expect(asked).toEqual([device]);
  });
});
