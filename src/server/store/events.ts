/**
 * A run's events (queued, started, progress, and its final event), numbered from 1 per run.
 * They are kept so that an SSE client that reconnects with Last-Event-ID misses nothing.
 */
import type { Db } from './database.js';

export interface StoredEvent {
  seq: number;
  type: string;
  /** JSON text, sent as the SSE data line. */
  data: string;
}

export class EventStore {
  private readonly appendStmt;
  private readonly afterStmt;

  constructor(db: Db) {
    this.appendStmt = db
      .prepare(
        `INSERT INTO events (run_seq, seq, type, data)
         VALUES (@run, (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE run_seq = @run), @type, @data)
         RETURNING seq`,
      )
      .pluck();
    this.afterStmt = db.prepare('SELECT seq, type, data FROM events WHERE run_seq = ? AND seq > ? ORDER BY seq');
  }

  append(runSeq: number, type: string, data: string): number {
    return this.appendStmt.get({ run: runSeq, type, data }) as number;
  }

  after(runSeq: number, afterSeq: number): StoredEvent[] {
    return this.afterStmt.all(runSeq, afterSeq) as StoredEvent[];
  }
}
