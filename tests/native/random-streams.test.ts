/**
 * A job's offsets come from its seed alone, not from how it fills its buffers: the written
 * data (buffer contents, refills, verify salts) draws from a stream of its own, as fio keeps
 * buf_state apart from its random state. So a read job replays the offsets of the write job
 * before it with the same randseed, whatever the write job did to its data, and a verify pass
 * over norandommap writes reads back the blocks that were written.
 */
import { afterAll, describe, expect, it } from 'vitest';

import { runJobs } from '../../src/index.js';
import { loggedIos } from '../compat/io-log.js';
import { ScratchDir } from '../helpers/run-fixtures.js';

const scratch = new ScratchDir('random-streams');
afterAll(() => scratch.remove());

describe('random streams', () => {
  it('a read job draws the offsets of the write job before it, refills and verify salts notwithstanding', async () => {
    const common = {
      filename: scratch.path('target.bin'), size: '1m', bs: '4k', ioengine: 'psync', norandommap: true,
      randseed: 1234, log_offset: true,
    };
    const result = await runJobs({
      jobs: [
        { ...common, name: 'w', rw: 'randwrite', refill_buffers: true, verify: 'crc32c', do_verify: false, write_iops_log: scratch.path('w') },
        { ...common, name: 'r', rw: 'randread', verify: 'crc32c', stonewall: true, write_iops_log: scratch.path('r') },
      ],
    });
    expect(result.jobs.map((j) => j.error)).toEqual([0, 0]);
    const written = loggedIos(scratch.dir, 'w_iops.1.log').map((io) => io.offset);
    const read = loggedIos(scratch.dir, 'r_iops.2.log').map((io) => io.offset);
    expect(written).toHaveLength(256);
    // Drawn with replacement (norandommap): some blocks twice, some never, so the sequence itself
    // is the evidence.
    expect(new Set(written).size).toBeLessThan(256);
    expect(read).toEqual(written);
  });
});
