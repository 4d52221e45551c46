/**
 * A size-based randread with bssplit=4k/50:64k/30:1m/20 over 64 MiB. fio keeps its random map
 * with several block sizes: each I/O lands on a free block and is cut short where it runs into
 * one already read, so every 4k block is read exactly once (fio 3.33: 831 I/Os at the default
 * seed, 1,077–1,651 at seeds 1–6; the count depends on how the end of the pass fragments).
 * volbench turned its map off for bssplit: 364 I/Os, 63% of the file read, 37% of its blocks
 * read twice or more. Expected: the same coverage as fio (every block once), a count in fio's
 * range, and I/Os cut to their free run.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { coverage, loggedIos, type LoggedIo } from './io-log.js';
import { makeWorkspace, runBoth, skipReason, titled, type Pair, type Workspace } from './side-by-side.js';

const reason = skipReason('psync');
const SIZE = 64 << 20;
const BLOCK = 4096;
const LISTED = new Set([4096, 65536, 1 << 20]);

describe.skipIf(reason !== undefined)(titled('randread bssplit keeps fio\'s random map', reason), () => {
  let ws: Workspace;
  let pair: Pair;
  let fioIos: LoggedIo[];
  let volbenchIos: LoggedIo[];

  beforeAll(async () => {
    ws = makeWorkspace('memory', 'bssplit-map');
    pair = await runBoth([
      '--name=bssplit-map', `--filename=${join(ws.dir, 'target.bin')}`, '--size=64m', '--ioengine=psync',
      '--rw=randread', '--bssplit=4k/50:64k/30:1m/20', '--write_iops_log=io', '--log_offset=1', '--output-format=json',
    ], ws);
    fioIos = loggedIos(ws.fioDir, 'io_iops.1.log');
    volbenchIos = loggedIos(ws.volbenchDir, 'io_iops.1.log');
  });
  afterAll(() => ws?.remove());

  it('every 4k block is read exactly once, in both tools', () => {
    const whole = { touched: SIZE / BLOCK, repeated: 0 };
    expect(coverage(fioIos, BLOCK, SIZE)).toMatchObject(whole);
    expect(coverage(volbenchIos, BLOCK, SIZE)).toMatchObject(whole);
    expect(pair.volbench.json.jobs[0].read.io_bytes).toBe(SIZE);
    expect(pair.fio.json.jobs[0].read.io_bytes).toBe(SIZE);
  });

  it('the I/O count is in the range fio\'s map gives (fio: 831 at this seed, up to 1,651 at others)', () => {
    for (const n of [pair.fio.json.jobs[0].read.total_ios, pair.volbench.json.jobs[0].read.total_ios]) {
      expect(n).toBeGreaterThan(600);
      expect(n).toBeLessThan(2400);
    }
    expect(volbenchIos).toHaveLength(pair.volbench.json.jobs[0].read.total_ios);
  });

  it('I/Os that run into a block already read are cut to the free run (a fifth or more of them)', () => {
    for (const ios of [fioIos, volbenchIos]) {
      const cut = ios.filter((io) => !LISTED.has(io.bs));
      expect(cut.length / ios.length).toBeGreaterThan(0.15);
      expect(cut.every((io) => io.bs % BLOCK === 0 && io.bs < 1 << 20)).toBe(true);
    }
  });
});
