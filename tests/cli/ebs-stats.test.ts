/**
 * `volbench ebs-stats`: a saved page decoded field for field, bad pages refused with exit 2
 * naming the offset, and a device that cannot answer (not NVMe) given one line and exit 1. This
 * machine has no NVMe device, so the ioctl itself is driven on a loop device, which refuses the
 * command (ENOTTY): the native call runs, answers, and checks what it opened.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { reportMissingEbsStats } from '../../src/cli/ending.js';
import type { CommandIo } from '../../src/cli/io.js';
import { nativeAddon } from '../../src/engine/addon.js';
import { runJobs } from '../../src/run/run-jobs.js';
import { readNvmeLogPageOn } from '../../src/device/root-calls.js';
import { volbench } from '../helpers/cli.js';
import { encodeEbsLogPage, INSTANCE_STORE_MAGIC, SAMPLE_PAGE } from '../helpers/ebs-log-page.js';
import { requires } from '../helpers/requires.js';

const needs = requires('child', 'tmpfs', 'loop');

const { errno } = constants;
const dir = mkdtempSync(join(tmpdir(), 'volbench-ebs-stats-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function pageFile(name: string, bytes: Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

describe('volbench ebs-stats --page', () => {
  it('prints a saved page field for field, raw, under the layout\'s names', async () => {
    const out = await volbench(['ebs-stats', '--page', pageFile('sample.page', encodeEbsLogPage(SAMPLE_PAGE)), '--format', 'json']);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const { magic, ...fields } = SAMPLE_PAGE;
    expect(JSON.parse(out.stdout)).toEqual({ page: 'ebs', magic, ...fields });
  });

  it('says in words which limit demand exceeded, and for how long', async () => {
    const out = await volbench(['ebs-stats', '--page', pageFile('text.page', encodeEbsLogPage(SAMPLE_PAGE))]);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^Amazon EBS volume statistics since attach/);
    expect(out.stdout).toMatch(/volume IOPS +41\.00 s\n/);
    expect(out.stdout).toMatch(/instance EBS throughput +350\.0 ms\n/);
    expect(out.stdout).toMatch(/operations +1,234,567 +7,654,321\n/);
    expect(out.stdout).toContain('Read latency (28 of 28 bins hold I/Os):');
  });

  it('names an instance-store page as one', async () => {
    const text = await volbench(['ebs-stats', '--page', pageFile('local.page', encodeEbsLogPage({ ...SAMPLE_PAGE, magic: INSTANCE_STORE_MAGIC }))]);
    expect(text.stdout).toMatch(/^EC2 instance-store volume statistics/);
    expect(text.stdout).toContain("Time demand exceeded the instance's local storage limits:\n  IOPS                      77 µs");
  });

  it('refuses a page shorter than 3,600 bytes with exit 2, naming the offset', async () => {
    const out = await volbench(['ebs-stats', '--page', pageFile('short.page', encodeEbsLogPage(SAMPLE_PAGE, 3000)), '--format', 'json']);
    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toContain('the page is 3000 bytes: it ends at offset 3000');
    expect(out.stderr).toContain('at least 3,600 bytes');
  });

  it('refuses an unknown magic with exit 2, naming offset 0 and what it expects', async () => {
    const out = await volbench(['ebs-stats', '--page', pageFile('magic.page', encodeEbsLogPage({ ...SAMPLE_PAGE, magic: 0xdeadbeef }))]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("the page's magic at offset 0 is 0xDEADBEEF; expected 0x3C23B510 (EBS) or 0xEC2C0D7E (instance store)");
  });

  it('refuses a device and a page at once', async () => {
    const out = await volbench(['ebs-stats', '/dev/null', '--page', join(dir, 'sample.page')]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('ebs-stats takes one device or --page FILE, got both [DEVICE]');
  });
});

describe('volbench ebs-stats DEVICE on a device that does not answer', () => {
  it('/dev/null: one line, exit 1', async () => {
    const out = await volbench(['ebs-stats', '/dev/null']);
    expect(out.code).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr).toBe('volbench: /dev/null: no EBS statistics: /dev/null is not an NVMe device\n');
  });

  describe.skipIf(needs.missing('loop') !== undefined)('a loop device (losetup needs root)', () => {
    let loop = '';
    beforeAll(() => {
      const image = join(dir, 'loop.img');
      writeFileSync(image, Buffer.alloc(1 << 20));
      loop = execFileSync('losetup', ['--find', '--show', image], { encoding: 'utf8' }).trim();
    });
    afterAll(() => {
      if (loop) execFileSync('losetup', ['-d', loop]);
    });

    it('is not asked: one line, exit 1', async () => {
      const out = await volbench(['ebs-stats', loop, '--format', 'json']);
      expect(out.code).toBe(1);
      expect(out.stderr.trim().split('\n')).toHaveLength(1);
      expect(out.stderr).toMatch(/no EBS statistics: loop\d+ is not an NVMe device/);
    });

    it('asked anyway through the native call, refuses the command (ENOTTY), off the event loop', async () => {
      const rdev = statSync(loop, { bigint: true }).rdev;
      const request = { path: loop, charDevice: false, rdev, lid: 0xd0, nsid: 1, bytes: 4096, timeoutMs: 1000 };
      const r = await readNvmeLogPageOn(request, loop);
      expect(r).toMatchObject({ syscall: 'ioctl', status: 0, data: null });
      expect([errno.ENOTTY, errno.EINVAL]).toContain(r.errno);
    });

    it('sends nothing to a device that is not the one looked at', async () => {
      // The loop device's path, with another device's number: a name swapped after the look.
      const request = { path: loop, charDevice: false, rdev: statSync('/dev/null', { bigint: true }).rdev, lid: 0xd0, nsid: 1, bytes: 4096, timeoutMs: 1000 };
      const r = await readNvmeLogPageOn(request, loop);
      expect(r).toMatchObject({ errno: errno.ENODEV, syscall: 'open', why: 'it is no longer the device it was when looked at', data: null });
      expect(() => nativeAddon().readNvmeLogPage({ ...request, bytes: 4095 })).toThrow(/multiple of 4/);
    });
  });
});

describe('a run where no page can be read', () => {
  it('says why once in the result, has no ebs_stats, and keeps stderr quiet for a disk that is not Amazon\'s', async () => {
    const result = await runJobs({
      global: { directory: '/dev/shm', size: '1m', bs: '4k', ioengine: 'psync', runtime: '100ms', time_based: true },
      jobs: [{ name: `ebs-none-${process.pid}`, rw: 'randread', unlink: true }, { name: `ebs-none2-${process.pid}`, rw: 'read', stonewall: true, unlink: true }],
    });
    expect(result.volbench.ebs_stats_unavailable).toMatch(/has no block device behind it$/);
    expect(result.volbench.jobs.every((j) => j.ebs_stats === undefined)).toBe(true);
    let said = '';
    reportMissingEbsStats(result, { stderr: { write: (t: string) => (said += t) } } as unknown as CommandIo);
    expect(said).toBe('');
    const onEbs = { ...result, volbench: { ...result.volbench, targets: result.volbench.targets.map((t) => ({ ...t, model: 'Amazon Elastic Block Store' })) } };
    reportMissingEbsStats(onEbs, { stderr: { write: (t: string) => (said += t) } } as unknown as CommandIo);
    expect(said).toMatch(/^volbench: no EBS statistics \(bound_by comes from the model\): .*has no block device behind it\n$/);
  });
});
