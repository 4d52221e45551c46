/**
 * The store's SQLite, from Node's own `node:sqlite`: no native dependency of ours, so no
 * binary per Node ABI and architecture to build or ship. This file is the only one that
 * touches the module; the rest of the store sees a small connection with transactions,
 * single-value queries and SQLite's result codes by name.
 *
 * Node 22 marks `node:sqlite` experimental and prints a warning the first time it loads
 * (24 and later do not); that one warning is kept off the service's stderr, any other passes.
 */
import type * as NodeSqlite from 'node:sqlite';

type SqlValue = NodeSqlite.SQLInputValue;
type Params = readonly SqlValue[] | [Record<string, SqlValue>];

let sqlite: typeof NodeSqlite | undefined;

function loadSqlite(): typeof NodeSqlite {
  if (sqlite) return sqlite;
  const emitWarning = process.emitWarning;
  process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]): void {
    const text = typeof warning === 'string' ? warning : warning.message;
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    if (type === 'ExperimentalWarning' && /^SQLite is an experimental feature/.test(text)) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    sqlite = process.getBuiltinModule('node:sqlite') as typeof NodeSqlite;
  } finally {
    process.emitWarning = emitWarning;
  }
  return sqlite;
}

/** SQLite's primary result codes by number (sqlite3.h), for the ones the store tells apart. */
const RESULT_CODES: Readonly<Record<number, string>> = {
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  8: 'SQLITE_READONLY',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  26: 'SQLITE_NOTADB',
};

/**
 * The SQLite result code an error carries, by name (`SQLITE_FULL`, `SQLITE_BUSY`, ...), or
 * null when `err` did not come from SQLite. Extended codes (SQLITE_IOERR_WRITE) report their
 * primary code, which is what the store decides on.
 */
export function sqliteCode(err: unknown): string | null {
  if (!(err instanceof Error) || (err as { code?: unknown }).code !== 'ERR_SQLITE_ERROR') return null;
  const errcode = (err as { errcode?: unknown }).errcode;
  if (typeof errcode !== 'number') return 'SQLITE_ERROR';
  return RESULT_CODES[errcode & 0xff] ?? `SQLITE_ERROR_${errcode & 0xff}`;
}

/** A prepared statement; `pluck()` makes `get`/`all` answer the first column's value. */
export class Statement {
  private plucked = false;

  constructor(private readonly stmt: NodeSqlite.StatementSync) {}

  pluck(): this {
    this.plucked = true;
    return this;
  }

  run(...params: Params): { changes: number; lastInsertRowid: number } {
    const r = this.stmt.run(...(params as SqlValue[]));
    return { changes: Number(r.changes), lastInsertRowid: Number(r.lastInsertRowid) };
  }

  get(...params: Params): unknown {
    const row = this.stmt.get(...(params as SqlValue[]));
    return this.plucked && row !== undefined ? Object.values(row)[0] : row;
  }

  all(...params: Params): unknown[] {
    const rows = this.stmt.all(...(params as SqlValue[]));
    return this.plucked ? rows.map((row) => Object.values(row)[0]) : rows;
  }
}

export interface ConnectionOptions {
  /** How long a statement waits for another connection's lock before SQLITE_BUSY, in ms. */
  busyTimeoutMs?: number;
  /** Open for reading only; the file must exist. */
  readOnly?: boolean;
}

/** One connection to a database file. */
export class Connection {
  private readonly db: NodeSqlite.DatabaseSync;
  private depth = 0;

  constructor(path: string, options: ConnectionOptions = {}) {
    const { DatabaseSync } = loadSqlite();
    this.db = new DatabaseSync(path, { readOnly: options.readOnly ?? false });
    this.db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 0))}`);
  }

  get open(): boolean {
    return this.db.isOpen;
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }

  prepare(sql: string): Statement {
    return new Statement(this.db.prepare(sql));
  }

  /** `PRAGMA text`; the first column of its first row, or undefined when it answers nothing. */
  pragma(text: string): unknown {
    const row = this.db.prepare(`PRAGMA ${text}`).get();
    return row === undefined ? undefined : Object.values(row)[0];
  }

  /**
   * Runs `fn` in a transaction: committed when it returns, rolled back when it throws (the
   * error passes on). Called inside another, it is a savepoint of the outer one.
   */
  transaction<T>(fn: () => T): T {
    const savepoint = `s${this.depth}`;
    this.db.exec(this.depth === 0 ? 'BEGIN' : `SAVEPOINT ${savepoint}`);
    this.depth++;
    try {
      const out = fn();
      this.db.exec(this.depth === 1 ? 'COMMIT' : `RELEASE ${savepoint}`);
      return out;
    } catch (err) {
      // A failed COMMIT (SQLITE_FULL) may already have ended the transaction.
      if (this.db.isTransaction) this.db.exec(this.depth === 1 ? 'ROLLBACK' : `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`);
      throw err;
    } finally {
      this.depth--;
    }
  }
}
