/**
 * Where a job's file goes. With both `directory` and an absolute `filename`, volbench used the
 * filename as it was and ignored the directory; fio joins them (/tmp/A and /tmp/B/x give
 * /tmp/A/tmp/B/x), and so does volbench now. A job file written for fio must put its files
 * where fio would.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { runJobs } from '../../src/index.js';
import { instancePath } from '../../src/plan/targets.js';
import { parseSpec } from '../../src/jobspec/index.js';
import { requires } from '../helpers/requires.js';
import { ScratchDir } from '../helpers/run-fixtures.js';

const needs = requires('tmpfs');

const scratch = new ScratchDir('plan-paths');
afterAll(() => scratch.remove());

const options = (job: Record<string, string>) => parseSpec({ jobs: [{ name: 'j', ...job }] }).jobs[0].options;

describe('instancePath', () => {
  it('puts an absolute filename inside directory, as fio does', () => {
    expect(instancePath(options({ directory: '/tmp/A', filename: '/tmp/B/x' }), 0, '/cwd')).toBe('/tmp/A/tmp/B/x');
    expect(instancePath(options({ directory: 'rel', filename: 'x' }), 0, '/cwd')).toBe('/cwd/rel/x');
    expect(instancePath(options({ filename: '/abs/x' }), 0, '/cwd')).toBe('/abs/x');
    expect(instancePath(options({ directory: '/d' }), 2, '/cwd')).toBe('/d/j.2.0');
  });

  it('a run with directory and an absolute filename lays the file out under the directory', async () => {
    const a = scratch.path('A');
    mkdirSync(join(a, scratch.dir), { recursive: true });
    const outside = scratch.path('x.dat');
    await runJobs({ jobs: [{ name: 'j', directory: a, filename: outside, rw: 'write', size: '64k' }] });
    expect(existsSync(join(a, outside))).toBe(true);
    expect(existsSync(outside)).toBe(false);
  });
});
