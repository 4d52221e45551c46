/**
 * What the store could not take yet, kept in memory until it can: runs' events and the ends of
 * runs (the row as it ended and fio's JSON). While a run's end is held here it is the truth
 * about that run, and the store's answers (get, result, events, lists, counts) are read through
 * it, so a full disk loses nothing and shows no run in a state it has left.
 */
import type { Gate } from '../../api/assertion.js';
import type { RunStatus } from '../../api/run.js';
import type { StoredEvent } from './events.js';

/** What a held run's row needs for lists and counts (the store's RunRow has it). */
export interface HeldRow {
  id: string;
  seq: number;
  status: RunStatus;
  gate: Gate | null;
  roots: string[];
}

/** A page of runs as the store lists them (the store's ListQuery). */
export interface HeldQuery {
  status?: RunStatus;
  gate?: Gate;
  root?: string;
  beforeSeq?: number;
  limit: number;
}

export interface HeldEnd<Row extends HeldRow = HeldRow> {
  row: Row;
  /** fio's JSON document as text, or null. */
  result: string | null;
  /** The status the database still has for the run. */
  recorded: RunStatus;
}

export interface HeldRun<Row extends HeldRow = HeldRow> {
  runSeq: number;
  events: StoredEvent[];
  end: HeldEnd<Row> | null;
}

function matches(run: HeldRow, query: HeldQuery): boolean {
  return (query.status === undefined || run.status === query.status) &&
    (query.gate === undefined || run.gate === query.gate) &&
    (query.root === undefined || run.roots.includes(query.root)) &&
    (query.beforeSeq === undefined || run.seq < query.beforeSeq);
}

export class HeldWrites<Row extends HeldRow> {
  private readonly runs = new Map<string, HeldRun<Row>>();

  get isEmpty(): boolean {
    return this.runs.size === 0;
  }

  entries(): IterableIterator<HeldRun<Row>> {
    return this.runs.values();
  }

  clear(): void {
    this.runs.clear();
  }

  event(run: { id: string; seq: number }, event: StoredEvent): void {
    this.entry(run.id, run.seq).events.push(event);
  }

  end(row: Row, result: string | null, recorded: RunStatus): void {
    const held = this.entry(row.id, row.seq);
    // Ended once only; should it come twice, the database still has what it had the first time.
    held.end = { row, result, recorded: held.end?.recorded ?? recorded };
  }

  /** The run as it ended, when its end is held. */
  row(id: string): Row | undefined {
    return this.runs.get(id)?.end?.row;
  }

  /** fio's JSON of a run whose end is held (null: it has none), undefined when its end is not held. */
  result(id: string): string | null | undefined {
    return this.runs.get(id)?.end?.result;
  }

  eventsAfter(id: string, afterSeq: number): StoredEvent[] {
    return (this.runs.get(id)?.events ?? []).filter((e) => e.seq > afterSeq);
  }

  /** Ids of runs whose end is held. */
  endedIds(): string[] {
    return [...this.runs.entries()].filter(([, h]) => h.end !== null).map(([id]) => id);
  }

  /** How many held ends a page may replace: the database is asked for that many more rows. */
  get endedCount(): number {
    return this.endedIds().length;
  }

  /**
   * A page of the database's runs as they are now: held ends replace the rows the database has
   * for them, and are filtered and ordered with them (newest first), `limit` at most.
   */
  overList(stored: Row[], query: HeldQuery): Row[] {
    const ended = [...this.runs.values()].flatMap((h) => (h.end === null ? [] : [h.end.row]));
    if (ended.length === 0) return stored;
    const byId = new Map(ended.map((r) => [r.id, r]));
    const merged = stored.map((r) => byId.get(r.id) ?? r);
    const listed = new Set(merged.map((r) => r.id));
    merged.push(...ended.filter((r) => !listed.has(r.id)));
    return merged.filter((r) => matches(r, query)).sort((a, b) => b.seq - a.seq).slice(0, query.limit);
  }

  /** The database's counts by status with each held end moved from the status recorded to its own. */
  overCounts(stored: Map<RunStatus, number>): Map<RunStatus, number> {
    const counts = new Map(stored);
    for (const { end } of this.runs.values()) {
      if (end === null) continue;
      counts.set(end.recorded, (counts.get(end.recorded) ?? 1) - 1);
      counts.set(end.row.status, (counts.get(end.row.status) ?? 0) + 1);
    }
    return counts;
  }

  private entry(id: string, runSeq: number): HeldRun<Row> {
    let held = this.runs.get(id);
    if (held === undefined) {
      held = { runSeq, events: [], end: null };
      this.runs.set(id, held);
    }
    return held;
  }
}
