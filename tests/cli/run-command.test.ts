/**
 * `volbench run` as a user runs it: the built CLI (dist/cli/main.js, made by `npm run build`)
 * in its own process, with fio's flags or a job file, answering on stdout and stderr with an
 * exit status.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';

import { volbench } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';
import { ScratchDir } from '../helpers/run-fixtures.js';

const needs = requires('child', 'tmpfs', 'dist');

const scratch = new ScratchDir('cli');
afterAll(() => scratch.remove());

describe('volbench run', () => {
  it('with fio flags and --output-format=json prints one JSON document alone on stdout and exits 0', async () => {
    const out = await volbench([
      'run', '--name=cli', `--filename=${scratch.path('flags.dat')}`, '--size=1m', '--bs=4k', '--rw=randread',
      '--iodepth=4', '--output-format=json',
    ]);
    expect(out.code, out.stderr).toBe(0);
    const doc = JSON.parse(out.stdout);
    expect(doc['fio version']).toMatch(/^volbench-/);
    expect(doc.jobs).toHaveLength(1);
    expect(doc.jobs[0].jobname).toBe('cli');
    expect(doc.jobs[0].read.total_ios).toBe(256);
    expect(doc.volbench.jobs[0].cancelled).toBe(false);
  });

  it('runs a job file given by path', async () => {
    const jobFile = scratch.path('two.fio');
    writeFileSync(jobFile, [
      '[global]', `directory=${scratch.dir}`, 'size=1m', 'bs=4k', '',
      '[reader]', 'rw=randread', '',
      '[writer]', 'stonewall', 'rw=randwrite', '',
    ].join('\n'));
    const out = await volbench(['run', jobFile, '--output-format=json']);
    expect(out.code, out.stderr).toBe(0);
    const doc = JSON.parse(out.stdout);
    expect(doc['global options']).toMatchObject({ size: '1m', bs: '4k' });
    expect(doc.jobs.map((j: { jobname: string }) => j.jobname)).toEqual(['reader', 'writer']);
    expect(doc.jobs.map((j: { groupid: number }) => j.groupid)).toEqual([0, 1]);
    expect(doc.jobs[0].read.total_ios).toBe(256);
    expect(doc.jobs[1].write.total_ios).toBe(256);
  });

  it('prints fio normal output by default, with the run status group line', async () => {
    const out = await volbench(['run', '--name=plain', `--filename=${scratch.path('normal.dat')}`, '--size=1m', '--rw=randread']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('Run status group 0 (all jobs):');
    expect(out.stdout).toMatch(/^plain: \(groupid=0, jobs=1\)/m);
  });

  it('writes the report to --output and nothing to stdout', async () => {
    const report = scratch.path('report.json');
    const out = await volbench([
      'run', '--name=tofile', `--filename=${scratch.path('tofile.dat')}`, '--size=1m', '--rw=read',
      '--output-format=json', `--output=${report}`,
    ]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toBe('');
    expect(JSON.parse(readFileSync(report, 'utf8')).jobs[0].read.io_bytes).toBe(1024 * 1024);
  });

  it('rejects an unknown option with exit 2 and a message naming it, running nothing', async () => {
    const path = scratch.path('never.dat');
    const out = await volbench(['run', '--name=bad', `--filename=${path}`, '--size=1m', '--iodepht=4', '--output-format=json']);
    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toContain('iodepht');
    expect(out.stderr).toContain('iodepth');
    expect(existsSync(path)).toBe(false);
  });

  it('refuses an --output whose directory does not exist with exit 2, before any I/O', async () => {
    const path = scratch.path('unwritten.dat');
    const output = scratch.path('no-such-dir/out.json');
    const out = await volbench(['run', '--name=o', `--filename=${path}`, '--size=1m', '--output-format=json', `--output=${output}`]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('--output');
    expect(existsSync(path)).toBe(false);
  });

  it('exits 1 and names the failure on stderr when a job ends with an error', async () => {
    // verify_only on a file that was never written with verify: the first block fails.
    const path = scratch.path('unverified.dat');
    writeFileSync(path, Buffer.alloc(1024 * 1024, 7));
    const out = await volbench([
      'run', '--name=check', `--filename=${path}`, '--size=1m', '--rw=read', '--verify=crc32c', '--verify_only',
      '--output-format=json',
    ]);
    expect(out.code).toBe(1);
    const doc = JSON.parse(out.stdout);
    expect(doc.jobs[0].error).toBe(84);
    expect(out.stderr).toContain('verify');
  });

  it('stops on SIGINT with exit 130 and still prints the partial result', async () => {
    const path = scratch.path('long.dat');
    // The target is laid out after the CLI has installed its signal handlers: interrupt once
    // it exists and I/O has had a moment to run.
    const interruptWhenRunning = (child: ChildProcess): void => {
      const poll = setInterval(() => {
        if (!existsSync(path)) return;
        clearInterval(poll);
        setTimeout(() => child.kill('SIGINT'), 500);
      }, 20);
      child.on('close', () => clearInterval(poll));
    };
    const out = await volbench([
      'run', '--name=long', `--filename=${path}`, '--size=16m', '--rw=randread',
      '--time_based', '--runtime=30s', '--output-format=json',
    ], interruptWhenRunning);
    expect(out.code).toBe(130);
    const doc = JSON.parse(out.stdout);
    expect(doc.volbench.jobs[0].cancelled).toBe(true);
    expect(doc.jobs[0].read.io_bytes).toBeGreaterThan(0);
  });
});

describe('volbench run limits (--max-runtime, --max-size), as the service applies them', () => {
  it('refuses a run longer than --max-runtime with exit 2 naming the runtime, before any I/O', async () => {
    const path = scratch.path('toolong.dat');
    const out = await volbench([
      'run', '--name=long', `--filename=${path}`, '--size=1m', '--rw=randread', '--time_based', '--runtime=5s', '--max-runtime=2s',
    ]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('job long would run 5s, over the limit of 2s [jobs[0].runtime]');
    expect(existsSync(path)).toBe(false);
  });

  it('gives a size-based job the budget as its runtime, so it stops in time', async () => {
    const out = await volbench([
      'run', '--name=slow', `--filename=${scratch.path('slow.dat')}`, '--size=8m', '--rw=read', '--bs=4k', '--rate=1m',
      '--max-runtime=1', '--output-format=json',
    ]);
    expect(out.code, out.stderr).toBe(0);
    // At 1 MiB/s the 8 MiB would take 8 s; the budget of 1 s moves about 1 MiB.
    const bytes = JSON.parse(out.stdout).jobs[0].read.io_bytes;
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThan(3 * 1024 * 1024);
  });

  it('refuses a run addressing more than --max-size with exit 2 naming the size', async () => {
    const out = await volbench(['run', '--name=big', `--filename=${scratch.path('big.dat')}`, '--size=2m', '--rw=write', '--max-size=1m']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('over the limit of 1048576 [jobs[0].size]');
    const bad = await volbench(['run', '--name=x', '--size=1m', '--max-size=lots']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('[--max-size]');
  });
});

describe('volbench run says what it lays out', () => {
  it("prints fio's Laying out IO file line for a read job that creates or extends its file, and records it", async () => {
    // A read job extended a file smaller than its size without a word.
    const path = scratch.path('grown.dat');
    writeFileSync(path, Buffer.alloc(256 * 1024));
    const out = await volbench(['run', '--name=r', `--filename=${path}`, '--size=1m', '--rw=read', '--output-format=json']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toContain('r: Laying out IO file (1 file / 1MiB)');
    const doc = JSON.parse(out.stdout);
    expect(doc.volbench.jobs[0].laid_out).toEqual([{ path, from_bytes: 262144, to_bytes: 1048576 }]);
    // Run again: the file is large enough, nothing is laid out or said.
    const again = await volbench(['run', '--name=r', `--filename=${path}`, '--size=1m', '--rw=read', '--output-format=json']);
    expect(again.stderr).not.toContain('Laying out');
    expect(JSON.parse(again.stdout).volbench.jobs[0].laid_out).toBeUndefined();
  });
});
