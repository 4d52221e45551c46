/**
 * The rotational analysis with real reads: refused where the target says it does not spin,
 * run with force on a loop device, a read per job alternating between the ends then within a
 * small window, every read timed.
 */
import { afterAll, describe, expect, it } from 'vitest';

import { jumpOffsets, runRotational } from '../../src/analysis/rotational.js';
import { requires } from '../helpers/requires.js';
import { MiB, volbenchError } from '../helpers/run-fixtures.js';
import { TargetFixtures } from '../helpers/target-fixtures.js';

const needs = requires('tmpfs', 'loop');

describe('jump offsets', () => {
  it('alternate between the first and last 1% of the target, then stay in a 1 MiB window', () => {
    const size = 1000 * MiB;
    const jumps = jumpOffsets(size, 10, 10, 7);
    expect(jumps.map((j) => j.kind)).toEqual([...Array(10).fill('long'), ...Array(10).fill('short')]);
    jumps.slice(0, 10).forEach((j, i) => {
      if (i % 2 === 0) expect(j.offset).toBeLessThan(size / 100);
      else expect(j.offset).toBeGreaterThanOrEqual(size - size / 100 - 4096);
    });
    const shorts = jumps.slice(10).map((j) => j.offset);
    expect(Math.max(...shorts) - Math.min(...shorts)).toBeLessThan(MiB);
    expect(jumps.every((j) => j.offset % 4096 === 0 && j.offset + 4096 <= size)).toBe(true);
    expect(jumpOffsets(size, 10, 10, 7)).toEqual(jumps);
  });
});

describe.skipIf(needs.missing('loop') !== undefined)('rotational on a loop device', () => {
  const fixtures = new TargetFixtures('rotational', '/dev/shm');
  afterAll(() => fixtures.release());

  it('is refused where the target does not spin, and runs with force', async () => {
    const device = fixtures.attachLoop(fixtures.image('disk.img', 64 * MiB));
    const refused = await volbenchError(runRotational({ filename: device }));
    expect(refused.code).toBe('EINVALID_PLAN');
    expect(refused.field).toBe('force');
    expect(refused.message).toMatch(/not rotational/);

    const batches: number[] = [];
    const result = await runRotational({
      filename: device, force: true, longSamples: 40, shortSamples: 40, ioengine: 'psync',
      assertions: ['rotational.rpm > 0'],
      onBatch: (e) => batches.push(e.done),
    });
    const r = result.volbench.rotational!;
    expect(r).toMatchObject({ rotational: false, forced: true, long_samples: 40, short_samples: 40 });
    expect(batches).toEqual([32, 64, 80]);
    expect(result.jobs).toHaveLength(80);
    expect(result.jobs.every((j) => j.read!.total_ios === 1 && j.read!.io_bytes === 4096)).toBe(true);
    expect(result.jobs[0].jobname).toBe('long-00');
    expect(result.jobs[79].jobname).toBe('short-79');
    expect(r.long_outliers + r.short_outliers).toBeLessThan(80);
    // Memory does not spin: whatever the fit says, it is no disk's speed.
    expect(r.plausible).toBe(false);
    expect(r.long_median_ns).toBeGreaterThan(0);
    expect(result.volbench.assertions).toHaveLength(1);
  });

  it('refuses too few samples', async () => {
    const err = await volbenchError(runRotational({ filename: '/dev/null', longSamples: 3 }));
    expect(err.field).toBe('long_samples');
  });
});
