/**
 * randrw 70/30 with unified_rw_reporting=mixed, size-based: one `mixed` section in place of
 * read, write, trim and sync, as fio prints it.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import {
  itPrintsWhatFioPrints, makeWorkspace, runBoth, sampleCountProblems, titled, type Pair, type Workspace,
} from './side-by-side.js';

const needs = requires('tmpfs', 'fio', 'io_uring');

const reason = needs.missing('fio', 'io_uring');
const SIZE = 16 << 20;
const BS = 4096;

describe.skipIf(reason !== undefined)(titled('randrw unified_rw_reporting=mixed', reason), () => {
  let ws: Workspace;
  let pair: Pair;

  beforeAll(async () => {
    ws = makeWorkspace('memory', 'mixed');
    pair = await runBoth([
      '--name=mixed', `--filename=${join(ws.dir, 'target.bin')}`, '--size=16m', '--direct=1',
      '--ioengine=io_uring', '--rw=randrw', '--rwmixread=70', '--bs=4k', '--iodepth=16',
      '--unified_rw_reporting=mixed', '--output-format=json',
    ], ws);
  });
  afterAll(() => ws?.remove());

  itPrintsWhatFioPrints('randrw unified_rw_reporting=mixed', () => pair);

  it('unified_rw_reporting=mixed prints `mixed` and no read, write, trim or sync, like fio', () => {
    for (const doc of [pair.fio.json, pair.volbench.json]) {
      const job = doc.jobs[0];
      expect(job.mixed).toBeDefined();
      for (const key of ['read', 'write', 'trim', 'sync']) expect(job, key).not.toHaveProperty(key);
    }
  });

  it('size-based mixed counts every read and write once: total_ios = size/bs, bytes equal to fio\'s', () => {
    const f = pair.fio.json.jobs[0].mixed;
    const v = pair.volbench.json.jobs[0].mixed;
    expect(v.total_ios).toBe(SIZE / BS);
    expect(v.io_bytes).toBe(f.io_bytes);
    expect(v.io_kbytes).toBe(f.io_kbytes);
    expect(sampleCountProblems(f, 'fio mixed', true)).toEqual([]);
    expect(sampleCountProblems(v, 'volbench mixed', true)).toEqual([]);
  });
});
