/**
 * Reporting options on real runs: unified_rw_reporting, fio's bw/iops/lat log files with and
 * without log_avg_msec, disabled latencies, extra percentiles, unlink and kb_base.
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import { KiB, MiB, ScratchDir, dir, runJob } from '../helpers/run-fixtures.js';

const needs = requires('tmpfs');

const scratch = new ScratchDir('reporting');
afterAll(() => scratch.remove());

const BS = 4 * KiB;

/** fio's log line: `msec, value, ddir, bs, prio`. */
const LOG_LINE = /^(\d+), (\d+), ([012]), (\d+), (\d+)$/;

function logLines(path: string): string[][] {
  const text = readFileSync(path, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text.trimEnd().split('\n').map((line) => {
    const m = LOG_LINE.exec(line);
    if (m === null) throw new Error(`${path}: '${line}' is not a fio log line`);
    return m.slice(1);
  });
}

describe('unified_rw_reporting', () => {
  it('mixed reports one mixed section holding reads and writes together', async () => {
    const { job } = await runJob({ name: 'mixed', filename: scratch.path('mixed.dat'), size: '4m', rw: 'randrw', unified_rw_reporting: 'mixed' });
    expect(job.read).toBeUndefined();
    expect(job.write).toBeUndefined();
    const mixed = dir(job, 'mixed');
    expect(mixed.total_ios).toBe((4 * MiB) / BS);
    expect(mixed.io_bytes).toBe(4 * MiB);
    expect(mixed.clat_ns.N).toBe((4 * MiB) / BS);
  });

  it('both reports read, write and trim, then a mixed section that sums them', async () => {
    const { job } = await runJob({ name: 'both', filename: scratch.path('both.dat'), size: '4m', rw: 'randrw', unified_rw_reporting: 'both' });
    const read = dir(job, 'read');
    const write = dir(job, 'write');
    expect(read.total_ios).toBeGreaterThan(0);
    expect(write.total_ios).toBeGreaterThan(0);
    expect(read.total_ios + write.total_ios).toBe((4 * MiB) / BS);
    expect(dir(job, 'trim').total_ios).toBe(0);
    expect(dir(job, 'mixed').total_ios).toBe(read.total_ios + write.total_ios);
    expect(dir(job, 'mixed').io_bytes).toBe(4 * MiB);
    expect(Object.keys(job).filter((k) => ['read', 'write', 'trim', 'mixed'].includes(k))).toEqual(['read', 'write', 'trim', 'mixed']);
  });
});

describe('log files', () => {
  it('without log_avg_msec, every log has one line per I/O with its direction and size', async () => {
    const prefix = scratch.path('per-io');
    const { job } = await runJob({
      name: 'perio', filename: scratch.path('per-io.dat'), size: '1m', rw: 'randrw',
      write_bw_log: prefix, write_iops_log: prefix, write_lat_log: prefix,
    });
    const reads = dir(job, 'read').total_ios;
    const writes = dir(job, 'write').total_ios;
    expect(reads + writes).toBe(MiB / BS);
    // fio names them <prefix>_<kind>.<job number>.log, the first job being 1.
    for (const kind of ['bw', 'iops', 'lat', 'clat', 'slat']) {
      const lines = logLines(`${prefix}_${kind}.1.log`);
      expect(lines).toHaveLength(reads + writes);
      expect(lines.filter((l) => l[2] === '0')).toHaveLength(reads);
      expect(lines.filter((l) => l[2] === '1')).toHaveLength(writes);
      for (const [, , , bs] of lines) expect(Number(bs)).toBe(BS);
      const times = lines.map((l) => Number(l[0]));
      expect(times).toEqual([...times].sort((a, b) => a - b));
    }
    for (const [, value] of logLines(`${prefix}_iops.1.log`)) expect(value).toBe('1');
  });

  it('with log_avg_msec=100, logs hold one averaged line per window with bs 0', async () => {
    const prefix = scratch.path('avg');
    // 1024 I/Os at 2000 IOPS: about half a second, so several 100 ms windows.
    const { job } = await runJob({
      name: 'avg', filename: scratch.path('avg.dat'), size: '4m', rw: 'randread', rate_iops: 2000,
      write_bw_log: prefix, write_iops_log: prefix, write_lat_log: prefix, log_avg_msec: 100,
    });
    expect(dir(job, 'read').total_ios).toBe((4 * MiB) / BS);
    for (const kind of ['bw', 'iops', 'lat', 'clat', 'slat']) {
      const lines = logLines(`${prefix}_${kind}.1.log`);
      expect(lines.length).toBeGreaterThanOrEqual(2);
      // Far fewer lines than I/Os: these are window averages.
      expect(lines.length).toBeLessThan(100);
      for (const [, , ddir, bs] of lines) {
        expect(ddir).toBe('0');
        expect(bs).toBe('0');
      }
      const times = lines.map((l) => Number(l[0]));
      for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThan(times[i - 1]);
    }
  });
});

describe('latency options', () => {
  it('disable_lat and disable_slat leave those latencies empty while clat counts every I/O', async () => {
    const { job } = await runJob({
      name: 'nolat', filename: scratch.path('nolat.dat'), size: '1m', rw: 'randread', disable_lat: 1, disable_slat: 1,
    });
    const read = dir(job, 'read');
    expect(read.total_ios).toBe(MiB / BS);
    expect(read.lat_ns.N).toBe(0);
    expect(read.slat_ns.N).toBe(0);
    expect(read.clat_ns.N).toBe(MiB / BS);
  });

  it('lat_percentiles and slat_percentiles add percentiles to lat_ns and slat_ns', async () => {
    const { job } = await runJob({
      name: 'pct', filename: scratch.path('pct.dat'), size: '1m', rw: 'randread', ioengine: 'io_uring', iodepth: 4,
      lat_percentiles: 1, slat_percentiles: 1,
    });
    const read = dir(job, 'read');
    for (const stats of [read.clat_ns, read.lat_ns, read.slat_ns]) {
      expect(stats.N).toBe(MiB / BS);
      const keys = Object.keys(stats.percentile ?? {});
      expect(keys).toContain('99.900000');
      expect(keys).toHaveLength(17);
      const values = Object.values(stats.percentile ?? {});
      expect(values).toEqual([...values].sort((a, b) => a - b));
    }
  });

  it('by default only clat has percentiles', async () => {
    const { job } = await runJob({ name: 'defpct', filename: scratch.path('defpct.dat'), size: '1m', rw: 'randread' });
    const read = dir(job, 'read');
    expect(read.clat_ns.percentile).toBeDefined();
    expect(read.lat_ns.percentile).toBeUndefined();
    expect(read.slat_ns.percentile).toBeUndefined();
  });
});

describe('files and units', () => {
  it('unlink=1 removes the file after the job', async () => {
    const path = scratch.path('unlink.dat');
    const { job } = await runJob({ name: 'unlink', filename: path, size: '1m', rw: 'randwrite', unlink: 1 });
    expect(dir(job, 'write').total_ios).toBe(MiB / BS);
    expect(existsSync(path)).toBe(false);
  });

  it('without unlink the laid-out file stays', async () => {
    const path = scratch.path('keep.dat');
    await runJob({ name: 'keep', filename: path, size: '1m', rw: 'randwrite' });
    expect(readFileSync(path).length).toBe(MiB);
  });

  it('kb_base=1000 reads 4m and 4k as powers of 1000, as fio does', async () => {
    const { job } = await runJob({ name: 'kb1000', filename: scratch.path('kb1000.dat'), kb_base: 1000, size: '4m', bs: '4k', rw: 'randread' });
    expect(dir(job, 'read').total_ios).toBe(1000);
    expect(dir(job, 'read').io_bytes).toBe(4_000_000);
  });

  it('kb_base=1000 reads 4MiB and 4KiB as powers of 1024', async () => {
    const { job } = await runJob({ name: 'kb1000i', filename: scratch.path('kb1000i.dat'), kb_base: 1000, size: '4MiB', bs: '4KiB', rw: 'randread' });
    expect(dir(job, 'read').total_ios).toBe(1024);
    expect(dir(job, 'read').io_bytes).toBe(4 * MiB);
  });
});
