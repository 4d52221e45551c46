/**
 * Size-based workloads on tmpfs files: the I/O counts that fio's options imply (mixes, loops,
 * io_size, regions, numjobs, bssplit, distributions, batching, syncs) hold exactly.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';

import { runJobs } from '../../src/index.js';
import { requires } from '../helpers/requires.js';
import { KiB, MiB, ScratchDir, dir, runJob, type EngineName } from '../helpers/run-fixtures.js';

const needs = requires('tmpfs', 'io_uring', 'libaio');

const scratch = new ScratchDir('workloads');
afterAll(() => scratch.remove());

const BS = 4 * KiB;

describe('mixed reads and writes', () => {
  it('randrw with rwmixread=70 issues size/bs I/Os, 70% of them reads within 3 points', async () => {
    const { job } = await runJob({
      name: 'mix', filename: scratch.path('mix.dat'), size: '16m', bs: '4k', rw: 'randrw', rwmixread: 70, iodepth: 8,
    });
    const reads = dir(job, 'read').total_ios;
    const writes = dir(job, 'write').total_ios;
    expect(reads + writes).toBe((16 * MiB) / BS);
    expect(dir(job, 'read').io_bytes + dir(job, 'write').io_bytes).toBe(16 * MiB);
    const share = (100 * reads) / (reads + writes);
    expect(share).toBeGreaterThan(67);
    expect(share).toBeLessThan(73);
  });
});

describe('how much a job transfers', () => {
  it('loops=3 repeats the whole region three times', async () => {
    const { job } = await runJob({ name: 'loops', filename: scratch.path('loops.dat'), size: '1m', rw: 'randread', loops: 3 });
    expect(dir(job, 'read').total_ios).toBe((3 * MiB) / BS);
    expect(dir(job, 'read').io_bytes).toBe(3 * MiB);
  });

  it('io_size smaller than size stops after io_size bytes', async () => {
    const { job } = await runJob({ name: 'iosz', filename: scratch.path('io-size.dat'), size: '4m', io_size: '1m', rw: 'randread' });
    expect(dir(job, 'read').total_ios).toBe(MiB / BS);
    expect(dir(job, 'read').io_bytes).toBe(MiB);
  });

  it('io_size larger than size wraps around the region until io_size bytes are done', async () => {
    const { job } = await runJob({ name: 'iosz2', filename: scratch.path('io-size-big.dat'), size: '1m', io_size: '4m', rw: 'read' });
    expect(dir(job, 'read').total_ios).toBe((4 * MiB) / BS);
    expect(dir(job, 'read').io_bytes).toBe(4 * MiB);
  });

  it('offset and size confine writes to their region of a bigger file', async () => {
    const path = scratch.path('region.dat');
    writeFileSync(path, Buffer.alloc(8 * MiB));
    const { job } = await runJob({ name: 'region', filename: path, offset: '2m', size: '2m', rw: 'randwrite', iodepth: 4 });
    expect(dir(job, 'write').total_ios).toBe((2 * MiB) / BS);
    const data = readFileSync(path);
    expect(data.length).toBe(8 * MiB);
    const isZero = (from: number, to: number): boolean => data.subarray(from, to).every((b) => b === 0);
    expect(isZero(0, 2 * MiB)).toBe(true);
    expect(isZero(4 * MiB, 8 * MiB)).toBe(true);
    // Random data in every block of the region: each was written.
    for (let at = 2 * MiB; at < 4 * MiB; at += BS) expect(isZero(at, at + BS)).toBe(false);
  });
});

describe('numjobs', () => {
  it('without group_reporting reports one entry per instance, each with its own file and count', async () => {
    const result = await runJobs({ jobs: [{ name: 'nj', directory: scratch.dir, size: '1m', rw: 'randread', numjobs: 2 }] });
    expect(result.jobs).toHaveLength(2);
    expect(result.volbench.jobs).toHaveLength(2);
    for (const job of result.jobs) {
      expect(job.jobname).toBe('nj');
      expect(dir(job, 'read').total_ios).toBe(MiB / BS);
    }
    expect(readFileSync(scratch.path('nj.0.0')).length).toBe(MiB);
    expect(readFileSync(scratch.path('nj.1.0')).length).toBe(MiB);
  });

  it('with group_reporting sums both instances into one entry', async () => {
    const result = await runJobs({
      jobs: [{ name: 'njg', directory: scratch.dir, size: '1m', rw: 'randread', numjobs: 2, group_reporting: 1 }],
    });
    expect(result.jobs).toHaveLength(1);
    expect(dir(result.jobs[0], 'read').total_ios).toBe((2 * MiB) / BS);
    expect(dir(result.jobs[0], 'read').io_bytes).toBe(2 * MiB);
    expect(result.volbench.jobs[0].members).toBe(2);
  });
});

describe('block sizes', () => {
  it('bssplit transfers exactly size bytes and uses every size it lists, some cut to a free run', async () => {
    const prefix = scratch.path('bssplit');
    const { job } = await runJob({
      name: 'bssplit', filename: scratch.path('bssplit.dat'), size: '4m', rw: 'randwrite', bssplit: '4k/50:16k/50',
      write_iops_log: prefix,
    });
    const w = dir(job, 'write');
    expect(w.io_bytes).toBe(4 * MiB);
    // All 16k would be 256 I/Os, all 4k 1024.
    expect(w.total_ios).toBeGreaterThan(256);
    expect(w.total_ios).toBeLessThan(1024);
    const sizes = new Set(
      readFileSync(`${prefix}_iops.1.log`, 'utf8').trim().split('\n').map((line) => Number(line.split(', ')[3])),
    );
    // The random map cuts a 16k I/O that runs into a block already done to 8k or 12k, as fio does.
    expect(sizes).toContain(4 * KiB);
    expect(sizes).toContain(16 * KiB);
    expect([...sizes].every((s) => s % (4 * KiB) === 0 && s <= 16 * KiB)).toBe(true);
  });

  it('bssplit on a sequential write also ends exactly at size', async () => {
    const { job } = await runJob({ name: 'bss-seq', filename: scratch.path('bss-seq.dat'), size: '4m', rw: 'write', bssplit: '4k/50:16k/50' });
    expect(dir(job, 'write').io_bytes).toBe(4 * MiB);
  });
});

/** How many times each 4k block was covered, from a log_offset=1 log: block index → count. */
function blockCounts(logPath: string, regionStart = 0): Map<number, number> {
  const counts = new Map<number, number>();
  for (const line of readFileSync(logPath, 'utf8').trim().split('\n')) {
    const [, , , bs, offset] = line.split(', ').map(Number);
    for (let b = (offset - regionStart) / BS; b < (offset - regionStart + bs) / BS; b++) counts.set(b, (counts.get(b) ?? 0) + 1);
  }
  return counts;
}

