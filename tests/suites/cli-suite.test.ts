/**
 * `volbench suite` in the built CLI: --list and --show, a gated run (JSON on stdout, the table
 * and gate lines on stderr, JUnit written, exit 1 on a failed gate), refusals with exit 2 before
 * any I/O, and `initialize` on a small loop device (reads it whole, needs no write opt-in).
 */
import { readdirSync, readFileSync, mkdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';

import { runSuite } from '../../src/suites/index.js';
import { volbench } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';
import { ScratchDir } from '../helpers/run-fixtures.js';
import { TargetFixtures } from '../helpers/target-fixtures.js';
import { findAll, parseXml } from '../helpers/xml.js';

const needs = requires('child', 'tmpfs', 'loop', 'dist');

const scratch = new ScratchDir('suite-cli');
afterAll(() => scratch.remove());

describe('volbench suite', () => {
  it('--list maps every suite to fio commands and --show prints a job file', async () => {
    const list = await volbench(['suite', '--list']);
    expect(list.code, list.stderr).toBe(0);
    for (const name of ['ars', 'kdiskmark', 'kdiskmark-nvme', 'aws-ssd', 'aws-hdd', 'initialize']) {
      expect(list.stdout).toMatch(new RegExp(`^${name}: `, 'm'));
    }
    expect(list.stdout).toContain('fio --name=SEQ1M-Q32T1-read --rw=read --bs=1M --iodepth=32 --ioengine=libaio --direct=1 --filename=/dev/<device>');
    const show = await volbench(['suite', '--show', 'aws-ssd']);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('[RND16K-Q1T16-write]\nrw=randwrite');
  });

  it('runs a suite with gates: JSON on stdout, the table on stderr, JUnit, exit 1 on a failed gate', async () => {
    const directory = scratch.path('run');
    mkdirSync(directory);
    const junit = scratch.path('kdm.xml');
    const started = Date.now();
    // --no-cloud-lookup as run takes it (on EC2: do not ask AWS which volume the target is).
    const out = await volbench([
      'suite', 'kdiskmark', '--directory', directory, '--size=4m', '--runtime', '1', '--loops', '2', '--output-format=json', '--no-cloud-lookup',
      '--assert', 'RND4K-Q32T1-read.iops >= 1', '--assert', 'RND4K-Q1T1-read.clat_ns.p99.5 <= 1s',
      '--assert', 'SEQ1M-Q8T1-write.io_bytes > 4MiB', '--junit', junit,
    ]);
    expect(out.code, out.stderr).toBe(1);
    const doc = JSON.parse(out.stdout);
    expect(doc.jobs).toHaveLength(8);
    expect(doc.volbench.suite).toMatchObject({ name: 'kdiskmark', loops: 2, runs: 16 });
    expect(doc.volbench.assertions.map((a: { passed: boolean }) => a.passed)).toEqual([true, true, false]);
    expect(doc.volbench.assertions[2]).toMatchObject({ measured: 4194304, wanted: 4194304, op: '>' });
    const wallS = (Date.now() - started) / 1000;
    // Off a terminal, a line as each run starts and as it ends, with its loop, figures and the suite's ETA.
    expect(out.stderr).toContain('volbench suite kdiskmark: [1/8] SEQ1M-Q8T1-read, loop 1/2\n');
    expect(out.stderr).toContain('volbench suite kdiskmark: [1/8] SEQ1M-Q8T1-read, loop 2/2\n');
    expect(out.stderr).toMatch(/^volbench suite kdiskmark: \[3\/8\] RND4K-Q32T1-read, loop 1\/2: [\d,]+ IOPS, p99 [\d.]+\w+, [\d.]+ s; suite eta \d\dm:\d\ds$/m);
    expect(out.stderr).toMatch(/^volbench suite kdiskmark: laid out .*kdiskmark\.tmp: 4096KiB in [\d.]+ s/m);
    expect(out.stderr).toMatch(/^first done: SEQ1M-Q8T1-read at [\d.]+ s; last done: RND4K-Q1T1-write at [\d.]+ s \([\d.]+ s apart\)$/m);
    expect(out.stderr).toMatch(/^test +dir +IOPS +MiB\/s +clat mean +clat p99 +median IOPS +median MiB\/s$/m);
    expect(out.stderr).toMatch(/^RND4K-Q32T1-read +read +\d+/m);
    expect(out.stderr).toContain('volbench: FAIL SEQ1M-Q8T1-write.io_bytes > 4MiB: measured 4MiB, wanted > 4MiB');
    const cases = findAll(parseXml(readFileSync(junit, 'utf8')), 'testcase');
    expect(cases.map((c) => c.attrs.classname)).toEqual(['volbench.kdiskmark.RND4K-Q32T1-read', 'volbench.kdiskmark.RND4K-Q1T1-read', 'volbench.kdiskmark.SEQ1M-Q8T1-write']);
    expect(cases.map((c) => findAll(c, 'failure').length)).toEqual([0, 0, 1]);
    // JUnit's times are wall times: each test's (both loops, its layout too) and the suite's, at
    // least until its last test was done as the progress lines count it, and within the command's
    // (broke: time="0" to "5" for suites of 2 to 120 s). Not a share of the command's: on a busy
    // machine Node's own start took half of it.
    const suiteTime = Number(findAll(parseXml(readFileSync(junit, 'utf8')), 'testsuite')[0].attrs.time);
    const lastDone = Number(/last done: RND4K-Q1T1-write at ([\d.]+) s/.exec(out.stderr)![1]);
    expect(lastDone).toBeGreaterThan(0);
    expect(suiteTime).toBeGreaterThanOrEqual(lastDone - 0.05);
    expect(suiteTime).toBeLessThanOrEqual(wallS);
    const testTimes = cases.map((c) => Number(c.attrs.time));
    expect(testTimes.every((t) => t > 0 && t < suiteTime)).toBe(true);
    expect(doc.volbench.suite.tests.map((t: { jobs: string[]; runs: number }) => [t.jobs, t.runs])).toEqual(doc.jobs.map((j: { jobname: string }) => [[j.jobname], 2]));
    expect(doc.volbench.suite.wall_ms / 1000).toBeCloseTo(suiteTime, 2);
    expect(readdirSync(directory)).toEqual([]);
  });

  it('counts every test and loop against --max-runtime, as the service does', async () => {
    const directory = scratch.path('budget');
    mkdirSync(directory);
    // kdiskmark: 8 tests of 2 s, 5 loops: 80 s in all.
    const out = await volbench(['suite', 'kdiskmark', '--directory', directory, '--size=4m', '--runtime=2', '--max-runtime=60s']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('(the run: 80s over 5 loops), over the limit of 60s');
    expect(readdirSync(directory)).toEqual([]);
  });

  it('exits 2 before any I/O on a malformed assertion or an unknown job, creating no file', async () => {
    const directory = scratch.path('refused');
    mkdirSync(directory);
    const malformed = await volbench(['suite', 'kdiskmark', '--directory', directory, '--assert', 'RND4K-Q32T1-read.iops => 3000']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain("assertion 'RND4K-Q32T1-read.iops => 3000'");
    const unknown = await volbench(['suite', 'kdiskmark', '--directory', directory, '--assert', 'RND4K-Q64T1-read.iops >= 1']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("there is no job named 'RND4K-Q64T1-read' (jobs: SEQ1M-Q8T1-read, SEQ1M-Q1T1-read");
    // What suite takes, as its --help lists it.
    const bogus = await volbench(['suite', 'kdiskmark', '--directory', directory, '--bogus']);
    expect(bogus.code).toBe(2);
    for (const flag of ['--volume', '--instance', '--prices', '--max-runtime', '--no-cloud-lookup']) expect(bogus.stderr).toMatch(new RegExp(`accepted: .*${flag}`));
    const noTarget = await volbench(['suite', 'ars']);
    expect(noTarget.code).toBe(2);
    expect(noTarget.stderr).toContain('suite ars: needs a target');
    expect(readdirSync(directory)).toEqual([]);
  });
});

const noLoop = needs.missing('loop');

describe.skipIf(noLoop !== undefined)(`initialize on a loop device${noLoop ? ` (skipped: ${noLoop})` : ''}`, () => {
  it('reads the whole device once without --allow_block_write', async () => {
    const fixtures = new TargetFixtures('initialize', '/dev/shm');
    try {
      const dev = fixtures.attachLoop(fixtures.image('disk.img', 12 * 1024 * 1024));
      const result = await runSuite('initialize', { filename: dev });
      expect(result.jobs.map((j) => [j.jobname, j.groupid, j.error])).toEqual([['SEQ1M-Q32T1-read', 0, 0]]);
      expect(result.jobs[0].read!.io_bytes).toBe(12 * 1024 * 1024);
      expect(result.jobs[0].write!.io_bytes).toBe(0);
      expect(result.volbench.targets[0]).toMatchObject({ path: dev, is_block_device: true });
      expect(result.disk_util?.map((d) => d.name)).toEqual([dev.replace('/dev/', '')]);
    } finally {
      fixtures.release();
    }
  });
});
