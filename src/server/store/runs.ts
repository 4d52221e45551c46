/**
 * Runs in the database: one row per run, from queued to its final status, with the spec (or
 * suite) and assertions it was submitted with, the files it created, its last progress,
 * fio's JSON and the outcome of its assertions, and each change of status with its event.
 */
import type { RunVolume } from '../../api/run-request.js';
import type { JobSpec } from '../../jobspec/types.js';
import type { Problem } from '../problems/http-problem.js';
import type { AssertionOutcomeBody, Gate } from '../../api/assertion.js';
import type { RunProgressBody, RunStatus, RunSuiteBody } from '../../api/run.js';
import type { RunAnalysisBody } from '../../api/analysis-request.js';
import type { FileIdentity } from '../../device/anchor.js';
import type { Db } from './database.js';
import { EventStore, type StoredEvent } from './events.js';
import { HeldWrites } from './held-writes.js';
import { isStoreCondition, storeProblemOf } from './store-errors.js';

export interface RunRow {
  seq: number;
  id: string;
  status: RunStatus;
  /** As submitted; for a suite run, the suite's job file with its overrides applied. */
  spec: JobSpec;
  /** The fio job file as posted (text/plain), when the run came as one. */
  jobFile: string | null;
  /** The suite and its overrides, when the run came as one. */
  suite: RunSuiteBody | null;
  /** The analysis and its settings, when the run came as one. */
  analysis: RunAnalysisBody | null;
  /** Assertion texts as submitted. */
  asserts: string[];
  /** The volume the run measures, as submitted. */
  volume: RunVolume | null;
  /** Root named by ?target= for jobs without a path. */
  defaultRoot: string | null;
  roots: string[];
  queueKeys: string[];
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  error: Problem | null;
  progress: RunProgressBody | null;
  /** Outcomes of the assertions, once judged on a result. */
  assertions: AssertionOutcomeBody[];
  gate: Gate | null;
}

/** A file a run created, as stored: without an identity when recorded before identities were. */
export interface StoredFile {
  path: string;
  dev: bigint | null;
  ino: bigint | null;
  /** FileIdentity.stamp; null when recorded before stamps were. */
  stamp: string | null;
}

export type NewRun = Pick<RunRow, 'id' | 'spec' | 'jobFile' | 'suite' | 'analysis' | 'asserts' | 'volume' | 'defaultRoot' | 'roots' | 'queueKeys' | 'createdAt'>;

export interface RunFinish {
  status: RunStatus;
  finishedAt: number;
  error: Problem | null;
  /** fio's JSON document as text, or null when the run produced none. */
  result: string | null;
  assertions: AssertionOutcomeBody[];
  gate: Gate | null;
}

export interface ListQuery {
  status?: RunStatus;
  gate?: Gate;
  root?: string;
  /** Only runs older than this seq (the cursor). */
  beforeSeq?: number;
  limit: number;
}

interface Row {
  seq: number;
  id: string;
  status: RunStatus;
  spec: string;
  job_file: string | null;
  default_root: string | null;
  roots: string;
  queue_keys: string;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  error: string | null;
  progress: string | null;
  suite: string | null;
  analysis: string | null;
  asserts: string;
  volume: string | null;
  assertions: string;
  gate: Gate | null;
}

const COLUMNS = 'seq, id, status, spec, job_file, default_root, roots, queue_keys, created_at, started_at, finished_at, error, ' +
  'progress, suite, analysis, asserts, volume, assertions, gate';