describe('the random map with several block sizes (bssplit)', () => {
  const split = { rw: 'randwrite', bssplit: '4k/50:16k/30:256k/20', log_offset: 1 };

  it('covers every block of the region once per loop: loops=2 writes each block twice', async () => {
    const prefix = scratch.path('map-loops');
    const path = scratch.path('map-loops.dat');
    writeFileSync(path, Buffer.alloc(6 * MiB));
    const { job } = await runJob({
      name: 'map-loops', filename: path, offset: '1m', size: '4m', loops: 2, iodepth: 4, write_iops_log: prefix, ...split,
    });
    expect(dir(job, 'write').io_bytes).toBe(8 * MiB);
    const counts = blockCounts(`${prefix}_iops.1.log`, MiB);
    expect(counts.size).toBe((4 * MiB) / BS);
    expect([...counts.keys()].every((b) => b >= 0 && b < (4 * MiB) / BS)).toBe(true);
    expect(new Set(counts.values())).toEqual(new Set([2]));
  });

  it('io_size three times size starts a new pass each time the map is full', async () => {
    const prefix = scratch.path('map-iosize');
    const { job } = await runJob({
      name: 'map-iosize', filename: scratch.path('map-iosize.dat'), size: '2m', io_size: '6m', write_iops_log: prefix, ...split,
    });
    expect(dir(job, 'write').io_bytes).toBe(6 * MiB);
    const counts = blockCounts(`${prefix}_iops.1.log`);
    expect(counts.size).toBe((2 * MiB) / BS);
    expect(new Set(counts.values())).toEqual(new Set([3]));
  });

  it('time-based: passes follow one another, so no block is covered twice more than another', async () => {
    const prefix = scratch.path('map-timed');
    await runJob({
      name: 'map-timed', filename: scratch.path('map-timed.dat'), size: '1m', time_based: 1, runtime: '300ms',
      write_iops_log: prefix, ...split,
    });
    const counts = [...blockCounts(`${prefix}_iops.1.log`).values()];
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(2);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
  });
});

