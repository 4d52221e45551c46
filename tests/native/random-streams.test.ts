/**
 * A job's offsets come from its seed and its place in the run alone, not from how it fills its
 * buffers: the written data (buffer contents, refills, verify salts) draws from a stream of its
 * own, as fio keeps buf_state apart from its random state. So a read job in the write job's
 * place in a later run replays its offsets with the same randseed, whatever the write job did
 * to its data, and verifies the blocks that were written (fio's way of checking data later). In
 * one run the second job is seeded for its own place, as in fio, and reads other blocks.
 */
import { afterAll, describe, expect, it } from 'vitest';

import { runJobs } from '../../src/index.js';
import { loggedIos } from '../compat/io-log.js';
import { requires } from '../helpers/requires.js';
import { ScratchDir } from '../helpers/run-fixtures.js';

const needs = requires('tmpfs');

const scratch = new ScratchDir('random-streams');
afterAll(() => scratch.remove());

describe('random streams', () => {
  it('a read job draws the offsets of the write job before it, refills and verify salts notwithstanding', async () => {
    const common = {
      filename: scratch.path('target.bin'), size: '1m', bs: '4k', ioengine: 'psync', norandommap: true,
      randseed: 1234, log_offset: true,
    };
    const wrote = await runJobs({
      jobs: [{ ...common, name: 'w', rw: 'randwrite', refill_buffers: true, verify: 'crc32c', do_verify: false, write_iops_log: scratch.path('w') }],
    });
    const checked = await runJobs({
      jobs: [{ ...common, name: 'r', rw: 'randread', verify: 'crc32c', write_iops_log: scratch.path('r') }],
    });
    expect([...wrote.jobs, ...checked.jobs].map((j) => j.error)).toEqual([0, 0]);
    const written = loggedIos(scratch.dir, 'w_iops.1.log').map((io) => io.offset);
    const read = loggedIos(scratch.dir, 'r_iops.1.log').map((io) => io.offset);
    expect(written).toHaveLength(256);
    // Drawn with replacement (norandommap): some blocks twice, some never, so the sequence itself
    // is the evidence.
    expect(new Set(written).size).toBeLessThan(256);
    expect(read).toEqual(written);
  });
});
