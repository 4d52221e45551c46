/**
 * invalidate=1 (fio's default) on buffered jobs, on a file on the real disk: fio drops the file's
 * page cache where it opens it (the job's start, every `loops=` iteration, the verify pass) and
 * each time a time-based job's pass over the region wraps around (io_u.c), so every pass reaches
 * the device.
 *
 * Broke: volbench dropped the cache once, at open. A `--loops=3` buffered read read the file from
 * the disk once and twice from memory (128 MiB of 384); a time-based sequential read read the
 * disk once and then the page cache; a time-based 4k randwrite with end_fsync wrote its dirty
 * pages out once, at the end, and reported 4–5× fio's IOPS; a verify pass read back from memory.
 * Expected: the device sees each pass, as under fio: the bytes read (written) at the disk come to
 * the job's io_bytes.
 */
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import { diskStatFile, diskTraffic, type DiskTraffic } from './disk-traffic.js';
import { makeWorkspace, runFio, runVolbench, titled, type Json, type Workspace } from './side-by-side.js';

const needs = requires('child', 'fio');

const MiB = 1 << 20;

interface Measured {
  job: Json;
  disk: DiskTraffic;
}

async function measure(tool: 'fio' | 'volbench', argv: string[], ws: Workspace, statFile: string): Promise<Measured> {
  let job: Json;
  const disk = await diskTraffic(statFile, async () => {
    const printed = tool === 'fio' ? await runFio(argv, ws.fioDir) : await runVolbench(argv, ws.volbenchDir);
    job = printed.json.jobs[0];
  });
  return { job, disk };
}

/** Workspaces 'disk' live under tmpdir(). */
const statFile = diskStatFile(tmpdir());
const reason = needs.missing('fio') ?? (statFile ? undefined : `${tmpdir()} is on no block device`);

const title = titled('buffered jobs read and write the disk on every pass, as fio', reason);

describe.skipIf(reason !== undefined)(title, () => {
  let ws: Workspace;
  const target = (): string => join(ws.dir, 'target.bin');
  const laidOut = (size: string): void => {
    execFileSync('fio', ['--name=layout', `--filename=${target()}`, `--size=${size}`, '--rw=write', '--bs=1m',
      '--output-format=terse'], { cwd: ws.dir });
  };
  beforeAll(() => {
    ws = makeWorkspace('disk', 'invalidate');
  });
  afterAll(() => ws?.remove());

  describe('--rw=read --bs=64k --size=128m --loops=3', () => {
    const argv = (): string[] => ['--name=loops', `--filename=${target()}`, '--ioengine=psync', '--rw=read',
      '--bs=64k', '--size=128m', '--loops=3', '--output-format=json'];
    const runs: Record<string, Measured> = {};
    beforeAll(async () => {
      laidOut('128m');
      runs.fio = await measure('fio', argv(), ws, statFile!);
      runs.volbench = await measure('volbench', argv(), ws, statFile!);
    });

    // Before: volbench read 128 MiB from the disk against fio's 384.
    it('every loop reads the file from the disk: ~384 MiB under both tools', () => {
      for (const tool of ['fio', 'volbench']) {
        expect(runs[tool].job.read.io_bytes, tool).toBe(384 * MiB);
        expect(runs[tool].disk.readBytes, tool).toBeGreaterThan(0.9 * 384 * MiB);
      }
    });
  });

  describe('--rw=read --bs=64k --size=32m --runtime=2 --time_based', () => {
    const argv = (): string[] => ['--name=wraps', `--filename=${target()}`, '--ioengine=psync', '--rw=read',
      '--bs=64k', '--size=32m', '--runtime=2', '--time_based', '--output-format=json'];
    const runs: Record<string, Measured> = {};
    beforeAll(async () => {
      laidOut('32m');
      runs.fio = await measure('fio', argv(), ws, statFile!);
      runs.volbench = await measure('volbench', argv(), ws, statFile!);
    }, 30_000);

    // Before: volbench read the 32 MiB file from the disk once, then from memory.
    it('each pass over the file reads it from the disk again: disk reads ≈ io_bytes', () => {
      for (const tool of ['fio', 'volbench']) {
        const { job, disk } = runs[tool];
        expect(job.read.io_bytes, tool).toBeGreaterThan(2 * 32 * MiB);
        expect(disk.readBytes, tool).toBeGreaterThan(0.8 * job.read.io_bytes);
      }
    });
  });

  describe('--rw=write --bs=64k --size=64m --end_fsync=1 --verify=crc32c', () => {
    const argv = (): string[] => ['--name=verify', `--filename=${target()}`, '--ioengine=psync', '--rw=write',
      '--bs=64k', '--size=64m', '--end_fsync=1', '--verify=crc32c', '--output-format=json'];
    const runs: Record<string, Measured> = {};
    beforeAll(async () => {
      laidOut('64m');
      runs.fio = await measure('fio', argv(), ws, statFile!);
      runs.volbench = await measure('volbench', argv(), ws, statFile!);
    });

    // Before: volbench synced after the verify pass and kept the cache, so the pass read the
    // pages its writes had left in memory. fio's end_fsync ends the write phase, and reopening
    // the file for the verify pass drops the (now clean) pages.
    it('the verify pass reads what was written back from the disk', () => {
      for (const tool of ['fio', 'volbench']) {
        expect(runs[tool].job.read.io_bytes, tool).toBe(64 * MiB);
        expect(runs[tool].disk.readBytes, tool).toBeGreaterThan(0.9 * 64 * MiB);
      }
    });
  });

  describe('--rw=randwrite --bs=4k --size=64m --runtime=2 --time_based --end_fsync=1 (psync)', () => {
    const argv = (): string[] => ['--name=randwrite', `--filename=${target()}`, '--ioengine=psync',
      '--rw=randwrite', '--bs=4k', '--size=64m', '--runtime=2', '--time_based', '--end_fsync=1',
      '--output-format=json'];
    const runs: Record<string, Measured> = {};
    beforeAll(async () => {
      laidOut('64m');
      runs.fio = await measure('fio', argv(), ws, statFile!);
      runs.volbench = await measure('volbench', argv(), ws, statFile!);
    }, 30_000);

    // Before: volbench wrote 64 MiB to the disk (once, at end_fsync) for gigabytes of writes, at
    // 4–5× fio's IOPS; fio's cache drop at each pass's end writes each pass's dirty pages out.
    it('each pass\'s writes reach the disk: disk writes ≥ half of io_bytes under both tools', () => {
      for (const tool of ['fio', 'volbench']) {
        const { job, disk } = runs[tool];
        expect(job.write.io_bytes, tool).toBeGreaterThan(2 * 64 * MiB);
        expect(disk.writtenBytes, tool).toBeGreaterThan(0.5 * job.write.io_bytes);
      }
    });
  });
});
