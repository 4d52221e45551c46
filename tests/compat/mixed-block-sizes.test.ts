/**
 * A size-based randrw with bs=4k,64k over 64 MiB. fio keeps one random map in blocks of the
 * smallest size of any direction (4k), while each direction draws and marks blocks in units of
 * its own smallest size: a 64k write draws block b of 1,024 and marks the map's bit b. So the
 * writes crowd the map's first 1,024 bits, and the first time one of them lands on a taken bit
 * with only taken bits after it up to the 1,024th, the next free bit is past the region and fio
 * ends the job there: 27.7 MB at seed 1, 57.8 MB at seed 3, 31 MB at the default seed.
 *
 * Broke: volbench kept no map for such a job and drew offsets uniformly, moving the whole
 * 64 MiB, 2.2 times fio's I/Os. Expected: fio's map in fio's mixed units, so the same total (and
 * the same I/Os) as fio at each seed; a randread with bs=64k,4k ends early the same way.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import { makeWorkspace, runBoth, titled, type Json, type Workspace } from './side-by-side.js';

const needs = requires('tmpfs', 'fio');

const reason = needs.missing('fio');
const SIZE = 64 << 20;

const moved = (job: Json): number => job.read.io_bytes + job.write.io_bytes;

describe.skipIf(reason !== undefined)(titled('directions of different block sizes: fio\'s map in fio\'s units', reason), () => {
  let ws: Workspace;
  beforeAll(() => {
    ws = makeWorkspace('memory', 'mixed-sizes');
  });
  afterAll(() => ws?.remove());

  const job = (extra: string[]): string[] => ['--name=mixed', `--filename=${join(ws.dir, 'target.bin')}`, '--size=64m',
    '--ioengine=psync', ...extra, '--output-format=json'];

  it.each(['default', '1', '2', '3'])('randrw bs=4k,64k moves what fio moves, I/O for I/O (seed %s)', async (seed) => {
    const pair = await runBoth(job(['--rw=randrw', '--bs=4k,64k', ...(seed === 'default' ? [] : [`--randseed=${seed}`])]), ws);
    const [fio, volbench] = [pair.fio.json.jobs[0], pair.volbench.json.jobs[0]];
    // fio ends the job well short of the size.
    expect(moved(fio)).toBeLessThan(SIZE);
    expect(moved(volbench)).toBe(moved(fio));
    for (const d of ['read', 'write']) {
      expect(volbench[d].total_ios, d).toBe(fio[d].total_ios);
      expect(volbench[d].io_bytes, d).toBe(fio[d].io_bytes);
    }
    expect(pair.volbench.json.volbench.jobs[0].notes ?? []).toEqual([]);
  });

  it('a randread whose write size is the smaller ends early too, as fio (bs=64k,4k)', async () => {
    const pair = await runBoth(job(['--rw=randread', '--bs=64k,4k']), ws);
    const [fio, volbench] = [pair.fio.json.jobs[0], pair.volbench.json.jobs[0]];
    expect(fio.read.io_bytes).toBeLessThan(SIZE);
    expect(volbench.read.total_ios).toBe(fio.read.total_ios);
  });
});
