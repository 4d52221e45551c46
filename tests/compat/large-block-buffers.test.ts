/**
 * Large blocks reach the device as fio's do. A direct I/O is split wherever its buffer has more
 * physical runs than the device takes segments (128 on a loop device); the kernel joins
 * physically adjacent pages of an ordinary buffer into one segment, but never those of a buffer
 * registered with io_uring. fio registers none unless `fixedbufs` is set.
 *
 * Broke: volbench registered its buffers by default, so a 1 MiB read reached the device as two
 * 512 KiB requests every time, where fio's reached it as one or two by the page allocator's
 * chance (on the real disk: volbench 512 KiB per request, fio 606–661 KiB on average, and up
 * to 1019 in a single run).
 * Expected: from 128 KiB blocks on, buffers registered only when `fixedbufs` asks, as in fio;
 * smaller blocks keep them (they save a page pin per I/O and cannot change what the device sees);
 * and the result says which.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import { TargetFixtures } from '../helpers/target-fixtures.js';
import { runFio, runVolbench, titled, type Json } from './side-by-side.js';

const needs = requires('tmpfs', 'loop', 'fio', 'io_uring');

const MiB = 1 << 20;
const reason = needs.missing('fio', 'io_uring', 'loop');

/** Read requests the device completed and their bytes (its stat file: the same as /proc/diskstats). */
function readRequests(dev: string): { requests: number; bytes: number } {
  const f = readFileSync(`/sys/block/${basename(dev)}/stat`, 'utf8').trim().split(/\s+/).map(Number);
  return { requests: f[0], bytes: f[2] * 512 };
}

interface Measured {
  doc: Json;
  requests: number;
  bytes: number;
}

function thpMode(): string {
  try {
    return /\[(\w+)\]/.exec(readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8'))?.[1] ?? 'never';
  } catch {
    return 'never';
  }
}

describe.skipIf(reason !== undefined)(titled('large blocks reach the device as fio\'s do (io_uring, loop device)', reason), () => {
  let fx: TargetFixtures;
  let dev: string;
  let segments: number;
  const runs: Record<string, Measured> = {};

  async function measure(tool: 'fio' | 'volbench', bs: string, extra: string[] = []): Promise<Measured> {
    const argv = ['--name=big', `--filename=${dev}`, '--size=64m', '--rw=read', `--bs=${bs}`, '--iodepth=8',
      '--ioengine=io_uring', '--direct=1', '--output-format=json', ...extra];
    const before = readRequests(dev);
    const doc = (tool === 'fio' ? await runFio(argv, fx.dir) : await runVolbench(argv, fx.dir)).json;
    const after = readRequests(dev);
    return { doc, requests: after.requests - before.requests, bytes: after.bytes - before.bytes };
  }

  beforeAll(async () => {
    fx = new TargetFixtures('big-blocks', '/dev/shm');
    dev = fx.attachLoop(fx.image('disk.img', 64 * MiB));
    segments = Number(readFileSync(`/sys/block/${basename(dev)}/queue/max_segments`, 'utf8'));
    runs.volbench1m = await measure('volbench', '1m');
    runs.volbench4k = await measure('volbench', '4k');
    runs.volbenchFixed = await measure('volbench', '1m', ['--fixedbufs=1']);
    runs.fioFixed = await measure('fio', '1m', ['--fixedbufs=1']);
    runs.fio1m = await measure('fio', '1m');
  }, 60_000);
  afterAll(() => fx?.release());

  it('1 MiB blocks: buffers not registered by default, as fio; 4 KiB blocks keep them', () => {
    expect(runs.volbench1m.doc.volbench.jobs[0].buffers).toMatchObject({ bytes: 8 * MiB, registered: false });
    expect(runs.volbench4k.doc.volbench.jobs[0].buffers).toMatchObject({ bytes: 8 * 4096, registered: true });
    // Asked for, they are registered at any size.
    expect(runs.volbenchFixed.doc.volbench.jobs[0].buffers.registered).toBe(true);
  });

  it('every byte of the job reaches the device, in one or two requests per I/O for each tool', () => {
    for (const key of ['volbench1m', 'fio1m', 'volbenchFixed', 'fioFixed']) {
      const { doc, requests, bytes } = runs[key];
      expect(doc.jobs[0].read.io_bytes, key).toBe(64 * MiB);
      expect(bytes, key).toBe(64 * MiB);
      expect(requests, key).toBeGreaterThanOrEqual(64);
      expect(requests, key).toBeLessThanOrEqual(128);
    }
  });

  it('registered buffers of 4 KiB pages split every 1 MiB I/O at the segment limit, in fio as in volbench', () => {
    expect(segments, 'this case needs a device that takes fewer than 256 segments').toBeLessThan(256);
    // A buffer the kernel backs with huge pages is registered as a few large runs instead.
    const huge = runs.volbenchFixed.doc.volbench.jobs[0].buffers.huge_page_bytes;
    if (huge === 0) expect(runs.volbenchFixed.requests).toBe(128);
    // fio's buffers are in huge pages only when the kernel gives them unasked.
    if (thpMode() !== 'always') expect(runs.fioFixed.requests).toBe(128);
  });
});
