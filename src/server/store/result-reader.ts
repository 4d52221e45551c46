/**
 * Results read by a thread of their own (the report renderer's): a read-only connection to the
 * database, so a report's results (megabytes each for long runs of many jobs) are read and
 * parsed where they are drawn, never on the event loop. WAL lets it read while the service
 * writes. A result the service holds in memory because the store refused it is not in the
 * database yet: the service hands that one over itself (RunStore.heldResult).
 */
import { join } from 'node:path';

import { DATABASE_FILE } from './database.js';
import { Connection, type Statement } from './sqlite.js';

export class ResultReader {
  private readonly db: Connection;
  private readonly resultStmt: Statement;

  constructor(dataDir: string) {
    this.db = new Connection(join(dataDir, DATABASE_FILE), { readOnly: true, busyTimeoutMs: 5000 });
    this.resultStmt = this.db.prepare('SELECT result FROM runs WHERE id = ?').pluck();
  }

  /** fio's JSON document of a run as stored, or null (no such run, or none stored). */
  result(id: string): string | null {
    return (this.resultStmt.get(id) as string | null | undefined) ?? null;
  }

  close(): void {
    this.db.close();
  }
}
