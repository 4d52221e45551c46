/**
 * A run's events (queued, started, progress, and its final event), numbered from 1 per run.
 * They are kept so that an SSE client that reconnects with Last-Event-ID misses nothing. The
 * caller numbers them (RunStore): an event the store cannot take yet keeps its number while it
 * waits in memory, and whoever listens gets it at once with that number.
 */
import type { Db } from './database.js';

export interface StoredEvent {
  seq: number;
  type: string;
  /** JSON text, sent as the SSE data line. */
  data: string;
}

export class EventStore {
  private readonly insertStmt;
  private readonly lastSeqStmt;
  private readonly afterStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare('INSERT INTO events (run_seq, seq, type, data) VALUES (?, ?, ?, ?)');
    this.lastSeqStmt = db.prepare('SELECT COALESCE(MAX(seq), 0) FROM events WHERE run_seq = ?').pluck();
    this.afterStmt = db.prepare('SELECT seq, type, data FROM events WHERE run_seq = ? AND seq > ? ORDER BY seq');
  }

  insert(runSeq: number, event: StoredEvent): void {
    this.insertStmt.run(runSeq, event.seq, event.type, event.data);
  }

  /** The number of the run's last stored event, 0 when it has none. */
  lastSeq(runSeq: number): number {
    return this.lastSeqStmt.get(runSeq) as number;
  }

  after(runSeq: number, afterSeq: number): StoredEvent[] {
    return this.afterStmt.all(runSeq, afterSeq) as StoredEvent[];
  }
}
