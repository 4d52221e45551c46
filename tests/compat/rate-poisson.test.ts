/**
 * rate_process=poisson spaces a rated job's I/Os by exponential gaps, as fio 3.33 draws them
 * (backend.c usec_for_io: a second over the rate, in whole µs, times -ln(u) in single precision,
 * u from the direction's own generator), so the I/Os arrive as a Poisson process's do: at the
 * rate on average, but their count per second varies as much as its mean (an index of
 * dispersion, variance over mean, near 1), where the linear limiter's barely varies (near 0).
 * The same seed gives fio's gaps: the same count over the same time.
 *
 * Measured on the I/Os each tool logged (a per-I/O iops log), counted per whole second, with
 * fio, volbench's poisson job and volbench's linear one at 400 IOPS running at the same time.
 * At fio's default seed the first five seconds count 375, 375, 389, 401, 441 I/Os (a
 * dispersion of 1.88); the linear job 400 each.
 *
 * Was refused before (rate_process is not supported by volbench yet).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runJobs } from '../../src/index.js';
import { requires } from '../helpers/requires.js';
import { makeWorkspace, titled, type Json, type Workspace } from './side-by-side.js';

const needs = requires('tmpfs', 'fio');
const reason = needs.missing('fio');
const RATE = 400;
const SECONDS = 5;
const JOB = ['--ioengine=null', '--size=1g', '--rw=randread', `--rate_iops=${RATE}`, '--time_based', `--runtime=${SECONDS}`];

/** I/Os per whole second of the run, from a per-I/O log's msec column. */
function perSecond(log: string): number[] {
  const counts = new Array<number>(SECONDS).fill(0);
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    const ms = Number(line.split(',')[0]);
    if (line && ms < SECONDS * 1000) counts[Math.floor(ms / 1000)]++;
  }
  return counts;
}

/** Variance (unbiased) over mean: 1 for a Poisson process's counts, 0 for a steady one's. */
function dispersion(counts: readonly number[]): number {
  const mean = counts.reduce((a, b) => a + b, 0) / counts.length;
  const variance = counts.reduce((a, c) => a + (c - mean) ** 2, 0) / (counts.length - 1);
  return variance / mean;
}

describe.skipIf(reason !== undefined)(titled('rate_process=poisson: fio\'s exponential gaps', reason), () => {
  let ws: Workspace;
  const jobs: Record<string, Json> = {};
  const counts: Record<string, number[]> = {};

  beforeAll(async () => {
    ws = makeWorkspace('memory', 'poisson');
    const fio = promisify(execFile)('fio', ['--name=poisson', ...JOB, '--rate_process=poisson', '--write_iops_log=p',
      '--output-format=json'], { cwd: ws.fioDir });
    const volbench = runJobs({
      global: { ioengine: 'null', size: '1g', rw: 'randread', rate_iops: RATE, time_based: 1, runtime: SECONDS },
      jobs: [
        { name: 'poisson', rate_process: 'poisson', write_iops_log: join(ws.volbenchDir, 'p') },
        // The second job of the run: fio would number its log 2, and seed it as the second.
        { name: 'linear', write_iops_log: join(ws.volbenchDir, 'l') },
      ],
    });
    const [f, v] = await Promise.all([fio, volbench]);
    jobs.fio = JSON.parse(f.stdout).jobs[0];
    [jobs.poisson, jobs.linear] = v.jobs;
    counts.fio = perSecond(join(ws.fioDir, 'p_iops.1.log'));
    counts.poisson = perSecond(join(ws.volbenchDir, 'p_iops.1.log'));
    counts.linear = perSecond(join(ws.volbenchDir, 'l_iops.2.log'));
  }, 60_000);
  afterAll(() => ws?.remove());

  it('holds the rate within 10% over the run, as the linear limiter does', () => {
    for (const name of ['fio', 'poisson', 'linear']) {
      expect(jobs[name].read.iops, name).toBeGreaterThan(0.9 * RATE);
      expect(jobs[name].read.iops, name).toBeLessThan(1.1 * RATE);
    }
  });

  // The linear limiter's counts are 400 a second on a quiet machine (a dispersion of 0); a stall
  // of the machine across a second's end moves some into the next (385, 415: 0.23), so the bound
  // leaves room for that, and the Poisson job's must stand well above it.
  it('per-second counts vary as a Poisson process\'s (dispersion near 1); the linear limiter\'s barely', () => {
    const linear = dispersion(counts.linear);
    expect(linear, counts.linear.join(',')).toBeLessThan(0.5);
    for (const name of ['poisson', 'fio']) {
      expect(dispersion(counts[name]), `${name}: ${counts[name].join(',')}`).toBeGreaterThan(Math.max(0.9, 3 * linear));
    }
  });

  it('fio\'s gaps at the same seed: the same I/Os in the same time, within a few', () => {
    expect(Math.abs(jobs.poisson.read.total_ios - jobs.fio.read.total_ios)).toBeLessThanOrEqual(5);
    const byFio = counts.fio.reduce((a, b) => a + b, 0);
    expect(Math.abs(counts.poisson.reduce((a, b) => a + b, 0) - byFio)).toBeLessThanOrEqual(5);
  });
});