function fromRow(r: Row): RunRow {
  return {
    seq: r.seq,
    id: r.id,
    status: r.status,
    spec: JSON.parse(r.spec) as JobSpec,
    jobFile: r.job_file,
    suite: r.suite === null ? null : (JSON.parse(r.suite) as RunSuiteBody),
    analysis: r.analysis === null ? null : (JSON.parse(r.analysis) as RunAnalysisBody),
    asserts: JSON.parse(r.asserts) as string[],
    volume: r.volume === null ? null : (JSON.parse(r.volume) as RunVolume),
    defaultRoot: r.default_root,
    roots: JSON.parse(r.roots) as string[],
    queueKeys: JSON.parse(r.queue_keys) as string[],
    createdAt: r.created_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    error: r.error === null ? null : (JSON.parse(r.error) as Problem),
    progress: r.progress === null ? null : (JSON.parse(r.progress) as RunProgressBody),
    assertions: JSON.parse(r.assertions) as AssertionOutcomeBody[],
    gate: r.gate,
  };
}

export interface RunStoreOptions {
  /** Ended runs kept: each run that ends prunes the oldest ended ones. */
  keepRuns: number;
  /** Named by the problem a store that cannot write answers with. */
  dataDir: string;
  logError: (err: unknown, context: string) => void;
}

/** A run as events know it. */
export interface RunKey {
  id: string;
  seq: number;
}

/** How often what the store could not take is offered to it again (every write offers it too). */
export const HELD_RETRY_MS = 2000;

/**
 * Runs that have not ended are also kept in memory, row objects replaced on every change: GETs
 * of a running run (what pollers hammer) need no database read, and a row object can key a
 * cache of its serialized form.
 *
 * A run is stored (with its queued event) and marked running (with its started event) only
 * when the database takes it: a store that cannot write throws the problem to answer with, and
 * nothing changes. Everything after that must not be lost and must not stop a run: events and
 * a run's end go through memory (HeldWrites) and are written at once when the store can,
 * else on a later write or a timer, while reads see them in memory.
 *
 * Writes run as .run() or transactions, never as RETURNING read with .get(): a row read
 * before the commit says nothing of the commit, which may still fail (SQLITE_FULL at commit
 * handed back a row that was never stored).
 */
export class RunStore {
  private readonly live = new Map<string, RunRow>();
  private readonly held = new HeldWrites<RunRow>();
  /** The last event number of each run that has not ended. */
  private readonly lastEventSeq = new Map<string, number>();
  private readonly events: EventStore;
  private retry: NodeJS.Timeout | null = null;
  private readonly insertStmt;
  private readonly getStmt;
  private readonly resultStmt;
  private readonly resultBytesStmt;
  private readonly startStmt;
  private readonly fileStmt;
  private readonly filesStmt;
  /** Created files the store could not take: kept here, so that this process still removes them. */
  private readonly unstoredFiles = new Map<string, StoredFile[]>();
  private readonly progressStmt;
  private readonly finishStmt;
  private readonly byStatusStmt;
  private readonly countStmt;
  private readonly pruneStmt;

  constructor(private readonly db: Db, private readonly options: RunStoreOptions) {
    this.events = new EventStore(db);
    this.insertStmt = db.prepare(
      `INSERT INTO runs (id, status, spec, job_file, suite, analysis, asserts, volume, default_root, roots, queue_keys, created_at)
       VALUES (@id, 'queued', @spec, @jobFile, @suite, @analysis, @asserts, @volume, @defaultRoot, @roots, @queueKeys, @createdAt)`,
    );
    this.getStmt = db.prepare(`SELECT ${COLUMNS} FROM runs WHERE id = ?`);
    this.resultStmt = db.prepare('SELECT result FROM runs WHERE id = ?').pluck();
    this.resultBytesStmt = db.prepare('SELECT octet_length(result) FROM runs WHERE id = ?').pluck();
    this.startStmt = db.prepare("UPDATE runs SET status = 'running', started_at = ? WHERE id = ? AND status = 'queued'");
    this.fileStmt = db.prepare('INSERT INTO run_files (run_seq, path, dev, ino, stamp) VALUES (?, ?, ?, ?, ?)');
    this.filesStmt = db.prepare('SELECT path, dev, ino, stamp FROM run_files WHERE run_seq = (SELECT seq FROM runs WHERE id = ?)');
    this.progressStmt = db.prepare('UPDATE runs SET progress = ? WHERE id = ?');
    this.finishStmt = db.prepare(
      `UPDATE runs SET status = @status, finished_at = @finishedAt, error = @error, progress = @progress, result = @result,
         assertions = @assertions, gate = @gate WHERE id = @id`,
    );
    this.byStatusStmt = db.prepare(`SELECT ${COLUMNS} FROM runs WHERE status = ? ORDER BY seq`);
    this.countStmt = db.prepare('SELECT status, COUNT(*) AS n FROM runs GROUP BY status');
    // Keeps the newest `keep` runs that have ended; queued and running runs are never pruned.
    this.pruneStmt = db.prepare(
      `DELETE FROM runs WHERE status NOT IN ('queued', 'running') AND seq NOT IN (
         SELECT seq FROM runs WHERE status NOT IN ('queued', 'running') ORDER BY seq DESC LIMIT ?)`,
    );
  }

