/**
 * A table of things running side by side or one after another (a suite's tests, a fleet's
 * members), one row each: step i/N, loop, IOPS, p99, % done and ETA. On a terminal it is drawn
 * in place, redrawn as rows change, under a status line; elsewhere (a pipe, a CI log) it draws
 * nothing and the caller's event lines are written instead, one per event. When it ends, the
 * first row done against the last (elbencho's first-done/last-done) says how far apart they
 * finished. Only ever written to stderr.
 */
import { abbreviate, etaText } from './progress-line.js';
import { formatTimeNs } from '../gates/values.js';

export type RowState = 'waiting' | 'running' | 'done' | 'failed';

export interface LiveRow {
  name: string;
  state: RowState;
  /** `3/8`: which of the steps this row is. */
  step?: string;
  /** `2/5`, while it loops. */
  loop?: string;
  iops?: number | null;
  p99Ns?: number | null;
  /** Share of the row done, 0..1. */
  fraction?: number | null;
  etaMs?: number | null;
  /** Shown in place of % done (e.g. `layout 45%`). */
  doing?: string;
  /** Ms since the table began, once done or failed; null where when is not known. */
  endedAtMs?: number | null;
  /** Free text after the figures (a fleet member's last line where it sends no figures). */
  note?: string;
}

const HEADER = ['', 'step', 'loop', 'IOPS', 'p99', 'done', 'ETA'];

/** A time since the start: `12.3 s` while short, fio's `40m:12s` once long enough to read so. */
export function sinceText(ms: number): string {
  return ms < 100_000 ? `${(ms / 1000).toFixed(1)} s` : etaText(ms);
}

function cells(row: LiveRow): string[] {
  const done = row.doing ?? (row.fraction === undefined || row.fraction === null ? '' : `${Math.floor(row.fraction * 100)}%`);
  const eta = row.state === 'running' ? etaText(row.etaMs ?? null)
    : row.state === 'waiting' ? 'waiting'
      : `${row.state}${typeof row.endedAtMs === 'number' ? ` ${sinceText(row.endedAtMs)}` : ''}`;
  const iops = row.iops === undefined || row.iops === null ? '' : abbreviate(row.iops);
  const p99 = row.p99Ns === undefined || row.p99Ns === null ? '' : formatTimeNs(row.p99Ns);
  return [row.name, row.step ?? '', row.loop ?? '', iops, p99, row.state === 'waiting' ? '' : done, eta, row.note ?? ''];
}

/** The table's lines: a header, then a row each, columns padded (names left, figures right); notes last, where a row has one. */
export function tableLines(rows: readonly LiveRow[], nameHeader: string): string[] {
  const all = [[nameHeader, ...HEADER.slice(1), ''], ...rows.map(cells)];
  const widths = all[0].map((_, c) => Math.max(...all.map((r) => r[c].length)));
  const left = (i: number): boolean => i === 0 || i >= HEADER.length - 1;
  return all.map((r) => r.map((c, i) => (left(i) ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd());
}

/** First done against last done, among rows that ended when known; null before two have. */
export function doneSummary(rows: readonly LiveRow[]): string | null {
  const ended = rows.filter((r) => typeof r.endedAtMs === 'number').sort((a, b) => a.endedAtMs! - b.endedAtMs!);
  if (ended.length < 2) return null;
  const [first, last] = [ended[0], ended[ended.length - 1]];
  const s = sinceText;
  return `first done: ${first.name} at ${s(first.endedAtMs!)}; last done: ${last.name} at ${s(last.endedAtMs!)} (${s(last.endedAtMs! - first.endedAtMs!)} apart)`;
}

export interface LiveTableOptions {
  /** Draw in place or not, where the stream's being a terminal is not the whole answer (another stream writes to the same terminal). */
  live?: boolean;
  /** What the rows' end times count from (ms since the epoch), when not the table's making. */
  startedAt?: number;
}

export class LiveTable {
  private readonly rows = new Map<string, LiveRow>();
  private status = '';
  private drawn = 0;
  readonly startedAt: number;
  private readonly live: boolean;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly nameHeader: string,
    private readonly now: () => number = Date.now,
    options: LiveTableOptions = {},
  ) {
    this.startedAt = options.startedAt ?? now();
    this.live = options.live ?? Boolean(stream.isTTY);
  }

  /** Drawn in place only on a terminal; elsewhere the caller's event lines stand for it. */
  get onTerminal(): boolean {
    return this.live;
  }

  /** The rows, in the order they were added. */
  get all(): readonly LiveRow[] {
    return [...this.rows.values()];
  }

  /** Adds a row or changes one; a row that turns done or failed notes when. */
  set(key: string, change: Partial<LiveRow> & { name?: string }): void {
    const row: LiveRow = { name: key, state: 'waiting', ...this.rows.get(key), ...change };
    const ended = row.state === 'done' || row.state === 'failed';
    if (ended && row.endedAtMs === undefined) row.endedAtMs = this.now() - this.startedAt;
    this.rows.set(key, row);
  }

  /** The line above the table (where the whole is: `3/8 tests, 41% done, eta 01m:12s`). */
  setStatus(text: string): void {
    this.status = text;
  }

  /** One line for an event: written off a terminal, where the table is not drawn. */
  event(line: string): void {
    if (!this.onTerminal) this.stream.write(`${line}\n`);
  }

  /** A line for everyone (a warning): above the table on a terminal. */
  message(line: string): void {
    if (!this.onTerminal) {
      this.stream.write(`${line}\n`);
      return;
    }
    this.erase();
    this.stream.write(`${line}\n`);
    this.draw();
  }

  lines(): string[] {
    return [...(this.status ? [this.status] : []), ...tableLines([...this.rows.values()], this.nameHeader)];
  }

  /** Redraws the table in place (a terminal only). */
  draw(): void {
    if (!this.onTerminal) return;
    const width = Math.max(20, (this.stream.columns || 120) - 1);
    // A line wider than the terminal would wrap and throw the count of lines to go back over.
    const lines = this.lines().map((l) => (l.length > width ? `${l.slice(0, width - 1)}…` : l));
    const up = this.drawn > 0 ? `\x1b[${this.drawn}F` : '';
    this.stream.write(`${up}${lines.map((l) => `\x1b[2K${l}\n`).join('')}\x1b[J`);
    this.drawn = lines.length;
  }

  private erase(): void {
    if (this.drawn > 0) this.stream.write(`\x1b[${this.drawn}F\x1b[J`);
    this.drawn = 0;
  }

  /** The last drawing stays on a terminal; then first done against last done, everywhere. */
  finish(): void {
    this.draw();
    this.drawn = 0;
    const summary = doneSummary([...this.rows.values()]);
    if (summary) this.stream.write(`${summary}\n`);
  }
}
