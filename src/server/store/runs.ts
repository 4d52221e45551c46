/**
 * Runs in the database: one row per run, from queued to its final status, with the spec (or
 * suite) and assertions it was submitted with, the files it may create, its last progress,
 * fio's JSON and the outcome of its assertions.
 */
import type { JobSpec } from '../../jobspec/types.js';
import type { Problem } from '../problem.js';
import type { AssertionOutcomeBody, Gate } from '../schemas/assertion.js';
import type { RunProgressBody, RunStatus, RunSuiteBody } from '../schemas/run.js';
import type { Db } from './database.js';

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
  /** Assertion texts as submitted. */
  asserts: string[];
  /** Root named by ?target= for jobs without a path. */
  defaultRoot: string | null;
  roots: string[];
  queueKeys: string[];
  /** Files the run created, recorded before its first I/O. */
  files: string[];
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  error: Problem | null;
  progress: RunProgressBody | null;
  /** Outcomes of the assertions, once judged on a result. */
  assertions: AssertionOutcomeBody[];
  gate: Gate | null;
}

export type NewRun = Pick<RunRow, 'id' | 'spec' | 'jobFile' | 'suite' | 'asserts' | 'defaultRoot' | 'roots' | 'queueKeys' | 'createdAt'>;

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
  files: string;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  error: string | null;
  progress: string | null;
  suite: string | null;
  asserts: string;
  assertions: string;
  gate: Gate | null;
}

const COLUMNS = 'seq, id, status, spec, job_file, default_root, roots, queue_keys, files, created_at, started_at, finished_at, error, ' +
  'progress, suite, asserts, assertions, gate';

function fromRow(r: Row): RunRow {
  return {
    seq: r.seq,
    id: r.id,
    status: r.status,
    spec: JSON.parse(r.spec) as JobSpec,
    jobFile: r.job_file,
    suite: r.suite === null ? null : (JSON.parse(r.suite) as RunSuiteBody),
    asserts: JSON.parse(r.asserts) as string[],
    defaultRoot: r.default_root,
    roots: JSON.parse(r.roots) as string[],
    queueKeys: JSON.parse(r.queue_keys) as string[],
    files: JSON.parse(r.files) as string[],
    createdAt: r.created_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    error: r.error === null ? null : (JSON.parse(r.error) as Problem),
    progress: r.progress === null ? null : (JSON.parse(r.progress) as RunProgressBody),
    assertions: JSON.parse(r.assertions) as AssertionOutcomeBody[],
    gate: r.gate,
  };
}

/**
 * Runs that have not ended are also kept in memory, row objects replaced on every change: GETs
 * of a running run (what pollers hammer) need no database read, and a row object can key a
 * cache of its serialized form. The database stays the record: every change is written first.
 */
export class RunStore {
  private readonly live = new Map<string, RunRow>();
  private readonly insertStmt;
  private readonly getStmt;
  private readonly resultStmt;
  private readonly startStmt;
  private readonly progressStmt;
  private readonly finishStmt;
  private readonly byStatusStmt;
  private readonly countStmt;
  private readonly pruneStmt;

  /** `keepRuns` bounds the history: each run that ends prunes the oldest ended ones. */
  constructor(private readonly db: Db, private readonly keepRuns: number) {
    this.insertStmt = db.prepare(
      `INSERT INTO runs (id, status, spec, job_file, suite, asserts, default_root, roots, queue_keys, created_at)
       VALUES (@id, 'queued', @spec, @jobFile, @suite, @asserts, @defaultRoot, @roots, @queueKeys, @createdAt) RETURNING ${COLUMNS}`,
    );
    this.getStmt = db.prepare(`SELECT ${COLUMNS} FROM runs WHERE id = ?`);
    this.resultStmt = db.prepare('SELECT result FROM runs WHERE id = ?').pluck();
    this.startStmt = db.prepare("UPDATE runs SET status = 'running', started_at = ?, files = ? WHERE id = ? AND status = 'queued'");
    this.progressStmt = db.prepare('UPDATE runs SET progress = ? WHERE id = ?');
    this.finishStmt = db.prepare(
      'UPDATE runs SET status = @status, finished_at = @finishedAt, error = @error, result = @result, assertions = @assertions, gate = @gate WHERE id = @id',
    );
    this.byStatusStmt = db.prepare(`SELECT ${COLUMNS} FROM runs WHERE status = ? ORDER BY seq`);
    this.countStmt = db.prepare('SELECT status, COUNT(*) AS n FROM runs GROUP BY status');
    // Keeps the newest `keep` runs that have ended; queued and running runs are never pruned.
    this.pruneStmt = db.prepare(
      `DELETE FROM runs WHERE status NOT IN ('queued', 'running') AND seq NOT IN (
         SELECT seq FROM runs WHERE status NOT IN ('queued', 'running') ORDER BY seq DESC LIMIT ?)`,
    );
  }

  insert(run: NewRun): RunRow {
    const row = this.insertStmt.get({
      id: run.id,
      spec: JSON.stringify(run.spec),
      jobFile: run.jobFile,
      suite: run.suite === null ? null : JSON.stringify(run.suite),
      asserts: JSON.stringify(run.asserts),
      defaultRoot: run.defaultRoot,
      roots: JSON.stringify(run.roots),
      queueKeys: JSON.stringify(run.queueKeys),
      createdAt: run.createdAt,
    }) as Row;
    const inserted = fromRow(row);
    this.live.set(inserted.id, inserted);
    return inserted;
  }

  get(id: string): RunRow | null {
    const live = this.live.get(id);
    if (live) return live;
    const row = this.getStmt.get(id) as Row | undefined;
    return row ? fromRow(row) : null;
  }

  /** Replaces the in-memory row of a run that has not ended (when there is one). */
  private touch(id: string, change: Partial<RunRow>): void {
    const live = this.live.get(id);
    if (live) this.live.set(id, { ...live, ...change });
  }

  /** fio's JSON document as stored, or null. */
  result(id: string): string | null {
    return (this.resultStmt.get(id) as string | null | undefined) ?? null;
  }

  /** Marks a queued run running; false when it was no longer queued (cancelled meanwhile). */
  markRunning(id: string, startedAt: number, files: string[]): boolean {
    const changed = this.startStmt.run(startedAt, JSON.stringify(files), id).changes === 1;
    if (changed) this.touch(id, { status: 'running', startedAt, files });
    return changed;
  }

  saveProgress(id: string, progress: RunProgressBody): void {
    this.progressStmt.run(JSON.stringify(progress), id);
    this.touch(id, { progress });
  }

  finish(id: string, end: RunFinish): void {
    this.finishStmt.run({
      id,
      status: end.status,
      finishedAt: end.finishedAt,
      error: end.error === null ? null : JSON.stringify(end.error),
      result: end.result,
      assertions: JSON.stringify(end.assertions),
      gate: end.gate,
    });
    this.live.delete(id);
    this.prune();
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
    return (this.db.prepare(sql).all(...params, query.limit) as Row[]).map(fromRow);
  }

  countByStatus(): Map<RunStatus, number> {
    const rows = this.countStmt.all() as Array<{ status: RunStatus; n: number }>;
    return new Map(rows.map((r) => [r.status, r.n]));
  }

  /** Deletes the oldest ended runs (and their events) beyond `keep`; returns how many. */
  /** Deletes the ended runs beyond the newest `keepRuns` (and their events). */
  prune(): number {
    return this.pruneStmt.run(this.keepRuns).changes;
  }
}
