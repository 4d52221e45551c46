/**
 * Two small differences from fio, one fixed and one kept on purpose:
 *
 * - kb_base: fio reads a command line's options in order, each size with the kb_base in force
 *   where it stands. Broke: volbench applied kb_base first, so `--bs=4k --kb_base=1000` made bs
 *   4000 and a direct job was refused (4000 is not a multiple of 512), where fio keeps 4096.
 *   Expected: as fio, both ways round.
 * - fdatasync: fio 3.33 counts the fdatasyncs of a write job under read.short_ios and reports
 *   sync.total_ios=0 (its own miscount); volbench keeps its count: every fdatasync under sync,
 *   none under read. This case pins both, so a fio that fixes it shows here.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import { makeWorkspace, runBoth, titled, type Workspace } from './side-by-side.js';

const needs = requires('tmpfs', 'fio');

const reason = needs.missing('fio');

describe.skipIf(reason !== undefined)(titled('option order and sync counts against fio', reason), () => {
  let ws: Workspace;
  beforeAll(() => {
    ws = makeWorkspace('memory', 'order');
  });
  afterAll(() => ws?.remove());

  it.each([
    ['--bs=4k --kb_base=1000', 4096, 244],
    ['--kb_base=1000 --bs=4k', 4000, 250],
  ])('%s: each size read with the kb_base before it', async (order, bs, ios) => {
    const pair = await runBoth(['--name=kb', `--filename=${join(ws.dir, 'kb.bin')}`, ...order.split(' '), '--size=1m', '--rw=read',
      '--ioengine=psync', ...(bs === 4096 ? ['--direct=1'] : []), '--output-format=json'], ws);
    for (const tool of ['fio', 'volbench'] as const) {
      const { read } = pair[tool].json.jobs[0];
      // size=1m came after kb_base: 1,000,000 bytes, whole blocks of bs.
      expect(read.total_ios, tool).toBe(ios);
      expect(read.io_bytes, tool).toBe(ios * bs);
    }
  });

  it('fdatasync=4: volbench counts 63 syncs under sync; fio 3.33 counts them as read short I/Os', async () => {
    const pair = await runBoth(['--name=ds', `--filename=${join(ws.dir, 'ds.bin')}`, '--size=1m', '--rw=write', '--bs=4k',
      '--fdatasync=4', '--ioengine=psync', '--output-format=json'], ws);
    const [fio, volbench] = [pair.fio.json.jobs[0], pair.volbench.json.jobs[0]];
    // 256 writes, a sync before every fourth write but the last: 63.
    expect(volbench.sync.total_ios).toBe(63);
    expect(volbench.read.short_ios).toBe(0);
    expect(fio.sync.total_ios).toBe(0);
    expect(fio.read.short_ios).toBe(63);
    expect(fio.sync.lat_ns.N).toBe(63);
    expect(volbench.sync.lat_ns.N).toBe(63);
  });
});
