/**
 * Where each I/O went, read back from a per-I/O log written with log_offset=1 (fio's lines
 * `msec, value, ddir, bs, offset, prio`), and the figures the offset tests compare between fio
 * and volbench: how many blocks were touched, how often, and how much the hottest ones took.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LoggedIo {
  ddir: number;
  bs: number;
  offset: number;
}

const LINE = /^(\d+), (\d+), (\d+), (\d+), (\d+), (\d+)$/;

/** The I/Os of `<dir>/<file>`; a line of another shape throws (the format is part of the test). */
export function loggedIos(dir: string, file: string): LoggedIo[] {
  const lines = readFileSync(join(dir, file), 'utf8').split('\n').filter((l) => l !== '');
  return lines.map((line) => {
    const m = LINE.exec(line);
    if (!m) throw new Error(`${file}: "${line}" is not "msec, value, ddir, bs, offset, prio"`);
    return { ddir: Number(m[3]), bs: Number(m[4]), offset: Number(m[5]) };
  });
}

/** How often each `unit`-sized block of the region was read or written, by block index. */
export function blockCounts(ios: readonly LoggedIo[], unit: number): Map<number, number> {
  const counts = new Map<number, number>();
  for (const io of ios) {
    const first = Math.floor(io.offset / unit);
    const last = Math.floor((io.offset + io.bs - 1) / unit);
    for (let b = first; b <= last; b++) counts.set(b, (counts.get(b) ?? 0) + 1);
  }
  return counts;
}

export interface Coverage {
  ios: number;
  /** Blocks touched at least once. */
  touched: number;
  /** Blocks touched more than once. */
  repeated: number;
  /** Share (0..1) of all block touches that fell on the hottest tenth of the region's blocks. */
  hottestTenthShare: number;
}

export function coverage(ios: readonly LoggedIo[], unit: number, regionBytes: number): Coverage {
  const counts = [...blockCounts(ios, unit).values()].sort((a, b) => b - a);
  const total = counts.reduce((s, c) => s + c, 0);
  const tenth = Math.round(regionBytes / unit / 10);
  const hot = counts.slice(0, tenth).reduce((s, c) => s + c, 0);
  return {
    ios: ios.length,
    touched: counts.length,
    repeated: counts.filter((c) => c > 1).length,
    hottestTenthShare: total ? hot / total : 0,
  };
}
