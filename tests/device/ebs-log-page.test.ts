/**
 * NVMe log page 0xD0 (a Nitro volume's own statistics): decoded field for field from a page built
 * to the documented layout, refused when short or of an unknown kind, and turned into a job's
 * deltas. And the test seam's directory: honoured only where no one else can have written.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { decodeEbsLogPage, EBS_LOG_PAGE_MIN_BYTES } from '../../src/device/ebs-log-page.js';
import { ebsStatsDelta } from '../../src/device/ebs-stats-delta.js';
import { closeEmulatedNvmeDir, openEmulatedNvmeDir, readEmulatedPage, readEmulation } from '../../src/device/emulated-nvme.js';
import { VolbenchError } from '../../src/errors.js';
import { encodeEbsLogPage, INSTANCE_STORE_MAGIC, SAMPLE_PAGE, type PageFields } from '../helpers/ebs-log-page.js';
import { requires } from '../helpers/requires.js';

const needs = requires('root');

function refusal(bytes: Uint8Array): VolbenchError {
  try {
    decodeEbsLogPage(bytes);
  } catch (err) {
    if (err instanceof VolbenchError) return err;
    throw err;
  }
  throw new Error('the page was not refused');
}

describe('decoding the page', () => {
  it('reads every field of an EBS page at its documented offset', () => {
    const page = decodeEbsLogPage(encodeEbsLogPage(SAMPLE_PAGE));
    const { magic, ...fields } = SAMPLE_PAGE;
    expect(page).toEqual({ page: 'ebs', magic, ...fields });
  });

  it('reads an instance-store page with the same base layout and says which it is', () => {
    const page = decodeEbsLogPage(encodeEbsLogPage({ ...SAMPLE_PAGE, magic: INSTANCE_STORE_MAGIC }));
    expect(page.page).toBe('instance-store');
    expect(page.ec2_instance_ebs_performance_exceeded_tp).toBe(350_000);
    expect(page.write_io_latency_histogram).toHaveLength(64);
  });

  it('takes a page that ends after the write histogram, without the per-size header', () => {
    const page = decodeEbsLogPage(encodeEbsLogPage(SAMPLE_PAGE, EBS_LOG_PAGE_MIN_BYTES));
    expect(page.total_write_time).toBe(SAMPLE_PAGE.total_write_time);
    expect(page.num_of_hists).toBeUndefined();
  });

  it('refuses a short page, naming the offset where it ends and the length it needs', () => {
    const err = refusal(encodeEbsLogPage(SAMPLE_PAGE, 2100));
    expect(err.code).toBe('EINVALID_VALUE');
    expect(err.field).toBe('page (offset 2100)');
    expect(err.message).toMatch(/ends at offset 2100, inside write_io_latency_histogram .*at least 3,600 bytes/);
    expect(refusal(encodeEbsLogPage(SAMPLE_PAGE, 20)).message).toMatch(/inside total_write_ops \(offset 16\)/);
    expect(refusal(new Uint8Array(0)).message).toMatch(/inside the magic/);
  });

  it('refuses an unknown magic, naming offset 0 and the two it knows', () => {
    const err = refusal(encodeEbsLogPage({ ...SAMPLE_PAGE, magic: 0x12345678 }));
    expect(err.field).toBe('magic (offset 0)');
    expect(err.message).toContain('0x12345678; expected 0x3C23B510 (EBS) or 0xEC2C0D7E (instance store)');
  });

  it('refuses a histogram of more than 64 bins', () => {
    const bytes = encodeEbsLogPage(SAMPLE_PAGE);
    bytes.writeBigUInt64LE(65n, 2056);
    expect(refusal(bytes).field).toBe('write_io_latency_histogram.num_bins (offset 2056)');
  });
});

describe("a job's deltas", () => {
  const at = (fields: Partial<PageFields>, atMs: number) => ({
    source: 'emulated' as const, device: 'loop7', atMs, page: decodeEbsLogPage(encodeEbsLogPage({ ...SAMPLE_PAGE, ...fields })),
  });

  it('subtracts counters and bins and holds each exceeded time against the time between the reads', () => {
    const before = at({}, 1000);
    const bins = SAMPLE_PAGE.read_io_latency_histogram.map((b, i) => ({ ...b, count: b.count + (i === 5 ? 900 : 0) }));
    const after = at({
      total_read_ops: SAMPLE_PAGE.total_read_ops + 900,
      total_read_bytes: SAMPLE_PAGE.total_read_bytes + 900 * 4096,
      total_read_time: SAMPLE_PAGE.total_read_time + 450_000,
      ebs_volume_performance_exceeded_iops: SAMPLE_PAGE.ebs_volume_performance_exceeded_iops + 1_500_000,
      read_io_latency_histogram: bins,
    }, 3000);
    const d = ebsStatsDelta(before, after);
    expect(d).toMatchObject({
      source: 'emulated', device: 'loop7', page: 'ebs', elapsed_us: 2_000_000,
      exceeded_us: { volume_iops: 1_500_000, volume_throughput: 0, instance_iops: 0, instance_throughput: 0 },
      exceeded_share: { volume_iops: 0.75, volume_throughput: 0, instance_iops: 0, instance_throughput: 0 },
      read_ops: 900, write_ops: 0, read_bytes: 900 * 4096, write_bytes: 0, read_time_us: 450_000, write_time_us: 0,
    });
    expect(d.read_io_latency_histogram.filter((b) => b.count > 0)).toEqual([{ lower_us: 256, upper_us: 512, count: 900 }]);
    expect(d.write_io_latency_histogram.every((b) => b.count === 0)).toBe(true);
  });

  it('reads a counter that went back (the volume attached again) as 0, and caps a share at 1', () => {
    const d = ebsStatsDelta(at({}, 0), at({ total_read_ops: 5, ebs_volume_performance_exceeded_tp: SAMPLE_PAGE.ebs_volume_performance_exceeded_tp + 9e6 }, 1000));
    expect(d.read_ops).toBe(0);
    expect(d.exceeded_share.volume_throughput).toBe(1);
  });
});

describe('the test seam VOLBENCH_EMULATED_NVME_DIR', () => {
  const root = mkdtempSync(join(tmpdir(), 'volbench-seam-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const env = (dir: string) => ({ VOLBENCH_EMULATED_NVME_DIR: dir });
  const refusedFor = (dir: string) => {
    const r = openEmulatedNvmeDir(env(dir));
    return r && 'refused' in r ? r.refused : null;
  };

  it('is not there unless set', () => {
    expect(openEmulatedNvmeDir({})).toBeNull();
  });

  it('reads the page and the scale published for a device from a directory of this user only', async () => {
    const dir = join(root, 'good');
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, '7:9.page'), encodeEbsLogPage(SAMPLE_PAGE), { mode: 0o600 });
    writeFileSync(join(dir, '7:9.emulation.json'), '{"rate":0.25,"time":0.1}', { mode: 0o600 });
    const r = openEmulatedNvmeDir(env(`${dir}/`));
    expect(r && 'dir' in r).toBe(true);
    if (!r || !('dir' in r)) return;
    try {
      expect(decodeEbsLogPage((await readEmulatedPage(r.dir, '7:9'))!).total_read_ops).toBe(SAMPLE_PAGE.total_read_ops);
      expect(await readEmulation(r.dir, '7:9')).toEqual({ rate: 0.25, time: 0.1 });
      expect(await readEmulatedPage(r.dir, '7:10')).toBeNull();
      // A page anyone could have written is not one.
      chmodSync(join(dir, '7:9.page'), 0o666);
      await expect(readEmulatedPage(r.dir, '7:9')).rejects.toThrow(/writable by it alone/);
    } finally {
      closeEmulatedNvmeDir(r.dir);
    }
  });

  it('refuses a relative path, a symlink, a directory others may write, and one under a parent others may write', () => {
    expect(refusedFor('relative/dir')).toMatch(/not an absolute path/);
    const dir = join(root, 'open');
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(dir, 0o770);
    expect(refusedFor(dir)).toMatch(/writable by its group or by others \(mode 770\)/);
    const link = join(root, 'link');
    symlinkSync(join(root, 'good'), link);
    expect(refusedFor(link)).toMatch(/is a symlink/);
    const parent = join(root, 'shared');
    mkdirSync(join(parent, 'inner'), { recursive: true, mode: 0o700 });
    chmodSync(join(parent, 'inner'), 0o700);
    chmodSync(parent, 0o777);
    expect(refusedFor(join(parent, 'inner'))).toMatch(/shared is writable by its group or by others and not sticky/);
    chmodSync(parent, 0o1777);
    expect(refusedFor(join(parent, 'inner'))).toBeNull();
  });

  it.skipIf(needs.missing('root') !== undefined)("refuses a directory that is not this user's (chown needs root)", () => {
    const dir = join(root, 'theirs');
    mkdirSync(dir, { mode: 0o700 });
    chownSync(dir, 4242, 4242);
    expect(refusedFor(dir)).toMatch(/owned by uid 4242, not by this user/);
  });
});
