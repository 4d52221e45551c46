/**
 * Uniformity with real I/O: a 1 GiB file in 100 chunks, the initialisation pass that reads a
 * loop device whole, writes only with the opt-in, cancelling, and the refusals.
 */
import { existsSync, statSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';

import { runUniformity } from '../../src/analysis/uniformity.js';
import { requires } from '../helpers/requires.js';
import { MiB, ScratchDir, volbenchError } from '../helpers/run-fixtures.js';
import { TargetFixtures } from '../helpers/target-fixtures.js';

const needs = requires('tmpfs', 'loop');

const scratch = new ScratchDir('uniformity');
afterAll(() => scratch.remove());

describe('uniformity on a file', () => {
  it('splits a 1 GiB file into 100 chunks, a probe in each, min <= avg <= max', async () => {
    const file = scratch.path('gib.bin');
    const chunks: number[] = [];
    const result = await runUniformity({
      filename: file, size: '1g', probe: '1m', ioengine: 'psync',
      assertions: ['uniformity.chunks == 100', 'uniformity.min_mbps >= 1', 'chunk-42.bw >= 1MB/s'],
      onChunk: (e) => {
        if (e.mbps !== undefined) chunks.push(e.chunk);
      },
    });
    const u = result.volbench.uniformity!;
    expect(statSync(file).size).toBe(1024 * MiB);
    expect(u.series).toHaveLength(100);
    expect(chunks).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(u.complete).toBe(true);
    expect(u.target_bytes).toBe(1024 * MiB);
    expect(u.probe_bytes).toBe(MiB);
    u.series.forEach((c, i) => {
      expect(c.index).toBe(i);
      expect(c.offset).toBe(i * u.chunk_bytes);
      expect(c.bytes).toBe(MiB);
      expect(c.mbps).toBeGreaterThan(0);
      // Timed to the nanosecond: a 1 MiB probe lasts well under fio's millisecond runtime unit.
      const k = result.jobs.findIndex((j) => j.jobname === c.job);
      expect(c.mbps).toBeCloseTo((result.jobs[k].read!.io_bytes * 1e3) / result.volbench.jobs[k].runtime_ns!, 6);
    });
    expect(u.min_mbps).toBeLessThanOrEqual(u.avg_mbps);
    expect(u.avg_mbps).toBeLessThanOrEqual(u.max_mbps);
    const speeds = u.series.map((c) => c.mbps);
    expect(u.min_mbps).toBe(Math.min(...speeds));
    expect(u.max_mbps).toBe(Math.max(...speeds));
    expect(u.series.find((c) => c.offset === u.min_offset)!.mbps).toBe(u.min_mbps);
    expect(u.series.find((c) => c.offset === u.max_offset)!.mbps).toBe(u.max_mbps);
    expect(u.spread).toBeCloseTo(u.max_mbps / u.min_mbps, 9);
    // One document: a read entry per chunk, each at its offset.
    expect(result.jobs).toHaveLength(100);
    expect(result.jobs[7].jobname).toBe('chunk-07');
    expect(result.jobs.every((j) => j.read!.io_bytes === MiB)).toBe(true);
    expect(result.volbench.assertions!.map((a) => a.passed)).toEqual([true, true, true]);
  });

  it('stops when cancelled and says it is incomplete', async () => {
    const file = scratch.path('cut.bin');
    const controller = new AbortController();
    const result = await runUniformity({
      filename: file, size: '64m', chunks: 50, probe: '1m', ioengine: 'psync', signal: controller.signal,
      onChunk: (e) => {
        if (e.chunk === 3 && e.mbps !== undefined) controller.abort();
      },
    });
    const u = result.volbench.uniformity!;
    expect(u.complete).toBe(false);
    expect(u.series).toHaveLength(3);
    expect(u.min_mbps).toBeLessThanOrEqual(u.max_mbps);
  });

  it('refuses bad settings and a missing size before any I/O', async () => {
    const never = scratch.path('never.bin');
    const cases: Array<[Parameters<typeof runUniformity>[0], string, RegExp]> = [
      [{ filename: never }, 'jobs[0].size', /size is needed/],
      [{ filename: never, size: '1m', chunks: 0 }, 'chunks', /whole number/],
      [{ filename: never, size: '64k', chunks: 100 }, 'chunks', /cannot be split/],
      [{ filename: never, size: '1m', probe: '1' }, 'probe', /at least 4096/],
      [{ filename: never, size: '1m', initialize: true, write: true }, 'initialize', /cannot be combined with write/],
      [{ filename: never, size: '1m', assertions: ['sweep.optimal_depth >= 1'] }, '--assert', /no sweep result/],
    ];
    for (const [options, field, message] of cases) {
      const err = await volbenchError(runUniformity(options));
      expect(err.field, String(message)).toBe(field);
      expect(err.message).toMatch(message);
    }
    expect(existsSync(never)).toBe(false);
  });
});

describe.skipIf(needs.missing('loop') !== undefined)('uniformity on a loop device', () => {
  const fixtures = new TargetFixtures('uniformity', '/dev/shm');
  afterAll(() => fixtures.release());

  it('initialize reads every block once, without the write opt-in', async () => {
    const device = fixtures.attachLoop(fixtures.image('disk.img', 37 * MiB));
    const result = await runUniformity({ filename: device, chunks: 8, initialize: true });
    const u = result.volbench.uniformity!;
    expect(u.initialize).toBe(true);
    expect(u.series).toHaveLength(8);
    const read = result.jobs.reduce((n, j) => n + j.read!.io_bytes, 0);
    expect(read).toBe(37 * MiB);
    expect(u.series.reduce((n, c) => n + c.bytes, 0)).toBe(37 * MiB);
    expect(result.jobs.every((j) => (j.write?.io_bytes ?? 0) === 0)).toBe(true);
  });

  it('writes a block device only with the opt-in', async () => {
    const device = fixtures.attachLoop(fixtures.image('w.img', 16 * MiB));
    const refused = await volbenchError(runUniformity({ filename: device, chunks: 4, probe: '1m', write: true }));
    expect(refused.code).toBe('EUNSAFE_TARGET');
    const refusedByRule = await volbenchError(runUniformity({
      filename: device, chunks: 4, probe: '1m', write: true, allow_block_write: true, allowBlockWrite: () => false,
    }));
    expect(refusedByRule.code).toBe('EUNSAFE_TARGET');
    const result = await runUniformity({ filename: device, chunks: 4, probe: '1m', write: true, allow_block_write: true });
    expect(result.volbench.uniformity!.rw).toBe('write');
    expect(result.jobs.map((j) => j.write!.io_bytes)).toEqual([MiB, MiB, MiB, MiB]);
  });
});
