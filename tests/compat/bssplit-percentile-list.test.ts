/**
 * randread with bssplit=4k/50:64k/30:1m/20 and percentile_list=50:90:99:99.99:99.9999: time-based
 * with ramp_time=1 (runtime=2), and size-based (every byte of the file read once, whatever mix of
 * sizes each tool draws).
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
const KEYS = ['50.000000', '90.000000', '99.000000', '99.990000', '99.999900'];

describe.skipIf(reason !== undefined)(titled('randread bssplit with percentile_list', reason), () => {
  let ws: Workspace;
  let ramped: Pair;
  let sized: Pair;

  beforeAll(async () => {
    ws = makeWorkspace('memory', 'bssplit');
    const common = [
      '--name=randread-multi', `--filename=${join(ws.dir, 'target.bin')}`, '--size=64m', '--direct=1',
      '--ioengine=io_uring', '--rw=randread', '--bssplit=4k/50:64k/30:1m/20', '--iodepth=8',
      '--percentile_list=50:90:99:99.99:99.9999', '--output-format=json',
    ];
    ramped = await runBoth([...common, '--runtime=2', '--time_based', '--ramp_time=1'], ws);
    sized = await runBoth(common, ws);
  });
  afterAll(() => ws?.remove());

  itPrintsWhatFioPrints('bssplit percentile_list ramp_time=1 runtime=2', () => ramped);
  itPrintsWhatFioPrints('bssplit percentile_list size=64m', () => sized);

  it('percentile_list keys print as fio prints them ("99.999900"), in list order', () => {
    for (const pair of [ramped, sized]) {
      expect(Object.keys(pair.fio.json.jobs[0].read.clat_ns.percentile)).toEqual(KEYS);
      expect(Object.keys(pair.volbench.json.jobs[0].read.clat_ns.percentile)).toEqual(KEYS);
    }
  });

  it('ramp_time is not counted: the measured runtime is the 2 s asked for', () => {
    const t = { runtimeMs: 2000, instances: 1, directions: ['read'] } as const;
    expect(timeBasedProblems(ramped.fio.json.jobs[0], 'fio', t)).toEqual([]);
    expect(timeBasedProblems(ramped.volbench.json.jobs[0], 'volbench', t)).toEqual([]);
    expect(sampleCountProblems(ramped.volbench.json.jobs[0].read, 'volbench read', true)).toEqual([]);
  });

  it('ramp_time still runs: elapsed (whole seconds, ramp included) is fio\'s, give or take one', () => {
    expect(Math.abs(ramped.volbench.json.jobs[0].elapsed - ramped.fio.json.jobs[0].elapsed)).toBeLessThanOrEqual(1);
    expect(ramped.volbench.json.jobs[0].elapsed).toBeGreaterThanOrEqual(3);
  });

  it('size-based bssplit reads size bytes in all: io_bytes = size, equal to fio\'s', () => {
    const [f] = sized.fio.json.jobs;
    const [v] = sized.volbench.json.jobs;
    expect(f.read.io_bytes).toBe(SIZE);
    expect(v.read.io_bytes).toBe(SIZE);
    expect(v.read.io_kbytes).toBe(f.read.io_kbytes);
    expect(sampleCountProblems(v.read, 'volbench read', true)).toEqual([]);
  });
});
