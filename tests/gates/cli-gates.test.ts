/**
 * `--assert`, `--junit` and `--github` on `volbench run`, end to end in the built CLI. The jobs
 * use the null engine, so the numbers asserted on (io_bytes, error) are exact.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';

import { volbench } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';
import { ScratchDir } from '../helpers/run-fixtures.js';
import { findAll, parseXml } from '../helpers/xml.js';

const needs = requires('child', 'tmpfs', 'dist');

const scratch = new ScratchDir('gates-cli');
afterAll(() => scratch.remove());

const NULL_JOB = ['run', '--name=g', '--ioengine=null', '--size=1m', '--bs=4k', '--rw=read', '--output-format=json'];

describe('volbench run with gates', () => {
  it('exits 0 when every assertion holds, recording them in the JSON and the JUnit report', async () => {
    const junit = scratch.path('pass.xml');
    const out = await volbench([...NULL_JOB, '--assert', 'g.io_bytes == 1MiB', '--assert=g.error == 0', '--junit', junit]);
    expect(out.code, out.stderr).toBe(0);
    const doc = JSON.parse(out.stdout);
    expect(doc.volbench.assertions).toMatchObject([
      { expr: 'g.io_bytes == 1MiB', job: 'g', dir: 'read', metric: 'io_bytes', op: '==', wanted: 1048576, measured: 1048576, passed: true, unit: 'B' },
      { expr: 'g.error == 0', dir: null, measured: 0, passed: true },
    ]);
    expect(out.stderr).toContain('volbench: PASS g.io_bytes == 1MiB (measured 1MiB, wanted == 1MiB)');
    expect(out.stderr).toContain('volbench: 2 of 2 assertions hold');
    const xml = parseXml(readFileSync(junit, 'utf8'));
    expect(findAll(xml, 'testcase')).toHaveLength(2);
    expect(findAll(xml, 'failure')).toHaveLength(0);
  });

  it('exits 1 when one fails, printing measured against wanted, with a <failure> and an ::error', async () => {
    const junit = scratch.path('fail.xml');
    const out = await volbench([...NULL_JOB, '--assert', 'g.io_bytes > 2MiB', '--assert', 'g.read.io_bytes >= 512KiB', '--junit', junit, '--github']);
    expect(out.code, out.stderr).toBe(1);
    expect(out.stderr).toContain('volbench: FAIL g.io_bytes > 2MiB: measured 1MiB, wanted > 2MiB');
    expect(out.stderr).toContain('volbench: 1 of 2 assertions hold');
    expect(out.stderr).toContain('::error title=volbench%3A g.io_bytes > 2MiB::fails: measured 1MiB, wanted > 2MiB\n');
    expect(out.stderr).toContain('::notice title=volbench%3A g.read.io_bytes >= 512KiB::holds: measured 1024KiB, wanted >= 512KiB\n');
    const doc = JSON.parse(out.stdout);
    expect(doc.volbench.assertions.map((a: { passed: boolean }) => a.passed)).toEqual([false, true]);
    const cases = findAll(parseXml(readFileSync(junit, 'utf8')), 'testcase');
    expect(cases.map((c) => findAll(c, 'failure').length)).toEqual([1, 0]);
    const measured = cases.map((c) => findAll(c, 'property').find((p) => p.attrs.name === 'measured')!.attrs.value);
    expect(measured).toEqual(['1048576', '1048576']);
  });

  it('exits 2 on a malformed assertion before any I/O: the target file is never created', async () => {
    const target = scratch.path('never.dat');
    const out = await volbench(['run', '--name=g', `--filename=${target}`, '--size=1m', '--rw=write', '--assert', 'g.iops >> 5']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("assertion 'g.iops >> 5'");
    expect(out.stdout).toBe('');
    expect(existsSync(target)).toBe(false);
  });

  it('exits 2 on an assertion naming a job or metric the spec lacks, before any I/O', async () => {
    const target = scratch.path('never2.dat');
    const job = ['run', '--name=g', `--filename=${target}`, '--size=1m', '--rw=randrw'];
    const unknown = await volbench([...job, '--assert', 'h.read.iops > 1']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("there is no job named 'h' (jobs: g)");
    const ambiguous = await volbench([...job, '--assert', 'g.iops > 1']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain('name the direction, g.read.iops or g.write.iops');
    const noLat = await volbench([...job, '--assert', 'g.read.lat_ns.p99 < 1ms']);
    expect(noLat.code).toBe(2);
    expect(noLat.stderr).toContain('lat_percentiles=1');
    expect(readdirSync(scratch.dir).filter((f) => f.startsWith('never'))).toEqual([]);
  });

  it('refuses a JUnit path in a missing directory before any I/O', async () => {
    const out = await volbench([...NULL_JOB, '--assert', 'g.error == 0', '--junit', scratch.path('no/such/dir/r.xml')]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('cannot write the JUnit report');
    expect(out.stdout).toBe('');
  });
});
