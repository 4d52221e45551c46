/**
 * Jobs that share one file: fio lays it out once, by the first job that needs it, and says so
 * again only when a later job needs it larger. volbench printed "Laying out IO file" for every
 * job that named the file. Expected: the lines fio prints, job for job.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';

import { volbench } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';
import { makeWorkspace, titled } from './side-by-side.js';

const needs = requires('child', 'tmpfs', 'fio');

const reason = needs.missing('fio');
const ws = reason ? undefined : makeWorkspace('memory', 'shared-layout');
afterAll(() => ws?.remove());

function layoutLines(text: string): string[] {
  return text.split('\n').filter((l) => l.includes('Laying out IO file'));
}

describe.skipIf(reason !== undefined)(titled('a file shared by jobs is laid out once, as fio does', reason), () => {
  it('prints one line per file, and one more where a later job extends it', async () => {
    const flags = (dir: string) => [
      '--ioengine=psync', '--rw=read', '--bs=1m', `--filename=${dir}/shared.dat`,
      '--name=a', '--size=8m', '--name=b', '--size=8m', '--name=c', '--size=16m', '--numjobs=2',
      '--output-format=normal',
    ];
    const theirs = spawnSync('fio', ['--thread', ...flags(ws!.fioDir)], { encoding: 'utf8' });
    expect(theirs.status, theirs.stderr).toBe(0);
    const ours = await volbench(['run', ...flags(ws!.volbenchDir)]);
    expect(ours.code, ours.stderr).toBe(0);
    expect(layoutLines(ours.stdout)).toEqual(layoutLines(theirs.stdout));
    expect(layoutLines(ours.stdout)).toEqual(['a: Laying out IO file (1 file / 8MiB)', 'c: Laying out IO file (1 file / 16MiB)']);
  });
});
