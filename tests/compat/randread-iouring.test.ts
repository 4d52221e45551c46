/**
 * randread 4k QD32 io_uring direct=1 on tmpfs, through fio and volbench: once size-based (every
 * block of a 64 MiB file read once) and once time-based (2 s).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import {
  itPrintsWhatFioPrints, makeWorkspace, runBoth, sampleCountProblems, timeBasedProblems, titled,
  type Pair, type Workspace,
} from './side-by-side.js';

const needs = requires('tmpfs', 'fio', 'io_uring');

const reason = needs.missing('fio', 'io_uring');
const SIZE = 64 << 20;
const BS = 4096;

describe.skipIf(reason !== undefined)(titled('randread 4k QD32 io_uring direct=1', reason), () => {
  let ws: Workspace;
  let sized: Pair;
  let timed: Pair;
  let batched: Pair;

  beforeAll(async () => {
    ws = makeWorkspace('memory', 'randread');
    const common = [
      '--name=randread-qd32', `--filename=${join(ws.dir, 'target.bin')}`, '--size=64m', '--direct=1',
      '--ioengine=io_uring', '--rw=randread', '--bs=4k', '--iodepth=32', '--output-format=json',
    ];
    sized = await runBoth(common, ws);
    timed = await runBoth([...common, '--runtime=2', '--time_based'], ws);
    batched = await runBoth([...common, '--iodepth_batch_submit=0'], ws);
  });
  afterAll(() => ws?.remove());

  itPrintsWhatFioPrints('randread QD32 io_uring size=64m', () => sized);
  itPrintsWhatFioPrints('randread QD32 io_uring runtime=2 time_based', () => timed);

  it('size-based randread reads every block once: total_ios = size/bs, bytes equal to fio\'s', () => {
    const [f] = sized.fio.json.jobs;
    const [v] = sized.volbench.json.jobs;
    expect(f.read.total_ios).toBe(SIZE / BS);
    expect(v.read.total_ios).toBe(SIZE / BS);
    expect(v.read.io_bytes).toBe(f.read.io_bytes);
    expect(v.read.io_kbytes).toBe(f.read.io_kbytes);
    for (const dir of ['write', 'trim']) {
      expect(v[dir].total_ios, dir).toBe(0);
      expect(v[dir].io_bytes, dir).toBe(0);
    }
  });

  it('size-based randread counts clat, lat and slat once per I/O, with no short or dropped I/O', () => {
    expect(sampleCountProblems(sized.fio.json.jobs[0].read, 'fio read', true)).toEqual([]);
    expect(sampleCountProblems(sized.volbench.json.jobs[0].read, 'volbench read', true)).toEqual([]);
  });

  it('time-based randread runs for the requested 2 s and reports positive, consistent numbers', () => {
    const t = { runtimeMs: 2000, instances: 1, directions: ['read'] } as const;
    expect(timeBasedProblems(timed.fio.json.jobs[0], 'fio', t)).toEqual([]);
    expect(timeBasedProblems(timed.volbench.json.jobs[0], 'volbench', t)).toEqual([]);
    expect(sampleCountProblems(timed.volbench.json.jobs[0].read, 'volbench read', true)).toEqual([]);
  });

  it('time-based randread takes as many bandwidth and IOPS samples as fio, give or take one', () => {
    const [f] = timed.fio.json.jobs;
    const [v] = timed.volbench.json.jobs;
    expect(Math.abs(v.read.bw_samples - f.read.bw_samples)).toBeLessThanOrEqual(1);
    expect(Math.abs(v.read.iops_samples - f.read.iops_samples)).toBeLessThanOrEqual(1);
  });

  // By default both submit one I/O per call (iodepth_batch_submit=1) and handle one completion per
  // reap, so their submit and complete buckets agree.
  it('by default one I/O per submit call: iodepth_submit equal to fio\'s', () => {
    expect(sized.volbench.json.jobs[0].iodepth_submit).toEqual(sized.fio.json.jobs[0].iodepth_submit);
  });

  it('iodepth_batch_submit=0 batches submissions: no submit call is counted outside fio\'s buckets', () => {
    const submit = batched.volbench.json.jobs[0].iodepth_submit as Record<string, number>;
    expect(Object.keys(submit)).toEqual(Object.keys(batched.fio.json.jobs[0].iodepth_submit));
    const total = Object.values(submit).reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(99.9);
    expect(total).toBeLessThan(100.7);
  });
});
