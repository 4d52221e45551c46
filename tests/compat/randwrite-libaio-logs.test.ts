/**
 * libaio randwrite 4k QD8, 2 s time-based, with write_bw_log, write_iops_log, write_lat_log and
 * log_avg_msec=250, through fio and through volbench's CLI (both in their own working directory,
 * so the same relative log prefix lands in each): the same log files, lines in fio's format, one
 * line per 250 ms window.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import {
  itPrintsWhatFioPrints, makeWorkspace, runBoth, sampleCountProblems, timeBasedProblems, titled,
  type Pair, type Workspace,
} from './side-by-side.js';

const needs = requires('tmpfs', 'fio', 'dist', 'libaio');

const reason = needs.missing('fio', 'libaio');
const LOGS = ['rw_bw.1.log', 'rw_clat.1.log', 'rw_iops.1.log', 'rw_lat.1.log', 'rw_slat.1.log'];
const WINDOW_MS = 250;
/** `msec, value, ddir, bs, prio`: averaged windows carry bs 0; ddir 1 is write. */
const LINE = /^(\d+), (\d+), 1, 0, (\d+)$/;

function logLines(dir: string, name: string): string[] {
  return readFileSync(join(dir, name), 'utf8').split('\n').filter((l) => l !== '');
}

/** Problems with one log: line format, windows every ~250 ms (the last line may close early). */
function logProblems(dir: string, name: string): string[] {
  const out: string[] = [];
  const lines = logLines(dir, name);
  if (lines.length === 0) return [`${name} is empty`];
  const times: number[] = [];
  for (const line of lines) {
    const m = LINE.exec(line);
    if (!m) out.push(`${name}: line "${line}" is not "msec, value, 1, 0, prio"`);
    else times.push(Number(m[1]));
  }
  const near = (ms: number): boolean => Math.abs(ms - WINDOW_MS) <= WINDOW_MS / 5;
  if (!near(times[0])) out.push(`${name}: first window ends at ${times[0]} ms`);
  times.slice(1).forEach((t, i) => {
    const step = t - times[i];
    const last = i === times.length - 2;
    if (last ? step < 0 || step > WINDOW_MS * 1.2 : !near(step)) {
      out.push(`${name}: window ${i + 1} ends ${step} ms after the one before`);
    }
  });
  return out;
}

describe.skipIf(reason !== undefined)(titled('randwrite 4k QD8 libaio with bw/iops/lat logs', reason), () => {
  let ws: Workspace;
  let pair: Pair;

  beforeAll(async () => {
    ws = makeWorkspace('memory', 'logs');
    pair = await runBoth([
      '--name=randwrite-logs', `--filename=${join(ws.dir, 'target.bin')}`, '--size=64m', '--direct=1',
      '--ioengine=libaio', '--rw=randwrite', '--bs=4k', '--iodepth=8', '--runtime=2', '--time_based',
      '--write_bw_log=rw', '--write_iops_log=rw', '--write_lat_log=rw', '--log_avg_msec=250',
      '--output-format=json',
    ], ws, 'cli');
  });
  afterAll(() => ws?.remove());

  itPrintsWhatFioPrints('randwrite libaio with logs', () => pair);

  it('libaio randwrite runs for the requested 2 s and reports positive, consistent numbers', () => {
    const t = { runtimeMs: 2000, instances: 1, directions: ['write'] } as const;
    expect(timeBasedProblems(pair.fio.json.jobs[0], 'fio', t)).toEqual([]);
    expect(timeBasedProblems(pair.volbench.json.jobs[0], 'volbench', t)).toEqual([]);
    expect(sampleCountProblems(pair.volbench.json.jobs[0].write, 'volbench write', true)).toEqual([]);
  });

  it('both tools write the same log files: <prefix>_bw/_iops/_lat/_clat/_slat.1.log', () => {
    const logs = (dir: string): string[] => readdirSync(dir).filter((f) => f.endsWith('.log')).sort();
    expect(logs(ws.fioDir)).toEqual(LOGS);
    expect(logs(ws.volbenchDir)).toEqual(LOGS);
  });

  it('log lines read "msec, value, ddir, 0, prio", one per 250 ms window (fio\'s logs too)', () => {
    for (const name of LOGS) {
      expect(logProblems(ws.fioDir, name)).toEqual([]);
      expect(logProblems(ws.volbenchDir, name)).toEqual([]);
    }
  });

  it('each log has as many windows as fio\'s, give or take two', () => {
    for (const name of LOGS) {
      const want = logLines(ws.fioDir, name).length;
      expect(Math.abs(logLines(ws.volbenchDir, name).length - want), name).toBeLessThanOrEqual(2);
    }
  });
});
