/**
 * A fleet's members as they run (`fleet compare`, `fleet attach`, `fleet run`). On a terminal:
 * the live table `volbench suite` draws (live-table.ts), a row per member (step i/N, loop, IOPS,
 * p99, % done, ETA) under a line for the whole fleet, redrawn in place as the members' progress
 * comes, ETAs counting down between looks; then first done against last done. Off a terminal:
 * a line per event (print.ts), and the same summary. Events the table does not show (the fleet
 * made, a member's failure, a log line) are written above it.
 */
import type { FleetEvent, FleetState, OnFleetEvent } from '../../fleet/index.js';
import type { MemberProgress } from '../../api/study-objects.js';
import type { CommandIo } from '../io.js';
import { LiveTable, type LiveRow } from '../live-table.js';
import { etaText } from '../progress-line.js';
import { renderMarkdown } from '../../publish/index.js';
import { eventText, jsonLine } from './print.js';

export interface FleetPrinterOptions {
  /** `--format json`: every event also a JSON line on stdout. */
  json: boolean;
  /** A study's members, which run on their own (no endpoint to show). */
  autonomous?: boolean;
  /** A fleet that is up (`fleet run`): its members, in the plan's order. */
  fleet?: Pick<FleetState, 'fleetId' | 'members'>;
  /**
   * A study taken on (`fleet attach`): the table starts where its state is (each member as it
   * was last seen, end times counted from the study's making); past `running`, nothing is drawn.
   */
  study?: FleetState;
  now?: () => number;
}

export interface FleetPrinter {
  onEvent: OnFleetEvent;
  /** A line of the command's own (a signal's), above the table while it is drawn. */
  say(line: string): void;
  /** The table's last drawing and its summary, once (then every event is a line). */
  finish(): void;
}

const AFTER_RUNNING = new Set(['collecting', 'reporting', 'tearing-down', 'done', 'failed']);

/** A row's figures from a member's progress object (its ETA as of when the member wrote it). */
function progressRow(p: MemberProgress): Partial<LiveRow> {
  return {
    state: 'running',
    step: p.test_index && p.tests_total ? `${p.test_index}/${p.tests_total}` : undefined,
    loop: p.loop && p.loops && p.loops > 1 ? `${p.loop}/${p.loops}` : undefined,
    iops: p.iops ?? null,
    p99Ns: p.clat_p99_us === undefined ? null : p.clat_p99_us * 1000,
    fraction: p.percent === undefined ? null : p.percent / 100,
    doing: p.step === 'running' ? undefined : p.step,
  };
}

class FleetTable {
  private readonly table: LiveTable;
  /** Each member's ETA as its member said it, and when (ms since the epoch, the member's clock). */
  private readonly etas = new Map<string, { ms: number; at: number }>();
  private fleetId: string;
  private step = '';
  private open: boolean;
  /** An event came while open: there is a table to end (a refusal before any, such as a lease held elsewhere, draws none). */
  private began = false;
  private timer?: NodeJS.Timeout;

  constructor(private readonly io: CommandIo, private readonly o: FleetPrinterOptions, private readonly now: () => number) {
    // JSON lines on a terminal's stdout would break a drawing on the same terminal's stderr.
    const live = Boolean(io.stderr.isTTY) && !(o.json && io.stdout.isTTY);
    const study = o.study;
    this.table = new LiveTable(io.stderr, 'member', now, { live, ...(study ? { startedAt: Date.parse(study.createdAt) } : {}) });
    const fleet = study ?? o.fleet;
    this.fleetId = fleet?.fleetId ?? '';
    this.step = study?.study?.step ?? (o.fleet ? 'running' : '');
    this.open = !AFTER_RUNNING.has(this.step);
    for (const m of fleet?.members ?? []) this.table.set(m.label, {});
    if (study) this.resume(study);
  }

  /** Each member as the study's state last saw it (its events are not said again); when one failed is not known. */
  private resume(s: FleetState): void {
    const fleetId = s.fleetId;
    for (const m of s.members) {
      if (m.status === 'failed' || m.error) this.table.set(m.label, { state: 'failed', endedAtMs: null });
      else if (m.done) this.take({ event: 'member-done', fleetId, label: m.label, status: m.done.status, finishedAt: m.done.finished_at });
      else if (m.progress) this.take({ event: 'progress', fleetId, label: m.label, line: '', progress: m.progress });
      else if (m.instanceId) this.take({ event: 'member-up', fleetId, label: m.label, instanceId: m.instanceId });
    }
  }

  onEvent(e: FleetEvent): void {
    const text = eventText(e, this.o.autonomous);
    if (this.open) this.onTable(e, text);
    else if (text !== undefined) this.io.stderr.write(`${text}\n`);
    this.out(e);
  }

