/**
 * bw/iops samples (bw_samples, iops_samples, bw_min …): fio's helper thread samples a job every
 * 500 ms while it runs or verifies (stat.c calc_log_samples), and adds no sample for a direction
 * that moved nothing in the window (__add_samples).
 *
 * Broke: a runtime ending on a window boundary got one sample more than fio's (runtime=2: fio 3,
 * volbench 4): volbench sampled the window that closes as the runtime ends. And a write job's
 * verify pass left zero samples: its reads were sampled (at 0) all through the write phase, its
 * writes during the pass, so bw_min read 0. Expected: fio's counts, and no zero samples.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import { makeWorkspace, runBoth, titled, type Json, type Pair, type Workspace } from './side-by-side.js';

const needs = requires('tmpfs', 'fio');

const reason = needs.missing('fio');

const samples = (d: Json): number[] => [d.bw_samples, d.iops_samples];

describe.skipIf(reason !== undefined)(titled('bw/iops samples: fio\'s windows, fio\'s counts', reason), () => {
  let ws: Workspace;
  beforeAll(() => {
    ws = makeWorkspace('memory', 'samples');
  });
  afterAll(() => ws?.remove());

  for (const runtime of [1, 2]) {
    describe(`randread psync --runtime=${runtime} --time_based`, () => {
      let pair: Pair;
      beforeAll(async () => {
        pair = await runBoth([`--name=windows-${runtime}`, `--filename=${join(ws.dir, 'target.bin')}`, '--size=16m',
          '--ioengine=psync', '--rw=randread', '--bs=4k', `--runtime=${runtime}`, '--time_based',
          '--output-format=json'], ws);
      });

      // Before: runtime=2 gave volbench 4 samples, fio 3.
      it('no sample for the window that closes as the runtime ends: runtime/500 ms − 1, as fio', () => {
        const want = (runtime * 1000) / 500 - 1;
        expect(samples(pair.fio.json.jobs[0].read)).toEqual([want, want]);
        expect(samples(pair.volbench.json.jobs[0].read)).toEqual([want, want]);
      });
    });
  }

  describe('write + verify, writes paced to ~1.3 s, an unpaced verify pass', () => {
    let pair: Pair;
    beforeAll(async () => {
      pair = await runBoth(['--name=verify-samples', `--filename=${join(ws.dir, 'verify.bin')}`, '--size=4m',
        '--ioengine=psync', '--rw=write', '--bs=4k', '--rate_iops=,800', '--verify=crc32c', '--do_verify=1',
        '--output-format=json'], ws);
    });

    // Before: volbench's reads had 2 samples of 0 (from the write phase), bw_min 0.
    it('reads are sampled only where they ran (the verify pass: too short for a window)', () => {
      expect(samples(pair.fio.json.jobs[0].read)).toEqual([0, 0]);
      expect(samples(pair.volbench.json.jobs[0].read)).toEqual([0, 0]);
    });

    it('the writes\' samples are the write phase\'s windows, none of them empty', () => {
      for (const [tool, doc] of [['fio', pair.fio.json], ['volbench', pair.volbench.json]] as const) {
        const { write } = doc.jobs[0];
        expect(samples(write), tool).toEqual(samples(pair.fio.json.jobs[0].write));
        expect(write.bw_min, tool).toBeGreaterThan(0);
        expect(write.iops_min, tool).toBeGreaterThan(0);
      }
    });
  });
});
