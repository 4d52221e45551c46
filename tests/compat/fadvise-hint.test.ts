/**
 * fadvise_hint: fio advises the kernel of a job's pattern by default (POSIX_FADV_RANDOM for a
 * random job), which turns readahead off for the file, so a buffered 4k randread asks the device
 * for 4 KiB per I/O and every I/O reaches it.
 *
 * Broke: volbench gave no advice and refused fadvise_hint: the kernel read ahead, a buffered
 * randread asked the disk for 4.2–5.2 KiB per request and served a share of its reads from the
 * page cache (a 32 MiB size-based randread: 6,137 requests for 8,192 I/Os, against fio's 8,192).
 * Expected: as fio, one 4 KiB request per I/O by default; with fadvise_hint=0 the readahead
 * fio then gets too; the option echoed as fio echoes it.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import { makeExt4Loop, type DeviceReads, type Ext4Loop } from './ext4-loop.js';
import { makeWorkspace, runFio, runVolbench, titled, type Json, type Workspace } from './side-by-side.js';

const needs = requires('child', 'tmpfs', 'loop', 'mkfs', 'fio');

const reason = needs.missing('fio', 'loop', 'mkfs');
const IOS = 8192;

describe.skipIf(reason !== undefined)(titled('fadvise_hint: a buffered randread gets no readahead, as under fio', reason), () => {
  let disk: Ext4Loop;
  let ws: Workspace;
  const file = (): string => join(disk.dir, 'target.bin');

  beforeAll(() => {
    disk = makeExt4Loop('fadvise');
    ws = makeWorkspace('memory', 'fadvise');
    execFileSync('fio', ['--name=layout', `--filename=${file()}`, '--size=32m', '--rw=write', '--bs=1m', '--output-format=terse']);
    execFileSync('sync');
  });
  afterAll(() => {
    ws?.remove();
    disk?.release();
  });

  async function measure(tool: 'fio' | 'volbench', extra: string[]): Promise<{ job: Json; device: DeviceReads }> {
    const argv = ['--name=rr', `--filename=${file()}`, '--size=32m', '--rw=randread', '--bs=4k', '--ioengine=psync',
      ...extra, '--output-format=json'];
    let job: Json;
    const device = await disk.reads(async () => {
      const printed = tool === 'fio' ? await runFio(argv, ws.fioDir) : await runVolbench(argv, ws.volbenchDir);
      job = printed.json.jobs[0];
    });
    return { job, device };
  }

  it('by default every 4k read reaches the device as one 4 KiB request, in both tools', async () => {
    for (const tool of ['fio', 'volbench'] as const) {
      const { job, device } = await measure(tool, []);
      expect(job.read.total_ios, tool).toBe(IOS);
      // The random map reads each block once; invalidate=1 dropped the file's pages first.
      expect(device.requests, tool).toBeGreaterThanOrEqual(IOS);
      expect(device.requests, tool).toBeLessThan(IOS + 8);
      expect(device.sectors / device.requests, tool).toBeCloseTo(8, 2);
    }
  });

  it('with fadvise_hint=0 the kernel reads ahead: fewer requests than I/Os, in both tools', async () => {
    for (const tool of ['fio', 'volbench'] as const) {
      const { job, device } = await measure(tool, ['--fadvise_hint=0']);
      expect(job.read.total_ios, tool).toBe(IOS);
      expect(device.requests, tool).toBeLessThan(0.95 * IOS);
      expect(device.sectors / device.requests, tool).toBeGreaterThan(8.2);
    }
  });

  it("echoes fadvise_hint as fio does", async () => {
    const fio = await measure('fio', ['--fadvise_hint=random']);
    const volbench = await measure('volbench', ['--fadvise_hint=random']);
    expect(volbench.job['job options']).toEqual(fio.job['job options']);
    expect(volbench.job['job options'].fadvise_hint).toBe('random');
  });
});
