/**
 * Every suite run for real, shortened (4 MiB, 1 s, one or two loops) on tmpfs: the document has
 * a job per test in suite order with the suite's group ids, the loop figures, and the suite's
 * files are gone afterwards; overrides reach the echo; bad input is refused before any I/O.
 */
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';

import { VolbenchError } from '../../src/errors.js';
import type { FioResult } from '../../src/fio-output/fio-result.js';
import { combineDiskUtil, runSuite, type SuiteRunOptions } from '../../src/suites/index.js';
import { requires } from '../helpers/requires.js';
import { ScratchDir } from '../helpers/run-fixtures.js';

const needs = requires('tmpfs');

const scratch = new ScratchDir('suites');
afterAll(() => scratch.remove());

function dirFor(name: string): string {
  const dir = scratch.path(name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

const SHORT: SuiteRunOptions = { size: '4m', runtime: '1', loops: 1 };

function names(result: FioResult): string[] {
  return result.jobs.map((j) => j.jobname);
}

async function refusal(name: string, options: SuiteRunOptions): Promise<VolbenchError> {
  try {
    await runSuite(name, options);
  } catch (err) {
    expect(err).toBeInstanceOf(VolbenchError);
    return err as VolbenchError;
  }
  throw new Error(`suite ${name} ran`);
}

describe('runSuite', () => {
  it.each([
    ['ars', ['RND4K-Q1T1-write', 'RND64K-Q16T16-write', 'RND1M-Q1T1-write']],
    ['aws-ssd', ['RND16K-Q1T16-write', 'RND16K-Q1T16-read']],
    ['aws-hdd', ['SEQ1M-Q8T1-read', 'SEQ1M-Q8T1-write']],
    ['kdiskmark-nvme', ['SEQ1M-Q8T1-read', 'SEQ128K-Q32T1-read', 'RND4K-Q32T16-read', 'RND4K-Q1T1-read',
      'SEQ1M-Q8T1-write', 'SEQ128K-Q32T1-write', 'RND4K-Q32T16-write', 'RND4K-Q1T1-write']],
  ])('%s gives one entry per test, a group per test, and removes its files', async (name, jobs) => {
    const directory = dirFor(name);
    const result = await runSuite(name as string, { ...SHORT, directory });
    expect(names(result)).toEqual(jobs);
    expect(result.jobs.map((j) => j.groupid)).toEqual(jobs.map((_, i) => i));
    expect(result.jobs.every((j) => j.error === 0)).toBe(true);
    expect(result.volbench.jobs.map((j) => [j.jobname, j.groupid])).toEqual(result.jobs.map((j) => [j.jobname, j.groupid]));
    expect(result.volbench.suite).toMatchObject({ name, loops: 1, runs: jobs.length });
    // --size and --runtime reach every test, also those that set their own (ars).
    expect(result['global options']).toMatchObject({ directory, size: '4m', runtime: '1' });
    for (const j of result.jobs) if (j['job options']?.size !== undefined) expect(j['job options'].size).toBe('4m');
    if (name === 'ars') expect(result.jobs.map((j) => j['job options']!.size)).toEqual(['4m', '4m', '4m']);
    // Each test's figures are those of the entry kept.
    for (const [i, vj] of result.volbench.jobs.entries()) {
      expect(vj.loops).toMatchObject({ count: 1, best: 1 });
      const dir = result.jobs[i].read?.total_ios ? 'read' : 'write';
      expect(vj.loops!.values[0][dir]!.iops).toBe(result.jobs[i][dir]!.iops);
    }
    expect(readdirSync(directory)).toEqual([]);
  });

  it('kdiskmark runs every test `loops` times and keeps the best loop, with the median of all', async () => {
    const directory = dirFor('kdiskmark');
    const started: string[] = [];
    const result = await runSuite('kdiskmark', { ...SHORT, loops: 2, directory, onTest: (e) => started.push(`${e.test}/${e.tests}:${e.loop}/${e.loops}`) });
    expect(names(result)).toEqual([
      'SEQ1M-Q8T1-read', 'SEQ1M-Q1T1-read', 'RND4K-Q32T1-read', 'RND4K-Q1T1-read',
      'SEQ1M-Q8T1-write', 'SEQ1M-Q1T1-write', 'RND4K-Q32T1-write', 'RND4K-Q1T1-write',
    ]);
    expect(started).toHaveLength(16);
    expect(started.slice(0, 3)).toEqual(['1/8:1/2', '1/8:2/2', '2/8:1/2']);
    expect(result.volbench.suite).toMatchObject({ name: 'kdiskmark', loops: 2, runs: 16 });
    for (const [i, vj] of result.volbench.jobs.entries()) {
      const dir = i < 4 ? 'read' : 'write';
      const loops = vj.loops!;
      expect(loops.values.map((v) => v.loop)).toEqual([1, 2]);
      const bw = loops.values.map((v) => v[dir]!.bw_bytes);
      expect(loops.values[loops.best - 1][dir]!.bw_bytes).toBe(Math.max(...bw));
      expect(result.jobs[i][dir]!.bw_bytes).toBe(Math.max(...bw));
      expect(loops.median[dir]!.bw_bytes).toBeCloseTo((bw[0] + bw[1]) / 2, 3);
      // Every loop read or wrote the whole 4 MiB file once (not time_based: size ends the test).
      expect(result.jobs[i][dir]!.io_bytes).toBe(4 * 1024 * 1024);
    }
    expect(readdirSync(directory)).toEqual([]);
  });

  it('runs every test on --filename and never removes it', async () => {
    const directory = dirFor('overrides');
    const filename = `${directory}/mine.bin`;
    const kdm = await runSuite('kdiskmark', { ...SHORT, filename });
    expect(kdm['global options']).toMatchObject({ filename, size: '4m', runtime: '1' });
    expect(kdm.jobs[7]['job options']).toMatchObject({ unlink: '0' });
    expect(existsSync(filename)).toBe(true);
  });

  it('cancelled before a test\'s last loop still removes that test\'s files', async () => {
    // Regression: unlink waits for the last loop, and a cancel before it left the files behind.
    const directory = dirFor('cancelled');
    const controller = new AbortController();
    const result = await runSuite('kdiskmark', {
      size: '4m', runtime: '1', loops: 3, directory, signal: controller.signal,
      onTest: (e) => {
        if (e.loop === 2) controller.abort();
      },
    });
    // The suite stops at the first test; its complete first loop is the run kept.
    expect(names(result)).toEqual(['SEQ1M-Q8T1-read']);
    expect(result.volbench.jobs[0].loops).toMatchObject({ count: 2 });
    expect(readdirSync(directory)).toEqual([]);
  });

  it('refuses bad input before any I/O', async () => {
    const directory = dirFor('refused');
    expect((await refusal('nope', { directory })).message).toContain("there is no suite named 'nope'");
    expect((await refusal('ars', {})).message).toContain('needs a target');
    expect((await refusal('initialize', { directory })).message).toContain('reads a whole block device');
    expect((await refusal('ars', { directory, loops: 0 })).field).toBe('loops');
    expect((await refusal('ars', { directory, size: '4 furlongs' })).code).toBe('EINVALID_VALUE');
    expect((await refusal('aws-hdd', { directory })).message).toMatch(/size is needed/);
    const assertion = await refusal('kdiskmark', { directory, assertions: ['RND4K-Q32T1-read.write.iops > 1'] });
    expect(assertion.message).toContain('has no write direction');
    expect(readdirSync(directory)).toEqual([]);
  });
});

describe('combineDiskUtil', () => {
  it('adds counters and weighs utilisation by each run\'s time', () => {
    const d = (ios: number, util: number) => ({
      name: 'nvme1n1', read_ios: ios, write_ios: 1, read_merges: 0, write_merges: 0, read_ticks: 10, write_ticks: 0, in_queue: 10, util,
    });
    expect(combineDiskUtil([{ diskUtil: [d(100, 90)], durationMs: 3000 }, { diskUtil: [d(50, 50)], durationMs: 1000 }])).toEqual([
      { name: 'nvme1n1', read_ios: 150, write_ios: 2, read_merges: 0, write_merges: 0, read_ticks: 20, write_ticks: 0, in_queue: 20, util: 80 },
    ]);
    expect(combineDiskUtil([{ diskUtil: [], durationMs: 10 }])).toEqual([]);
  });
});
