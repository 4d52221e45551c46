/**
 * A full filesystem ends a write job with fio's error 28 (ENOSPC), named by the engine's call
 * that writes, and what it wrote until then; the promise resolves, the process lives on, and
 * the next run works. The filesystem is an 8 MiB tmpfs mounted for this file alone.
 */
import { existsSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import { KiB, MiB, dir, runJob, type EngineName } from '../helpers/run-fixtures.js';
import { TargetFixtures } from '../helpers/target-fixtures.js';

const needs = requires('root', 'io_uring', 'libaio');

const ENOSPC = 28;
/** The system call each engine's failed write is reported under. */
const WRITE_SYSCALL: Partial<Record<EngineName, string>> = {
  io_uring: 'io_uring_enter', libaio: 'io_submit', psync: 'pwrite', sync: 'write',
};
const rootReason = needs.missing('root');
const why = (reason: string | undefined): string => (reason === undefined ? '' : ` (skipped: ${reason})`);

describe.skipIf(rootReason !== undefined)(`a write job on a full filesystem${why(rootReason)}`, () => {
  let fx: TargetFixtures;
  let mountPoint = '';
  beforeAll(() => {
    fx = new TargetFixtures('enospc');
    mountPoint = fx.mountTmpfs('small', 8 * MiB);
  });
  afterAll(() => fx?.release());

  const freeBytes = (): number => {
    const s = statfsSync(mountPoint);
    return s.bavail * s.bsize;
  };

  for (const engine of ['io_uring', 'libaio', 'psync', 'sync'] as EngineName[]) {
    const reason = needs.engine(engine);
    it.skipIf(reason !== undefined)(`ends with ENOSPC after writing what fits (${engine})${why(reason)}`, async () => {
      const path = join(mountPoint, `full-${engine}.dat`);
      try {
        const { result, job } = await runJob({
          name: `full-${engine}`, filename: path, size: '16m', rw: 'write', fallocate: 'none', ioengine: engine, iodepth: 4,
        });
        expect(job.error).toBe(ENOSPC);
        const written = dir(job, 'write').io_bytes;
        expect(written).toBeGreaterThan(0);
        expect(written).toBeLessThan(16 * MiB);
        expect(written % (4 * KiB)).toBe(0);
        expect(result.volbench.jobs[0].error_message).toMatch(/No space left on device/);
        expect(result.volbench.jobs[0].error_syscall).toBe(WRITE_SYSCALL[engine]);
        expect(result.volbench.jobs[0].engine).toBe(engine);
      } finally {
        rmSync(path, { force: true });
      }
      // Nothing of the job holds the deleted file: its space is free again at once.
      expect(freeBytes()).toBe(8 * MiB);
    });
  }

  it('the next run on the same filesystem works', async () => {
    const path = join(mountPoint, 'after.dat');
    const { job } = await runJob({ name: 'after', filename: path, size: '4m', rw: 'randwrite' });
    expect(job.error).toBe(0);
    expect(dir(job, 'write').io_bytes).toBe(4 * MiB);
    expect(existsSync(path)).toBe(true);
  });

  it('a log that runs out of space ends the job with ENOSPC instead of a silently cut log', async () => {
    // The data file lives elsewhere; the per-I/O latency logs (2048 lines each) fill the tmpfs
    // once a filler leaves it about 64 KiB.
    const filler = join(mountPoint, 'filler');
    const logDir = mountPoint;
    const fill = await runJob({ name: 'filler', filename: filler, size: `${Math.floor(freeBytes() / KiB) - 64}k`, rw: 'write', fallocate: 'none' });
    expect(fill.job.error).toBe(0);
    const data = join(fx.dir, 'log-data.dat');
    try {
      const { result, job } = await runJob({
        name: 'logs', filename: data, size: '8m', rw: 'randread', write_lat_log: join(logDir, 'lat'), log_avg_msec: 0,
      });
      expect(job.error).toBe(ENOSPC);
      expect(result.volbench.jobs[0].error_message).toContain('writing log');
      expect(dir(job, 'read').total_ios).toBe((8 * MiB) / (4 * KiB));
    } finally {
      rmSync(filler, { force: true });
      rmSync(data, { force: true });
      for (const kind of ['lat', 'clat', 'slat']) rmSync(join(logDir, `lat_${kind}.1.log`), { force: true });
    }
  });
});