describe('random offsets', () => {
  for (const distribution of ['zipf:1.2', 'pareto:0.9', 'normal:50']) {
    it(`random_distribution=${distribution} issues size/bs I/Os`, async () => {
      const { job } = await runJob({
        name: 'dist', filename: scratch.path('dist.dat'), size: '4m', rw: 'randread', random_distribution: distribution,
      });
      expect(job.error).toBe(0);
      expect(dir(job, 'read').total_ios).toBe((4 * MiB) / BS);
      expect(dir(job, 'read').io_bytes).toBe(4 * MiB);
    });
  }

  it('norandommap issues size/bs I/Os', async () => {
    const { job } = await runJob({ name: 'nomap', filename: scratch.path('nomap.dat'), size: '4m', rw: 'randread', norandommap: 1 });
    expect(dir(job, 'read').total_ios).toBe((4 * MiB) / BS);
  });
});

describe('submission batching', () => {
  for (const engine of ['io_uring', 'libaio'] as EngineName[]) {
    const reason = needs.engine(engine);
    it.skipIf(reason !== undefined)(
      `${engine} with iodepth_batch_submit=8 and iodepth_batch_complete_min=4 completes every I/O${reason ? ` (skipped: ${reason})` : ''}`,
      async () => {
        const { job } = await runJob({
          name: 'batch', filename: scratch.path(`batch-${engine}.dat`), size: '4m', rw: 'randread', ioengine: engine,
          iodepth: 16, iodepth_batch_submit: 8, iodepth_batch_complete_min: 4,
        });
        expect(job.error).toBe(0);
        expect(dir(job, 'read').total_ios).toBe((4 * MiB) / BS);
        // Submissions come in batches of 8: the 5-8 bucket is used, nothing above it.
        expect(job.iodepth_submit['8']).toBeGreaterThan(0);
        expect(job.iodepth_submit['16'] + job.iodepth_submit['32'] + job.iodepth_submit['64'] + job.iodepth_submit['>=64']).toBe(0);
      },
    );
  }
});

describe('syncing', () => {
  for (const option of ['fsync', 'fdatasync']) {
    for (const engine of ['psync', 'io_uring'] as EngineName[]) {
      const reason = needs.engine(engine);
      it.skipIf(reason !== undefined)(`${option}=4 on ${engine} syncs after every 4th write but the last${reason ? ` (skipped: ${reason})` : ''}`, async () => {
        const { job } = await runJob({
          name: option, filename: scratch.path(`${option}-${engine}.dat`), size: '1m', rw: 'randwrite', ioengine: engine,
          iodepth: 4, [option]: 4,
        });
        expect(job.error).toBe(0);
        const writes = dir(job, 'write').total_ios;
        expect(writes).toBe(MiB / BS);
        // fio 3.33 issues no sync after the job's last write: 256 writes, 63 syncs.
        const syncs = Math.floor((writes - 1) / 4);
        expect(job.sync?.lat_ns.N).toBe(syncs);
        // fio counts fdatasync calls in lat_ns only; its sync total_ios stays 0 for them.
        if (option === 'fsync') expect(job.sync?.total_ios).toBe(syncs);
      });
    }
  }

  it('end_fsync=1 finishes cleanly with every write counted and no periodic syncs', async () => {
    const { job } = await runJob({ name: 'endfsync', filename: scratch.path('end-fsync.dat'), size: '1m', rw: 'write', end_fsync: 1 });
    expect(job.error).toBe(0);
    expect(dir(job, 'write').total_ios).toBe(MiB / BS);
    expect(job.sync?.total_ios ?? 0).toBe(0);
  });
});
