/**
 * A job file with [global] and two jobs, the second behind a stonewall (fio-reference/10-jobfile.fio
 * pointed at a temporary file, 16 MiB, 1 s per group), through fio and through volbench's CLI:
 * groups 0 and 1, and the "global options" and "job options" echoes exactly as fio prints them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import {
  itPrintsWhatFioPrints, makeWorkspace, runBoth, timeBasedProblems, titled, type Json, type Pair,
  type Workspace,
} from './side-by-side.js';

const needs = requires('tmpfs', 'fio', 'dist', 'io_uring');

const reason = needs.missing('fio', 'io_uring');

function jobFile(target: string): string {
  return `[global]
filename=${target}
size=16M
direct=1
ioengine=io_uring
runtime=1
time_based
group_reporting

[seqread-1m]
rw=read
bs=1m
iodepth=8

[randwrite-4k]
stonewall
rw=randwrite
bs=4k
iodepth=32
numjobs=2
`;
}

describe.skipIf(reason !== undefined)(titled('job file with [global] and a stonewalled second job', reason), () => {
  let ws: Workspace;
  let pair: Pair;

  beforeAll(async () => {
    ws = makeWorkspace('memory', 'jobfile');
    const path = join(ws.dir, 'two-groups.fio');
    writeFileSync(path, jobFile(join(ws.dir, 'target.bin')));
    pair = await runBoth([path, '--output-format=json'], ws, 'cli');
  });
  afterAll(() => ws?.remove());

  itPrintsWhatFioPrints('job file [global] + 2 jobs', () => pair);

  it('the stonewall starts a second group: groupid 0 then 1, one entry per group', () => {
    const groups = (doc: Json): Array<[string, number]> => (doc.jobs as Json[]).map((j) => [j.jobname, j.groupid]);
    expect(groups(pair.fio.json)).toEqual([['seqread-1m', 0], ['randwrite-4k', 1]]);
    expect(groups(pair.volbench.json)).toEqual(groups(pair.fio.json));
  });

  it('"global options" echoes the [global] section exactly as fio does', () => {
    expect(pair.fio.json['global options']).toBeDefined();
    expect(pair.volbench.json['global options']).toEqual(pair.fio.json['global options']);
  });

  it('each group runs its 1 s; the grouped numjobs=2 entry sums both jobs\' runtimes', () => {
    const seq = { runtimeMs: 1000, instances: 1, directions: ['read'] } as const;
    const rnd = { runtimeMs: 1000, instances: 2, directions: ['write'] } as const;
    for (const [tool, doc] of [['fio', pair.fio.json], ['volbench', pair.volbench.json]] as const) {
      expect(timeBasedProblems(doc.jobs[0], `${tool} seqread-1m`, seq)).toEqual([]);
      expect(timeBasedProblems(doc.jobs[1], `${tool} randwrite-4k`, rnd)).toEqual([]);
    }
  });
});
