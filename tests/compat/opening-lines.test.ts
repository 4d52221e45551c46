/**
 * fio's normal output starts with what it prints as the run starts: a line per job (with
 * "..." for its further instances), its version, "Starting N processes", a "Laying out IO file"
 * line per file it makes, and a note when a synchronous engine caps the depth at 1; then a blank
 * line and the report. volbench printed none of these, printed pid=0, and printed combined
 * formats in the order given, where fio prints JSON first and a blank line before the normal
 * text; later it said "Starting 1 thread" (fio's words under --thread, which the job did not
 * ask for) and printed no blank line before a normal report alone. Expected: the same lines
 * (but the version), the same order, the same blank line.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';

import { volbench } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';
import { makeWorkspace, titled } from './side-by-side.js';

const needs = requires('child', 'tmpfs', 'fio', 'libaio');

const reason = needs.missing('fio', 'libaio');
const ws = reason ? undefined : makeWorkspace('memory', 'opening');
afterAll(() => ws?.remove());

/** The lines before the JSON document, the version line taken out. */
function opening(text: string): string[] {
  return text.slice(0, text.indexOf('{\n')).split('\n').filter((l) => l !== '' && !/^(fio|volbench)-/.test(l));
}

function fio(args: string[]): string {
  const r = spawnSync('fio', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout;
}

describe.skipIf(reason !== undefined)(titled("fio's opening lines and the order of combined formats", reason), () => {
  it('match fio for a synchronous job with numjobs and a file to lay out', async () => {
    const flags = (dir: string) => [
      '--name=rr', `--directory=${dir}`, '--size=4m', '--rw=randread', '--bs=4k', '--numjobs=2', '--iodepth=4',
      '--ioengine=psync', '--runtime=1', '--output-format=normal,json',
    ];
    const theirs = fio(flags(ws!.fioDir));
    const ours = await volbench(['run', ...flags(ws!.volbenchDir)]);
    expect(ours.code, ours.stderr).toBe(0);
    expect(opening(ours.stdout)).toEqual(opening(theirs));
    expect(opening(ours.stdout)).toContain('Starting 2 processes');
    // JSON first, then a blank line, then the normal text, whatever the order asked.
    for (const text of [theirs, ours.stdout]) expect(text).toMatch(/\n}\n\nrr: \(groupid=0, jobs=1\): err= 0: pid=\d+: /);
    expect(/: pid=(\d+):/.exec(ours.stdout)![1]).not.toBe('0');
  });

  it('show the engine and block sizes fio shows for a split and an asynchronous engine', async () => {
    const flags = (dir: string) => [
      '--name=split', `--filename=${dir}/f.dat`, '--size=4m', '--rw=randrw', '--bssplit=4k/50:64k/50,8k', '--iodepth=8',
      '--ioengine=libaio', '--direct=1', '--runtime=1', '--output-format=json,normal',
    ];
    const theirs = fio(flags(ws!.fioDir).map((a) => a.replace(ws!.fioDir, ws!.fioDir)));
    const ours = await volbench(['run', ...flags(ws!.volbenchDir)]);
    expect(ours.code, ours.stderr).toBe(0);
    expect(opening(ours.stdout)).toEqual(opening(theirs));
  });

  it('print a blank line before a normal report alone, as fio', async () => {
    const flags = (dir: string) => ['--name=n', `--filename=${dir}/n.dat`, '--size=1m', '--rw=read', '--ioengine=psync'];
    const theirs = fio(flags(ws!.fioDir));
    const ours = await volbench(['run', ...flags(ws!.volbenchDir)]);
    expect(ours.code, ours.stderr).toBe(0);
    const head = (text: string): string[] => text.split('\n').slice(2, 6).map((l) => l.replace(/pid=\d+.*/, 'pid='));
    expect(head(ours.stdout)).toEqual(head(theirs));
    expect(ours.stdout).toMatch(/^Starting 1 process\nn: Laying out IO file \(1 file \/ 1MiB\)\n\nn: \(groupid=0/m);
  });

  it('with JSON alone, stdout is the document and the notes go to stderr', async () => {
    const ours = await volbench(['run', '--name=j', `--filename=${ws!.volbenchDir}/j.dat`, '--size=1m', '--iodepth=2', '--ioengine=psync',
      '--output-format=json']);
    expect(ours.stdout.startsWith('{')).toBe(true);
    expect(ours.stderr).toContain('j: Laying out IO file (1 file / 1MiB)');
    expect(ours.stderr).toContain('queue depth will be capped at 1');
  });
});
