/**
 * fio's one-line status on a terminal:
 *   Jobs: 1 (f=1): [r(1)][45.0%][r=1246MiB/s][r=319k IOPS][eta 00m:06s]
 * Rewritten in place with a carriage return; only ever written to stderr.
 */
import type { RunProgress } from '../run/progress.js';

const UNITS = ['', 'k', 'M', 'G', 'T'];

/** fio-style abbreviation: 319k, 1246, 2.5M. */
export function abbreviate(n: number): string {
  let i = 0;
  while (n >= 1000 && i < UNITS.length - 1) {
    n /= 1000;
    i++;
  }
  const text = i === 0 || n >= 100 ? Math.round(n).toString() : n.toFixed(n >= 10 ? 1 : 2).replace(/\.?0+$/, '');
  return text + UNITS[i];
}

export function formatBandwidth(bytesPerSec: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytesPerSec;
  let i = 0;
  while (v >= 10240 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${Math.round(v)}${units[i]}/s`;
}

function eta(ms: number | null): string {
  if (ms === null) return '--m:--s';
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const mm = `${String(m).padStart(2, '0')}m:${String(sec).padStart(2, '0')}s`;
  return h > 0 ? `${h}h:${mm}` : mm;
}

export function progressLine(p: RunProgress): string {
  const running = p.runningJobs;
  const dirs: Array<[string, RunProgress['read']]> = [
    ['r', p.read],
    ['w', p.write],
    ['t', p.trim],
  ];
  const active = dirs.filter(([, d]) => d.iops > 0 || d.bw_bytes > 0);
  const shown = active.length > 0 ? active : dirs.slice(0, 1);
  const phase = p.instances.some((i) => i.phase === 'layout') ? 'f' : 'r';
  const bw = shown.map(([k, d]) => `${k}=${formatBandwidth(d.bw_bytes)}`).join(',');
  const iops = shown.map(([k, d]) => `${k}=${abbreviate(d.iops)}`).join(',');
  return `Jobs: ${running} (f=${running}): [${phase}(${running})][${(p.fraction * 100).toFixed(1)}%][${bw}][${iops} IOPS][eta ${eta(p.etaMs)}]`;
}

/**
 * Writes progress lines over each other on a terminal; does nothing elsewhere. With
 * `newlineEveryMs` (fio's --eta-newline), a line is kept, and the next starts on a line of its
 * own, each time that long has passed since the last one was kept, as fio's display does.
 */
export class ProgressPrinter {
  private lastWidth = 0;
  private keptAt = 0;
  private keepNext = false;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly newlineEveryMs = 0,
    private readonly now: () => number = Date.now,
  ) {}

  get enabled(): boolean {
    return Boolean(this.stream.isTTY);
  }

  update(p: RunProgress): void {
    if (!this.enabled) return;
    const line = progressLine(p);
    const start = this.keepNext ? '\n' : '\r';
    if (this.keepNext) this.lastWidth = 0;
    this.keepNext = false;
    const pad = this.lastWidth > line.length ? ' '.repeat(this.lastWidth - line.length) : '';
    this.lastWidth = line.length;
    this.stream.write(`${start}${line}${pad}`);
    const t = this.now();
    if (this.keptAt === 0) this.keptAt = t;
    else if (this.newlineEveryMs > 0 && t - this.keptAt > this.newlineEveryMs) {
      this.keptAt = t;
      this.keepNext = true;
    }
  }

  done(): void {
    if (!this.enabled || this.lastWidth === 0) return;
    this.stream.write(`\r${' '.repeat(this.lastWidth)}\r`);
    this.lastWidth = 0;
  }
}