  /** Stores a new run with its queued event; throws the store's problem when it cannot. */
  insert(run: NewRun, queued: object): { run: RunRow; event: StoredEvent } {
    this.flush();
    const event: StoredEvent = { seq: 1, type: 'queued', data: JSON.stringify(queued) };
    const seq = this.writing('the run cannot be recorded', () => {
      const inserted = this.insertStmt.run({
        id: run.id,
        spec: JSON.stringify(run.spec),
        jobFile: run.jobFile,
        suite: run.suite === null ? null : JSON.stringify(run.suite),
        analysis: run.analysis === null ? null : JSON.stringify(run.analysis),
        asserts: JSON.stringify(run.asserts),
        volume: run.volume === null ? null : JSON.stringify(run.volume),
        defaultRoot: run.defaultRoot,
        roots: JSON.stringify(run.roots),
        queueKeys: JSON.stringify(run.queueKeys),
        createdAt: run.createdAt,
      });
      const runSeq = Number(inserted.lastInsertRowid);
      this.events.insert(runSeq, event);
      return runSeq;
    });
    const row: RunRow = {
      ...run, seq, status: 'queued', startedAt: null, finishedAt: null, error: null, progress: null, assertions: [], gate: null,
    };
    this.live.set(row.id, row);
    this.lastEventSeq.set(row.id, event.seq);
    return { run: row, event };
  }

  get(id: string): RunRow | null {
    const live = this.live.get(id) ?? this.held.row(id);
    if (live) return live;
    const row = this.getStmt.get(id) as Row | undefined;
    return row ? fromRow(row) : null;
  }

  /** Replaces the in-memory row of a run that has not ended (when there is one). */
  private touch(id: string, change: Partial<RunRow>): void {
    const live = this.live.get(id);
    if (live) this.live.set(id, { ...live, ...change });
  }

  /** fio's JSON document as stored (or held until it can be), or null. */
  result(id: string): string | null {
    const held = this.held.result(id);
    if (held !== undefined) return held;
    return (this.resultStmt.get(id) as string | null | undefined) ?? null;
  }

  /**
   * The size in bytes of the run's result, or null when it has none, without reading it (it may
   * be megabytes): SQLite answers octet_length from the record's header.
   */
  resultBytes(id: string): number | null {
    const held = this.held.result(id);
    if (held !== undefined) return held === null ? null : Buffer.byteLength(held);
    return (this.resultBytesStmt.get(id) as number | null | undefined) ?? null;
  }

  /** fio's JSON held in memory until the store takes it; undefined when it is not held. */
  heldResult(id: string): string | null | undefined {
    return this.held.result(id);
  }

  /**
   * Marks a queued run running, with its started event; null when it was no longer queued
   * (cancelled meanwhile). A store that cannot record the start throws its problem: nothing runs.
   */
  markRunning(id: string, startedAt: number, started: object): StoredEvent | null {
    const run = this.live.get(id);
    if (run?.status !== 'queued') return null;
    this.flush();
    const event: StoredEvent = { seq: this.nextEventSeq(run), type: 'started', data: JSON.stringify(started) };
    const changed = this.writing('the run cannot be recorded as started, so it did not run', () => {
      if (this.startStmt.run(startedAt, id).changes !== 1) return false;
      this.events.insert(run.seq, event);
      return true;
    });
    if (!changed) return null;
    this.lastEventSeq.set(id, event.seq);
    this.touch(id, { status: 'running', startedAt });
    return event;
  }

