/**
 * The terminal's status line, and fio's --eta-newline: the line is rewritten in place, and every
 * interval one is kept (the next starts on a new line), as fio's display does it (eta.c).
 *
 * Broke: --eta-newline was refused. Expected: a kept line each time the interval has passed
 * since the last, none without the flag, nothing at all off a terminal.
 */
import { describe, expect, it } from 'vitest';

import { ProgressPrinter } from '../../src/cli/progress-line.js';
import type { RunProgress } from '../../src/run/progress.js';
import { requires } from '../helpers/requires.js';

requires();

function progress(iops: number): RunProgress {
  const dir = { iops, bw_bytes: iops * 4096, clat_mean_ns: 0, clat_p99_ns: 0 };
  const none = { iops: 0, bw_bytes: 0, clat_mean_ns: 0, clat_p99_ns: 0 };
  return { stage: 0, stages: 1, elapsedMs: 0, fraction: 0.5, etaMs: 1000, runningJobs: 1, status: 'r(1)', layouts: [], layingOut: false, read: dir, write: none, trim: none, instances: [] };
}

function terminal(isTTY = true): { stream: NodeJS.WriteStream; written: string[] } {
  const written: string[] = [];
  return { stream: { isTTY, write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream, written };
}

describe('the status line', () => {
  it('is rewritten in place, and with --eta-newline kept every interval', () => {
    let t = 1000;
    const plain = terminal();
    const kept = terminal();
    const printers = [new ProgressPrinter(plain.stream, 0, () => t), new ProgressPrinter(kept.stream, 1500, () => t)];
    for (let i = 0; i < 6; i++, t += 1000) printers.forEach((p) => p.update(progress(1000 + i)));
    expect(plain.written.every((s) => s.startsWith('\r'))).toBe(true);
    // Kept after 2 s and 4 s: the lines after them start anew.
    expect(kept.written.map((s) => s[0])).toEqual(['\r', '\r', '\r', '\n', '\r', '\n']);
    expect(kept.written[3]).toMatch(/^\nJobs: 1 \(f=1\): \[r\(1\)\]\[50\.0%\]\[r=\d+KiB\/s\]\[r=1k IOPS\]/);
  });

  it('is not written off a terminal', () => {
    const pipe = terminal(false);
    new ProgressPrinter(pipe.stream, 1).update(progress(1));
    expect(pipe.written).toEqual([]);
  });
});
