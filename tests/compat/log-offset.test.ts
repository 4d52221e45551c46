/**
 * log_offset=1: fio adds each I/O's offset to its log lines (`msec, value, ddir, bs, offset,
 * prio`). volbench refused the option, so where its I/O went could not be compared with fio's.
 * Expected: the same six-column lines, per I/O, the offsets those of the I/O issued: a size-based
 * 4k randread of 1 MiB reads each of its 256 blocks once, in both tools.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import { coverage, loggedIos } from './io-log.js';
import { makeWorkspace, runBoth, titled, type Pair, type Workspace } from './side-by-side.js';

const needs = requires('tmpfs', 'fio');

const reason = needs.missing('fio');
const SIZE = 1 << 20;

describe.skipIf(reason !== undefined)(titled('log_offset=1 adds the offset column to per-I/O logs', reason), () => {
  let ws: Workspace;
  let pair: Pair;

  beforeAll(async () => {
    ws = makeWorkspace('memory', 'log-offset');
    pair = await runBoth([
      '--name=offsets', `--filename=${join(ws.dir, 'target.bin')}`, '--size=1m', '--ioengine=psync',
      '--rw=randread', '--bs=4k', '--write_iops_log=io', '--write_lat_log=io', '--log_offset=1',
      '--output-format=json',
    ], ws);
  });
  afterAll(() => ws?.remove());

  it('both tools write the same logs, one six-column line per I/O', () => {
    const logs = (dir: string): string[] => readdirSync(dir).filter((f) => f.endsWith('.log')).sort();
    expect(logs(ws.volbenchDir)).toEqual(logs(ws.fioDir));
    for (const file of logs(ws.fioDir).filter((f) => !f.includes('slat'))) {
      expect(loggedIos(ws.fioDir, file)).toHaveLength(pair.fio.json.jobs[0].read.total_ios);
      expect(loggedIos(ws.volbenchDir, file)).toHaveLength(pair.volbench.json.jobs[0].read.total_ios);
    }
  });

  it('the offsets are the blocks read: every 4k block of the file once, in both tools', () => {
    for (const dir of [ws.fioDir, ws.volbenchDir]) {
      const ios = loggedIos(dir, 'io_iops.1.log');
      expect(ios.every((io) => io.ddir === 0 && io.bs === 4096 && io.offset % 4096 === 0 && io.offset < SIZE)).toBe(true);
      expect(coverage(ios, 4096, SIZE)).toMatchObject({ ios: 256, touched: 256, repeated: 0 });
    }
  });

  it('the job options echo log_offset as given', () => {
    expect(pair.volbench.json.jobs[0]['job options'].log_offset).toBe('1');
    expect(pair.fio.json.jobs[0]['job options'].log_offset).toBe('1');
  });
});