  /**
   * Records files a running run created, as soon as they exist: what a restart after a crash
   * removes (only while each is still that file). A store that cannot take them logs it; such
   * a file is then left behind after a crash, never another one removed.
   */
  recordCreated(id: string, files: readonly FileIdentity[]): void {
    const run = this.live.get(id);
    if (run === undefined) return;
    const rows: StoredFile[] = files.map((f) => ({ path: f.path, dev: f.dev, ino: f.ino, stamp: f.stamp }));
    try {
      this.db.transaction(() => {
        for (const f of rows) this.fileStmt.run(run.seq, f.path, String(f.dev), String(f.ino), f.stamp);
      });
    } catch (err) {
      if (!isStoreCondition(err)) throw err;
      this.unstoredFiles.set(id, [...(this.unstoredFiles.get(id) ?? []), ...rows]);
      this.options.logError(err, `run ${id}: the files it created (${rows.map((f) => f.path).join(', ')}) cannot be recorded; after a crash they stay`);
    }
  }

  /** The files a run created, as recorded; those recorded without an identity (before it was) have dev and ino null. */
  createdFiles(id: string): StoredFile[] {
    const rows = this.filesStmt.all(id) as Array<{ path: string; dev: string | null; ino: string | null; stamp: string | null }>;
    const stored = rows.map((r) => ({
      path: r.path, dev: r.dev === null ? null : BigInt(r.dev), ino: r.ino === null ? null : BigInt(r.ino), stamp: r.stamp,
    }));
    return [...stored, ...(this.unstoredFiles.get(id) ?? [])];
  }

  saveProgress(id: string, progress: RunProgressBody): void {
    this.touch(id, { progress });
    try {
      this.progressStmt.run(JSON.stringify(progress), id);
    } catch (err) {
      // The run's end records its last progress: one that the store cannot take now is not missed.
      if (!isStoreCondition(err)) throw err;
    }
  }

  /** Records an event of a run that has not ended; never fails for the store (see the class). */
  appendEvent(run: RunKey, type: string, data: object): StoredEvent {
    const event: StoredEvent = { seq: this.nextEventSeq(run), type, data: JSON.stringify(data) };
    this.lastEventSeq.set(run.id, event.seq);
    this.held.event(run, event);
    this.flush();
    return event;
  }

  /** Ends a run with its final event; never fails for the store (see the class). */
  finish(id: string, end: RunFinish, final: object): StoredEvent {
    const run = this.get(id);
    if (run === null) throw new Error(`run ${id} is not in the store`);
    const event: StoredEvent = { seq: this.nextEventSeq(run), type: end.status, data: JSON.stringify(final) };
    const { status, finishedAt, error, assertions, gate } = end;
    this.held.event(run, event);
    this.held.end({ ...run, status, finishedAt, error, assertions, gate }, end.result, run.status);
    this.live.delete(id);
    this.lastEventSeq.delete(id);
    this.unstoredFiles.delete(id);
    this.flush();
    return event;
  }

  /** The run's events after `afterSeq`: those stored, then those held. */
  eventsAfter(run: RunKey, afterSeq: number): StoredEvent[] {
    return [...this.events.after(run.seq, afterSeq), ...this.held.eventsAfter(run.id, afterSeq)].sort((a, b) => a.seq - b.seq);
  }

  /**
   * Writes what is held in memory, all in one transaction; false when the store still cannot
   * take it (it stays held, and a timer offers it again).
   */
  flush(): boolean {
    if (this.held.isEmpty) return true;
    if (!this.db.open) return false;
    try {
      this.db.transaction(() => this.writeHeld());
    } catch (err) {
      this.heldBack(err);
      return false;
    }
    this.held.clear();
    this.stopRetrying();
    return true;
  }

