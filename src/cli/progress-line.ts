/**
 * fio's one-line status on a terminal:
 *   Jobs: 1 (f=1): [r(1)][45.0%][r=1246MiB/s][r=319k IOPS][eta 00m:06s]
 * and, while a stage lays out its files, a line saying so:
 *   Laying out vb.bin: [37.5%][1536MiB of 4096MiB][812MiB/s][eta 00m:13s]
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

/** fio's eta: 00m:06s, 1h:02m:03s; --m:--s while unknown. */
export function etaText(ms: number | null): string {
  if (ms === null) return '--m:--s';
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const mm = `${String(m).padStart(2, '0')}m:${String(sec).padStart(2, '0')}s`;
  return h > 0 ? `${h}h:${mm}` : mm;
}

/** Bytes as fio sizes them: 512MiB, 4096MiB below 10 GiB, then GiB. */
export function formatBytes(bytes: number): string {
  return formatBandwidth(bytes).replace('/s', '');
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/**
 * While the stage lays out its files, a line of its own (fio prints "Laying out IO file"): the
 * file, how much of it is written, at what rate, and the stage's ETA (the layout, then the run).
 */
export function layoutLine(p: RunProgress): string {
  const at = p.layouts.findIndex((l) => !l.ended);
  const l = p.layouts[at >= 0 ? at : p.layouts.length - 1];
  if (!l) return `Laying out: [eta ${etaText(p.etaMs)}]`;
  const files = p.layouts.length > 1 ? ` (file ${(at >= 0 ? at : p.layouts.length - 1) + 1})` : '';
  const share = l.totalBytes > 0 ? ((100 * l.doneBytes) / l.totalBytes).toFixed(1) : '100.0';
  const rate = l.elapsedMs > 0 ? formatBandwidth((l.doneBytes * 1000) / l.elapsedMs) : '--';
  return `Laying out ${baseName(l.path)}${files}: [${share}%][${formatBytes(l.doneBytes)} of ${formatBytes(l.totalBytes)}][${rate}][eta ${etaText(p.etaMs)}]`;
}

/** fio's status line: the jobs' characters (w, R, m, /, _ ...), % done, rates, ETA. */
export function progressLine(p: RunProgress): string {
  if (p.layingOut) return layoutLine(p);
  const running = p.runningJobs;
  const dirs: Array<[string, RunProgress['read']]> = [
    ['r', p.read],
    ['w', p.write],
    ['t', p.trim],
  ];
  const active = dirs.filter(([, d]) => d.iops > 0 || d.bw_bytes > 0);
  const shown = active.length > 0 ? active : dirs.slice(0, 1);
  const bw = shown.map(([k, d]) => `${k}=${formatBandwidth(d.bw_bytes)}`).join(',');
  const iops = shown.map(([k, d]) => `${k}=${abbreviate(d.iops)}`).join(',');
  return `Jobs: ${running} (f=${running}): [${p.status}][${(p.fraction * 100).toFixed(1)}%][${bw}][${iops} IOPS][eta ${etaText(p.etaMs)}]`;
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
