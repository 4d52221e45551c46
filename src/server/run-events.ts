/**
 * Publishes a run's events: each is stored first (so a reconnecting SSE client can replay it
 * by Last-Event-ID) and then handed to whoever listens now (SSE streams, ?wait requests).
 */
import { EventEmitter } from 'node:events';

import type { EventStore, StoredEvent } from './store/events.js';

export const FINAL_EVENTS: ReadonlySet<string> = new Set(['finished', 'failed', 'cancelled']);

export type EventListener = (event: StoredEvent) => void;

export class RunEvents {
  private readonly emitter = new EventEmitter();

  constructor(private readonly store: EventStore) {
    // One listener per open SSE stream or waiting request: no fixed bound is right.
    this.emitter.setMaxListeners(0);
  }

  publish(run: { id: string; seq: number }, type: string, data: object): void {
    const json = JSON.stringify(data);
    const seq = this.store.append(run.seq, type, json);
    this.emitter.emit(run.id, { seq, type, data: json });
  }

  replay(runSeq: number, afterSeq: number): StoredEvent[] {
    return this.store.after(runSeq, afterSeq);
  }

  subscribe(runId: string, listener: EventListener): () => void {
    this.emitter.on(runId, listener);
    return () => this.emitter.off(runId, listener);
  }
}