  /** A last write of what is held; returns the ids of runs whose end could not be stored. */
  close(): string[] {
    this.flush();
    this.stopRetrying();
    return this.held.endedIds();
  }

  private writeHeld(): void {
    let ended = false;
    for (const { runSeq, events, end } of this.held.entries()) {
      for (const event of events) this.events.insert(runSeq, event);
      if (end === null) continue;
      const { row } = end;
      this.finishStmt.run({
        id: row.id,
        status: row.status,
        finishedAt: row.finishedAt,
        error: row.error === null ? null : JSON.stringify(row.error),
        progress: row.progress === null ? null : JSON.stringify(row.progress),
        result: end.result,
        assertions: JSON.stringify(row.assertions),
        gate: row.gate,
      });
      ended = true;
    }
    if (ended) this.pruneStmt.run(this.options.keepRuns);
  }

  /** Logged once as the store starts holding back, not on every retry of a full disk. */
  private heldBack(err: unknown): void {
    if (this.retry !== null) return;
    this.options.logError(err, `the store did not take what it was given; it is kept in memory and offered again every ${HELD_RETRY_MS} ms`);
    this.retry = setInterval(() => this.flush(), HELD_RETRY_MS);
    // Nothing held should keep a process alive that is otherwise done.
    this.retry.unref();
  }

  private stopRetrying(): void {
    if (this.retry !== null) clearInterval(this.retry);
    this.retry = null;
  }

  /** The number of the run's next event: after its last one, stored or held. */
  private nextEventSeq(run: RunKey): number {
    const last = this.lastEventSeq.get(run.id) ?? Math.max(this.events.lastSeq(run.seq), ...this.held.eventsAfter(run.id, 0).map((e) => e.seq));
    return last + 1;
  }

  /** Runs a write in a transaction; a store that cannot take it throws its problem. */
  private writing<T>(what: string, write: () => T): T {
    try {
      return this.db.transaction(write);
    } catch (err) {
      throw storeProblemOf(err, this.options.dataDir, what) ?? err;
    }
  }

  /** Runs with this status, from the database; queued ones become live again (after a restart). */
  withStatus(status: RunStatus): RunRow[] {
    const runs = (this.byStatusStmt.all(status) as Row[]).map(fromRow);
    if (status === 'queued') runs.forEach((r) => this.live.set(r.id, r));
    return runs;
  }

  list(query: ListQuery): RunRow[] {
    const where: string[] = [];
    const params: Array<string | number> = [];
    if (query.status !== undefined) {
      where.push('status = ?');
      params.push(query.status);
    }
    if (query.gate !== undefined) {
      where.push('gate = ?');
      params.push(query.gate);
    }
    if (query.root !== undefined) {
      where.push('EXISTS (SELECT 1 FROM json_each(runs.roots) WHERE json_each.value = ?)');
      params.push(query.root);
    }
    if (query.beforeSeq !== undefined) {
      where.push('seq < ?');
      params.push(query.beforeSeq);
    }
    const sql = `SELECT ${COLUMNS} FROM runs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT ?`;
    // Runs whose end is held may leave the page: ask for as many more.
    const rows = (this.db.prepare(sql).all(...params, query.limit + this.held.endedCount) as Row[]).map(fromRow);
    return this.held.overList(rows, query);
  }

  countByStatus(): Map<RunStatus, number> {
    const rows = this.countStmt.all() as Array<{ status: RunStatus; n: number }>;
    return this.held.overCounts(new Map(rows.map((r) => [r.status, r.n])));
  }

  /** Deletes the ended runs beyond the newest `keepRuns` (and their events); returns how many. */
  prune(): number {
    try {
      return this.pruneStmt.run(this.options.keepRuns).changes;
    } catch (err) {
      // Deleting needs room in the WAL too; the next run that ends prunes again.
      if (!isStoreCondition(err)) throw err;
      return 0;
    }
  }
}
