/**
 * fio's job-file `include`, and its command flags --section, --readonly and --status-interval,
 * against fio 3.33 on the same files.
 *
 * Broke: each was refused ("not supported by volbench yet"), so job files that share their
 * options through an include, or hold variants as sections, did not run; --readonly, the guard
 * people put on read-only benchmarks of a device that holds data, was refused too.
 * Expected: fio's jobs, options echo and I/O counts from the same job file and flags; a write
 * refused under --readonly with its file untouched, as under fio; a report every interval with
 * fio's keys while the job runs.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import {
  makeWorkspace, parseRawJson, runFio, runVolbench, structureDifferences, titled, type Json, type Workspace,
} from './side-by-side.js';

const needs = requires('child', 'tmpfs', 'fio', 'dist');

const run = promisify(execFile);
const reason = needs.missing('fio', 'dist');
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** The documents a tool printed one after another (--status-interval: each report, then the last). */
function documents(text: string): Json[] {
  return text.split(/\n(?=\{)/).filter((t) => t.trim()).map((t) => JSON.parse(t));
}

describe.skipIf(reason !== undefined)(titled('include, --section, --readonly and --status-interval, as fio', reason), () => {
  let ws: Workspace;
  let jobFile: string;

  beforeAll(() => {
    ws = makeWorkspace('memory', 'command-flags');
    mkdirSync(join(ws.dir, 'inc'));
    writeFileSync(join(ws.dir, 'inc', 'common.fio'), 'ioengine=psync\nbs=8k ; shared\ninclude deeper.fio\n');
    writeFileSync(join(ws.dir, 'inc', 'deeper.fio'), 'size=2m\n');
    jobFile = join(ws.dir, 'jobs.fio');
    writeFileSync(jobFile, [
      '[global]', 'include inc/common.fio', `directory=${ws.dir}`, '',
      '[light]', 'rw=read', 'include inc/light.fio', '',
      '[heavy]', 'rw=randread', 'bs=64k', '',
    ].join('\n'));
    writeFileSync(join(ws.dir, 'inc', 'light.fio'), 'iodepth=2\n');
  });
  afterAll(() => ws?.remove());

  it('a job file with includes runs fio\'s jobs, options and I/O counts', async () => {
    const fio = (await runFio([jobFile, '--output-format=json'], ws.fioDir)).json;
    const volbench = (await runVolbench([jobFile, '--output-format=json'], ws.volbenchDir)).json;
    const summary = (doc: Json) => doc.jobs.map((j: Json) => [j.jobname, j['job options'], j.read.total_ios]);
    expect(summary(volbench)).toEqual(summary(fio));
    expect(volbench['global options']).toEqual(fio['global options']);
    expect(summary(fio)).toEqual([
      ['light', { rw: 'read', iodepth: '2' }, 256],
      ['heavy', { rw: 'randread', bs: '64k' }, 32],
    ]);
  });

  it('--section runs the named sections alone, [global] applying to them', async () => {
    const argv = ['--section=heavy', jobFile, '--output-format=json'];
    const fio = (await runFio(argv, ws.fioDir)).json;
    const volbench = (await runVolbench(argv, ws.volbenchDir)).json;
    expect(volbench.jobs.map((j: Json) => [j.jobname, j.read.total_ios])).toEqual(fio.jobs.map((j: Json) => [j.jobname, j.read.total_ios]));
    expect(fio.jobs.map((j: Json) => j.jobname)).toEqual(['heavy']);
  });

  it('--readonly refuses a write before opening its file, which stays as it was', async () => {
    const target = join(ws.dir, 'keep.bin');
    writeFileSync(target, Buffer.alloc(1 << 20, 7));
    const argv = ['--readonly', '--name=w', `--filename=${target}`, '--rw=write', '--size=1m', '--output-format=json'];
    const fio = await run('fio', argv, { cwd: ws.fioDir }).then(() => 0, (err: { code: number }) => err.code);
    const volbench = await run(process.execPath, [CLI, 'run', ...argv], { cwd: ws.volbenchDir })
      .then(() => ({ code: 0, stderr: '' }), (err: { code: number; stderr: string }) => err);
    expect(fio).not.toBe(0);
    expect(volbench.code).toBe(2);
    expect(volbench.stderr).toMatch(/--readonly refuses every write/);
    expect(volbench.stderr).toMatch(/accepted: /);
    expect(readFileSync(target).equals(Buffer.alloc(1 << 20, 7))).toBe(true);
    // A read of the same file runs.
    const read = (await runVolbench(['--readonly', '--name=r', `--filename=${target}`, '--rw=read', '--size=1m', '--output-format=json'], ws.volbenchDir)).json;
    expect(read.jobs[0].read.total_ios).toBe(256);
    expect(statSync(target).size).toBe(1 << 20);
  });

  it('--status-interval prints the report so far every interval, with fio\'s keys, then the last', async () => {
    const argv = ['--name=st', `--filename=${join(ws.dir, 'st.bin')}`, '--size=4m', '--rw=randread', '--ioengine=psync',
      '--time_based', '--runtime=1700ms', '--status-interval=500ms', '--output-format=json'];
    const fioText = readFileSync(await (async () => {
      const out = join(ws.fioDir, 'status.json');
      await run('fio', [...argv, `--output=${out}`], { cwd: ws.fioDir });
      return out;
    })(), 'utf8');
    const { stdout } = await run(process.execPath, [CLI, 'run', ...argv], { cwd: ws.volbenchDir, maxBuffer: 64 << 20 });
    const fio = documents(fioText);
    const volbench = documents(stdout);
    // Reports at 0.5, 1 and 1.5 s, then the last (fio's clock starts before its layout, and the
    // one due as the run ends may come or not, in either tool).
    expect(volbench.length).toBeGreaterThanOrEqual(4);
    expect(fio.length).toBeGreaterThanOrEqual(3);
    const ios = volbench.map((d) => d.jobs[0].read.total_ios);
    expect(ios).toEqual([...ios].sort((a, b) => a - b));
    expect(ios[0]).toBeGreaterThan(0);
    const interim = volbench[0].jobs[0];
    expect(Math.abs(interim.read.runtime - 500)).toBeLessThan(100);
    expect(interim.read.clat_ns.N).toBe(interim.read.total_ios);
    const raw = (doc: Json) => parseRawJson(JSON.stringify(doc));
    expect(structureDifferences(raw(fio[0]), raw(volbench[0]))).toEqual([]);
  });
});
