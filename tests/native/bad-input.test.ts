/**
 * Specs that cannot run reject with a VolbenchError carrying a stable code and the spec field
 * at fault, before any file is created.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { runJobs, type JobSpec } from '../../src/index.js';
import { requires } from '../helpers/requires.js';
import { ScratchDir, volbenchError } from '../helpers/run-fixtures.js';

const needs = requires('tmpfs');

const scratch = new ScratchDir('badinput');
afterAll(() => scratch.remove());

async function rejection(spec: JobSpec) {
  return volbenchError(runJobs(spec));
}

describe('specs refused before any I/O', () => {
  it('a directory that does not exist: ETARGET on directory', async () => {
    const err = await rejection({ jobs: [{ name: 'j', directory: scratch.path('missing'), size: '1m' }] });
    expect(err).toMatchObject({ code: 'ETARGET', field: 'jobs[0].directory' });
  });

  it('a filename in a directory that does not exist: ETARGET on filename', async () => {
    const err = await rejection({ jobs: [{ name: 'j', filename: scratch.path('missing/f.dat'), size: '1m' }] });
    expect(err).toMatchObject({ code: 'ETARGET', field: 'jobs[0].filename', errno: 2 });
  });

  it('a new file without a size: ETARGET on size, and no file is made', async () => {
    const path = scratch.path('nosize.dat');
    const err = await rejection({ jobs: [{ name: 'j', filename: path, rw: 'randread' }] });
    expect(err).toMatchObject({ code: 'ETARGET', field: 'jobs[0].size' });
    expect(existsSync(path)).toBe(false);
  });

  it('size=50% of a file that does not exist yet: ETARGET on size', async () => {
    const path = scratch.path('percent.dat');
    const err = await rejection({ jobs: [{ name: 'j', filename: path, size: '50%' }] });
    expect(err).toMatchObject({ code: 'ETARGET', field: 'jobs[0].size' });
    expect(err.message).toContain('size=50%');
    expect(existsSync(path)).toBe(false);
  });

  it('an unknown option: EUNKNOWN_OPTION with the closest fio option suggested', async () => {
    const err = await rejection({ jobs: [{ name: 'j', filename: scratch.path('u.dat'), size: '1m', iodepht: 4 }] });
    expect(err).toMatchObject({ code: 'EUNKNOWN_OPTION', field: 'jobs[0].iodepht' });
    expect(err.message).toContain("did you mean 'iodepth'");
  });

  it('an unknown option in global names the global section', async () => {
    const err = await rejection({ global: { blocksze: '4k' }, jobs: [{ name: 'j', filename: scratch.path('g.dat'), size: '1m' }] });
    expect(err).toMatchObject({ code: 'EUNKNOWN_OPTION', field: 'global.blocksze' });
    expect(err.message).toContain("did you mean 'blocksize'");
  });

  it('a fio option volbench does not support: EUNSUPPORTED_OPTION', async () => {
    const err = await rejection({ jobs: [{ name: 'j', filename: scratch.path('s.dat'), size: '1m', cpumask: '1' }] });
    expect(err).toMatchObject({ code: 'EUNSUPPORTED_OPTION', field: 'jobs[0].cpumask' });
  });

  it('a fio engine volbench does not have: EUNSUPPORTED_OPTION on ioengine', async () => {
    const err = await rejection({ jobs: [{ name: 'j', filename: scratch.path('e.dat'), size: '1m', ioengine: 'posixaio' }] });
    expect(err).toMatchObject({ code: 'EUNSUPPORTED_OPTION', field: 'jobs[0].ioengine' });
  });

  it.each([
    ['bs', 'fourk'],
    ['rw', 'randomread'],
    ['iodepth', 0],
    ['rwmixread', 101],
    ['ioengine', 'nosuchengine'],
  ])('a bad value for %s (%s): EINVALID_VALUE on that field', async (option, value) => {
    const err = await rejection({ jobs: [{ name: 'j', filename: scratch.path('v.dat'), size: '1m', [option]: value }] });
    expect(err).toMatchObject({ code: 'EINVALID_VALUE', field: `jobs[0].${option}` });
  });

  it('time_based without a runtime: EINVALID_PLAN on runtime', async () => {
    const err = await rejection({ jobs: [{ name: 'j', filename: scratch.path('t.dat'), size: '1m', time_based: 1 }] });
    expect(err).toMatchObject({ code: 'EINVALID_PLAN', field: 'jobs[0].runtime' });
  });

  it('more than 4096 job instances in all: EINVALID_PLAN on the numjobs that passes it', async () => {
    const err = await rejection({ jobs: [{ name: 'a', filename: scratch.path('n.dat'), size: '1m', numjobs: 4000 }, { name: 'b', filename: scratch.path('n.dat'), size: '1m', numjobs: 100 }] });
    expect(err).toMatchObject({ code: 'EINVALID_PLAN', field: 'jobs[1].numjobs' });
  });

  it('rate_process=poisson with a byte rate under one block a second: EINVALID_PLAN on rate (fio divides by zero)', async () => {
    const err = await rejection({ jobs: [{ name: 'j', filename: scratch.path('p.dat'), size: '1m', rate: '1k', rate_process: 'poisson' }] });
    expect(err).toMatchObject({ code: 'EINVALID_PLAN', field: 'jobs[0].rate' });
  });

  it('a spec without jobs: EINVALID_SPEC', async () => {
    const err = await rejection({ jobs: [] });
    expect(err.code).toBe('EINVALID_SPEC');
  });

  it('nothing was laid out by any refused spec', () => {
    for (const name of ['u.dat', 'g.dat', 's.dat', 'e.dat', 'v.dat', 't.dat', 'n.dat', 'p.dat']) expect(existsSync(scratch.path(name))).toBe(false);
  });
});

describe('paths relative to the run\'s cwd', () => {
  it('a relative directory is taken against runJobs\' cwd, not the process\'s', async () => {
    const base = scratch.path('base');
    mkdirSync(join(base, 'rel'), { recursive: true });
    const result = await runJobs({ jobs: [{ name: 'r', directory: 'rel', size: '64k', rw: 'write' }] }, { cwd: base });
    expect(result.jobs[0].error).toBe(0);
    expect(existsSync(join(base, 'rel', 'r.0.0'))).toBe(true);
  });
});
