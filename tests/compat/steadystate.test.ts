/**
 * steadystate against fio 3.33 on the same command line: a rate-limited job (steady by
 * construction) with ss=iops:10% over 2 s ends early under both tools, and volbench's document
 * has fio's keys, types, order and number printing, `steadystate` block included; its normal
 * text's steadystate line has the shape of fio's. The tools sample on different clocks (fio on
 * its helper thread's, a fraction of a second off the job's), so the values are compared by
 * what must hold, not digit for digit.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { formatNormal } from '../../src/index.js';
import { requires } from '../helpers/requires.js';
import {
  itPrintsWhatFioPrints, makeWorkspace, runBoth, titled, type Json, type Pair, type Workspace,
} from './side-by-side.js';

const needs = requires('child', 'tmpfs', 'fio');

const run = promisify(execFile);
const reason = needs.missing('fio');

const LINE = /^ {2}steadystate {2}: attained=(yes|no), bw=\d+(\.\d+)?[KMG]iB\/s \(\d+(\.\d+)?[kMG]B\/s\), iops=\d+(\.\d+)?k?, iops mean dev=\d+\.\d{3}%$/m;

describe.skipIf(reason !== undefined)(titled('steadystate: fio\'s block, and the job ends when it holds', reason), () => {
  let ws: Workspace;
  let pair: Pair;
  let fioText: string;
  let argv: string[];
  beforeAll(async () => {
    ws = makeWorkspace('memory', 'steadystate');
    argv = ['--name=ss', `--filename=${join(ws.dir, 'target.bin')}`, '--size=16m', '--ioengine=psync', '--rw=randread',
      '--bs=4k', '--rate_iops=2000', '--time_based', '--runtime=20', '--ss=iops:10%', '--ss_dur=2'];
    pair = await runBoth([...argv, '--output-format=json'], ws);
    const output = join(ws.fioDir, 'fio-normal.txt');
    await run('fio', [...argv, '--output-format=normal', `--output=${output}`], { cwd: ws.fioDir });
    fioText = readFileSync(output, 'utf8');
  }, 60_000);
  afterAll(() => ws?.remove());

  itPrintsWhatFioPrints('ss=iops:10%', () => pair);

  it('both attain it and stop long before the 20 s runtime, with a 2 s window of integers', () => {
    for (const doc of [pair.fio.json, pair.volbench.json] as Json[]) {
      const job = doc.jobs[0];
      expect(job.steadystate).toMatchObject({ ss: 'iops:10.000000%', duration: 2, attained: 1 });
      expect(job.read.runtime).toBeLessThan(10000);
      for (const key of ['iops', 'bw'] as const) {
        expect(job.steadystate.data[key]).toHaveLength(2);
        for (const v of job.steadystate.data[key]) expect(Number.isInteger(v) && v > 0).toBe(true);
      }
      expect(job.steadystate.criterion).toMatch(/^\d+\.\d{6}%$/);
    }
  });

  it('samples the same rate: each tool\'s window is within 10% of 2000 IOPS and 2000 × 4 KiB/s', () => {
    for (const doc of [pair.fio.json, pair.volbench.json] as Json[]) {
      const { iops_mean: iops, bw_mean: bw } = doc.jobs[0].steadystate.data;
      expect(Math.abs(iops - 2000)).toBeLessThan(200);
      expect(Math.abs(bw - 2000 * 4096)).toBeLessThan(200 * 4096);
    }
  });

  it("the normal text's steadystate line has fio's shape, after the job's latency line", () => {
    const ours = formatNormal(pair.volbench.json);
    for (const text of [fioText, ours]) {
      expect(text).toMatch(LINE);
      const lines = text.split('\n');
      const at = lines.findIndex((l) => l.startsWith('  steadystate  :'));
      expect(lines[at - 1]).toMatch(/^ {5}latency {3}: target=/);
    }
  });
});