  private onTable(e: FleetEvent, text: string | undefined): void {
    this.began = true;
    const shown = this.take(e);
    if (this.beyond(e)) {
      // Past the members' runs (collecting, the report, the teardown): the table ends, the event is a line under it.
      this.finish();
      if (text !== undefined) this.io.stderr.write(`${text}\n`);
      return;
    }
    this.update();
    // On a terminal the table says what it shows; anything else goes above it. Elsewhere, a line each.
    if (text !== undefined && !(shown && this.table.onTerminal)) this.table.message(text);
    else this.table.draw();
    if (this.allEnded()) this.finish();
  }

  /** stdout: each event as a JSON line (--format json), else the report as Markdown. */
  private out(e: FleetEvent): void {
    if (this.o.json) this.io.stdout.write(jsonLine(e));
    else if (e.event === 'report') this.io.stdout.write(renderMarkdown(e.report));
  }

  /** Takes the event into the table; true when the table says all of it (no line needed on a terminal). */
  private take(e: FleetEvent): boolean {
    const t = this.table;
    switch (e.event) {
      case 'created':
        this.fleetId = e.fleetId;
        for (const label of e.members) t.set(label, {});
        return false;
      case 'step':
        this.step = e.step;
        return !e.reason;
      case 'member-up':
        t.set(e.label, { state: 'running', doing: 'up' });
        return false;
      case 'progress':
        if (!e.progress) {
          t.set(e.label, { state: 'running', note: e.line, doing: undefined });
          return true;
        }
        t.set(e.label, progressRow(e.progress));
        if (e.progress.eta_s === undefined) this.etas.delete(e.label);
        else this.etas.set(e.label, { ms: e.progress.eta_s * 1000, at: Date.parse(e.progress.at) });
        return true;
      case 'member-done': {
        const finished = Date.parse(e.finishedAt);
        const endedAtMs = Number.isFinite(finished) ? Math.max(0, finished - t.startedAt) : undefined;
        t.set(e.label, { state: e.status === 'ok' ? 'done' : 'failed', endedAtMs, ...(e.status === 'ok' ? { fraction: 1, doing: undefined } : {}) });
        return e.status === 'ok';
      }
      case 'member-failed':
        t.set(e.label, { state: 'failed' });
        return false;
      case 'result':
        // A member driven from here (--interactive, fleet run) ends with its result.
        t.set(e.label, e.status === 'finished' ? { state: 'done', fraction: 1, doing: undefined } : { state: 'failed' });
        return e.status === 'finished';
      default:
        return false;
    }
  }

  private beyond(e: FleetEvent): boolean {
    return e.event === 'step' ? AFTER_RUNNING.has(e.step) : ['report', 'tearing-down', 'torn-down', 'kept'].includes(e.event);
  }

  private allEnded(): boolean {
    const rows = this.table.all;
    return rows.length > 0 && rows.every((r) => r.state === 'done' || r.state === 'failed');
  }

  say(line: string): void {
    if (this.open) this.table.message(line);
    else this.io.stderr.write(`${line}\n`);
  }

  /** The rows' ETAs counted down from when each member said them (never above what it said), and the fleet's line. */
  private update(): void {
    if (!this.open) {
      // Its last drawing: what ended, no step or ETA (the lines under it say what comes next).
      const rows = this.table.all;
      this.table.setStatus(`fleet ${this.fleetId}: ${rows.filter((r) => r.state === 'done' || r.state === 'failed').length}/${rows.length} members done`);
      return;
    }
    const now = this.now();
    const left: Array<number | null> = [];
    for (const row of this.table.all.filter((r) => r.state === 'running')) {
      const eta = this.etas.get(row.name);
      const ms = eta === undefined ? null : Math.max(0, eta.ms - (Number.isFinite(eta.at) ? Math.max(0, now - eta.at) : 0));
      this.table.set(row.name, { etaMs: ms });
      left.push(ms);
    }
    const rows = this.table.all;
    const ended = rows.filter((r) => r.state === 'done' || r.state === 'failed').length;
    // The fleet's ETA is its slowest member's, unknown while any member's is.
    const slowest = left.length === 0 || left.length + ended < rows.length || left.includes(null) ? null : Math.max(...(left as number[]));
    this.table.setStatus(`fleet ${this.fleetId}: ${this.step ? `${this.step}, ` : ''}${ended}/${rows.length} members done, eta ${etaText(slowest)}`);
    if (this.table.onTerminal && !this.timer) {
      this.timer = setInterval(() => {
        this.update();
        this.table.draw();
      }, 1000).unref();
    }
  }

  finish(): void {
    if (!this.open) return;
    this.open = false;
    clearInterval(this.timer);
    if (!this.began) return;
    this.update();
    this.table.finish();
  }
}

/** The fleet's events drawn as a live table on a terminal, or written a line each. */
export function fleetPrinter(io: CommandIo, options: FleetPrinterOptions): FleetPrinter {
  const table = new FleetTable(io, options, options.now ?? Date.now);
  return { onEvent: (e) => table.onEvent(e), say: (line) => table.say(line), finish: () => table.finish() };
}
