/**
 * Every engine moves exactly the bytes a size-based job asks for: total_ios = size / bs,
 * io_bytes = size, one clat sample per I/O, and the engine reported is the engine asked for.
 */
import { afterAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import {
  ALL_ENGINES, AUTO_ENGINES, MiB, ScratchDir, dir, runJob, type EngineName,
} from '../helpers/run-fixtures.js';

const needs = requires('tmpfs', 'io_uring', 'libaio');

const SIZE = 2 * MiB;
const BS = 4096;
const scratch = new ScratchDir('engines');
afterAll(() => scratch.remove());

const PATTERNS = [
  { rw: 'randread', direction: 'read' },
  { rw: 'randwrite', direction: 'write' },
  { rw: 'read', direction: 'read' },
  { rw: 'write', direction: 'write' },
] as const;

function suiteName(engine: EngineName): string {
  const reason = needs.engine(engine);
  return reason === undefined ? `ioengine=${engine}` : `ioengine=${engine} (skipped: ${reason})`;
}

for (const engine of ALL_ENGINES) {
  describe.skipIf(needs.engine(engine) !== undefined)(suiteName(engine), () => {
    for (const { rw, direction } of PATTERNS) {
      it(`${rw} on a tmpfs file transfers size/bs I/Os of bs bytes`, async () => {
        const { result, job } = await runJob({
          name: `${engine}-${rw}`,
          filename: scratch.path(`${engine}-${rw}.dat`),
          size: '2m',
          bs: '4k',
          rw,
          ioengine: engine,
          iodepth: 8,
        });
        expect(job.error).toBe(0);
        const stats = dir(job, direction);
        expect(stats.total_ios).toBe(SIZE / BS);
        expect(stats.io_bytes).toBe(SIZE);
        expect(stats.clat_ns.N).toBe(SIZE / BS);
        expect(stats.lat_ns.N).toBe(SIZE / BS);
        const other = dir(job, direction === 'read' ? 'write' : 'read');
        expect(other.total_ios).toBe(0);
        expect(other.io_bytes).toBe(0);
        expect(result.volbench.jobs[0].engine).toBe(engine);
        expect(result.volbench.jobs[0].cancelled).toBe(false);
        expect(result.volbench.jobs[0].error_message).toBe('');
      });
    }
  });
}

describe('ioengine unset', () => {
  it('runs on the first engine of io_uring, libaio, psync that the kernel sets up', async () => {
    const { result, job } = await runJob({
      name: 'auto',
      filename: scratch.path('auto.dat'),
      size: '1m',
      bs: '4k',
      rw: 'randread',
      iodepth: 4,
    });
    expect(job.error).toBe(0);
    expect(dir(job, 'read').total_ios).toBe(MiB / BS);
    const engine = result.volbench.jobs[0].engine as EngineName;
    expect(AUTO_ENGINES).toContain(engine);
    const expected = AUTO_ENGINES.find((e) => needs.engine(e) === undefined);
    expect(engine).toBe(expected);
  });
});
