/**
 * randrw rwmixread=70 4k QD16 numjobs=2, size-based (each job moves its own 16 MiB), with and
 * without --group_reporting: one entry for the group, or one per job, as fio prints them.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import {
  itPrintsWhatFioPrints, makeWorkspace, runBoth, sampleCountProblems, titled, type Json, type Pair,
  type Workspace,
} from './side-by-side.js';

const needs = requires('tmpfs', 'fio', 'io_uring');

const reason = needs.missing('fio', 'io_uring');
const SIZE = 16 << 20;
const BS = 4096;

/** Per entry, read + write: the split is each tool's own draw, the total is fixed. */
function totals(job: Json): { bytes: number; ios: number; readShare: number } {
  const bytes = job.read.io_bytes + job.write.io_bytes;
  return { bytes, ios: job.read.total_ios + job.write.total_ios, readShare: job.read.io_bytes / bytes };
}

describe.skipIf(reason !== undefined)(titled('randrw 70/30 4k QD16 numjobs=2 io_uring', reason), () => {
  let ws: Workspace;
  let grouped: Pair;
  let separate: Pair;

  beforeAll(async () => {
    ws = makeWorkspace('memory', 'randrw');
    const common = [
      '--name=randrw-7030', `--filename=${join(ws.dir, 'target.bin')}`, '--size=16m', '--direct=1',
      '--ioengine=io_uring', '--rw=randrw', '--rwmixread=70', '--bs=4k', '--iodepth=16', '--numjobs=2',
      '--output-format=json',
    ];
    grouped = await runBoth([...common, '--group_reporting'], ws);
    separate = await runBoth(common, ws);
  });
  afterAll(() => ws?.remove());

  itPrintsWhatFioPrints('randrw numjobs=2 --group_reporting', () => grouped);
  itPrintsWhatFioPrints('randrw numjobs=2 without group_reporting', () => separate);

  it('--group_reporting prints one entry for both jobs, as fio does', () => {
    expect(grouped.fio.json.jobs).toHaveLength(1);
    expect(grouped.volbench.json.jobs).toHaveLength(1);
  });

  it('without group_reporting each job has its own entry, as fio does', () => {
    expect(separate.fio.json.jobs).toHaveLength(2);
    expect(separate.volbench.json.jobs).toHaveLength(2);
  });

  it('each job moves size bytes split about 70/30, read + write equal to fio\'s total', () => {
    for (const [pair, perEntry] of [[grouped, 2], [separate, 1]] as const) {
      pair.volbench.json.jobs.forEach((v: Json, i: number) => {
        const f = totals(pair.fio.json.jobs[i]);
        const t = totals(v);
        expect(t.bytes, `entry ${i}`).toBe(f.bytes);
        expect(t.bytes, `entry ${i}`).toBe(SIZE * perEntry);
        expect(t.ios, `entry ${i}`).toBe((SIZE / BS) * perEntry);
        expect(v.read.io_kbytes + v.write.io_kbytes, `entry ${i}`).toBe(t.bytes / 1024);
        expect(t.readShare, `entry ${i}`).toBeGreaterThan(0.65);
        expect(t.readShare, `entry ${i}`).toBeLessThan(0.75);
      });
    }
  });

  it('every read and write is counted once in clat, lat and slat, with no short or dropped I/O', () => {
    for (const pair of [grouped, separate]) {
      for (const [tool, doc] of [['fio', pair.fio.json], ['volbench', pair.volbench.json]] as const) {
        (doc.jobs as Json[]).forEach((job, i) => {
          for (const dir of ['read', 'write']) {
            expect(sampleCountProblems(job[dir], `${tool} jobs[${i}].${dir}`, true)).toEqual([]);
          }
        });
      }
    }
  });
});
