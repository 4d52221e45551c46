/**
 * The emulated EBS page's queue: what arrived at the throttle less what the device completed.
 * The two drift apart (a flush is a bio to the throttle and no I/O to the device; I/O that did
 * not pass the group's throttle is counted by the device alone), and an idle device sets them
 * back in step.
 *
 * Regression: only a surplus was set back. A deficit (the device counted more) stayed and hid
 * the next queue as deep as it: 8 I/Os held read as none, and a job at its limit as under it.
 * Expected: after the device is idle, 8 I/Os arriving read as 8 queued.
 *
 * The arrivals here are the test's own counter (what a BlkioGroup would count), the completions
 * a loop device's, read by the page from sysfs.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { EmulatedEbsStats, type ArrivalCounters } from '../harness/emulated-ebs-stats.js';
import { createLoopVolume, rehearsalDir, type LoopVolume } from '../harness/loop-volume.js';
import { requires } from '../helpers/requires.js';

const MiB = 1024 * 1024;

const needs = requires('root', 'loop');
const skip = needs.missing('root', 'loop');

/** Arrivals as the test says them: reads only. */
class Arrivals implements ArrivalCounters {
  reads = 0;
  /** Counted from the start: the test says every arrival itself. */
  count(): void {}
  counters(): { read: { bios: number; bytes: number }; write: { bios: number; bytes: number } } {
    return { read: { bios: this.reads, bytes: this.reads * 4096 }, write: { bios: 0, bytes: 0 } };
  }
}

describe.skipIf(skip)(`the emulated page's queue${skip ? ` [skipped: ${skip}]` : ''}`, () => {
  let dir: string;
  let volume: LoopVolume;

  beforeAll(() => {
    dir = rehearsalDir();
    volume = createLoopVolume({ dir, sizeBytes: 64 * MiB, tmpfsBytes: 64 * MiB });
  });
  afterAll(() => {
    volume?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a deficit of arrivals is set back once the device is idle, so the next queue shows whole', () => {
    const pages = join(dir, 'pages');
    mkdirSync(pages, { mode: 0o700 });
    const arrivals = new Arrivals();
    // Ticks by hand: the timer's first tick is an hour away.
    const page = new EmulatedEbsStats({ majMin: volume.majMin, limits: { volume: { iops: 100 } }, dir: pages, group: arrivals, tickMs: 3_600_000 }).start();
    try {
      // 32 reads the arrivals never saw: the device is 32 ahead.
      const dd = spawnSync('dd', [`if=${volume.device}`, 'of=/dev/null', 'bs=4k', 'count=32', 'iflag=direct', 'status=none']);
      expect(dd.status).toBe(0);
      page.tick();
      expect(page.page().volume_queue_length).toBe(0);
      // Idle for longer than IDLE_TICKS: nothing can be held, whatever the counts say.
      for (let i = 0; i < 6; i++) page.tick();
      // 8 arrive and none completes: 8 are held before the device.
      arrivals.reads += 8;
      page.tick();
      expect(page.page().volume_queue_length).toBe(8);
    } finally {
      page.stop();
    }
  });
});
