/**
 * Every result carries the jobs that ran as a fio job file, `volbench.job_file`: the spec after
 * volbench applied the caller's default target and runtime budget, every option written out.
 * Read back, it is the same spec; run again, it does the same I/O. A document folded from runs
 * made one after another (a suite, an analysis) holds one job file of all their jobs in order.
 */
import { mkdirSync } from 'node:fs';

import { afterAll, describe, expect, it } from 'vitest';

import { effectiveSpec, parseJobFile, parseSpec, printJobFile, runJobs } from '../../src/index.js';
import type { JobSpec, ParsedSpec } from '../../src/jobspec/types.js';
import { buildReport } from '../../src/fio-output/index.js';
import { mergedJobFile } from '../../src/fio-output/job-file.js';
import { runSuite } from '../../src/suites/index.js';
import { requires } from '../helpers/requires.js';
import { MiB, ScratchDir } from '../helpers/run-fixtures.js';
import { jobOptions } from './inputs.js';

const needs = requires('tmpfs');

const scratch = new ScratchDir('job-file');
afterAll(() => scratch.remove());

const options = (spec: ParsedSpec) => spec.jobs.map((job) => job.options);

describe('volbench.job_file', () => {
  it('reads back to the spec that ran, default target and runtime budget included, and runs the same I/O again', async () => {
    const spec: JobSpec = {
      global: { blocksize: '4k', readwrite: 'randwrite', size: '1m', ioengine: 'psync', randseed: '7' },
      jobs: [
        { name: 'writer', filename: scratch.path('w.dat'), rwmixwrite: 30 },
        { name: 'reader', rw: 'read', bs: '16k,4k', stonewall: true },
        { name: 'idle', ioengine: 'null', wait_for_previous: 1 },
      ],
    };
    const rules = { defaultTarget: { directory: scratch.dir }, limits: { maxRuntimeSec: 10 } };
    const result = await runJobs(spec, rules);
    const jobFile = result.volbench.job_file;
    expect(typeof jobFile).toBe('string');
    const ran = effectiveSpec(parseSpec(spec), rules);
    expect(options(parseSpec(parseJobFile(jobFile as string, {})))).toEqual(options(ran));
    expect(jobFile).toBe(printJobFile(ran));
    // The budget's share of three stages (10 s / 3) is whole microseconds, so it can be written.
    expect(jobFile).toContain('runtime=3333333us');
    expect(jobFile).toContain(`directory=${scratch.dir}`);

    const again = await runJobs(parseJobFile(jobFile as string, {}));
    expect(again.jobs.map((j) => [j.jobname, j.read?.io_bytes, j.write?.io_bytes]))
      .toEqual(result.jobs.map((j) => [j.jobname, j.read?.io_bytes, j.write?.io_bytes]));
    expect(again.volbench.job_file).toBe(jobFile);
  });

  it('is null when a value cannot be written in a job file, and the run goes on', async () => {
    const result = await runJobs({
      jobs: [{ name: 'n', ioengine: 'null', size: `${MiB}`, description: 'seq; 1m', filename: scratch.path('n.dat') }],
    });
    expect(result.volbench.job_file).toBeNull();
    expect(result.jobs[0].read?.io_bytes).toBe(MiB);
  });

  it('is left out of a report built without one', () => {
    const report = buildReport({
      startedAtMs: 0, jobs: [{ jobname: 'a', groupid: 0, options: jobOptions(), ownOptions: [], instances: [], targetIndex: 0 }],
      diskUtil: [], targets: [], volbenchVersion: 'test',
    });
    expect('job_file' in report.volbench).toBe(false);
  });
});

describe('the job file of runs made one after another', () => {
  const file = (text: string) => printJobFile(parseSpec(parseJobFile(text, {})));

  it('holds every run\'s jobs in order, each later run\'s first job waiting for the run before', () => {
    const merged = mergedJobFile([file('[a]\nbs=8k\n[b]\nbs=8k\n'), file('[c]\nrw=write\n[d]\n')]);
    const jobs = options(parseSpec(parseJobFile(merged as string, {})));
    expect(jobs.map((o) => [o.name, o.stonewall, o.bs[0], o.rw])).toEqual([
      ['a', false, 8192, 'read'], ['b', false, 8192, 'read'], ['c', true, 4096, 'write'], ['d', false, 4096, 'read'],
    ]);
  });

  it('is one run\'s own, null when a run\'s is null or unreadable, absent when a run has none', () => {
    const one = file('[a]\n');
    expect(mergedJobFile([one])).toBe(one);
    expect(mergedJobFile([one, null])).toBeNull();
    expect(mergedJobFile([one, '[a]\nfilename=${UNSET}\n'])).toBeNull();
    expect(mergedJobFile([one, undefined])).toBeUndefined();
  });

  it('is null when the runs hold more jobs than one job file may (4096, as fio)', () => {
    const many = `${'[j]\n'.repeat(4000)}`;
    expect(mergedJobFile([many, many])).toBeNull();
  });

  it('a suite\'s document holds its tests\' jobs as they ran, its overrides applied', async () => {
    const directory = scratch.path('suite');
    mkdirSync(directory);
    const result = await runSuite('aws-ssd', { size: '4m', runtime: '1', loops: 1, directory });
    const jobs = options(parseSpec(parseJobFile(result.volbench.job_file as string, {})));
    expect(jobs.map((o) => o.name)).toEqual(result.jobs.map((j) => j.jobname));
    expect(jobs[1].stonewall).toBe(true);
    for (const o of jobs) expect(o).toMatchObject({ size: { bytes: 4 * MiB }, runtime_ns: 1e9, directory: [directory] });
  });
});
