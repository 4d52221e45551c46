/**
 * Publishes a run's events: each is recorded first (so a reconnecting SSE client can replay it
 * by Last-Event-ID) and then handed to whoever listens now (SSE streams, ?wait requests).
 * Events that come with a change of the run's status are recorded by the store with that
 * change and only handed on here.
 */
import { EventEmitter } from 'node:events';

import type { StoredEvent } from '../store/events.js';
import type { RunKey, RunStore } from '../store/runs.js';

export const FINAL_EVENTS: ReadonlySet<string> = new Set(['finished', 'failed', 'cancelled']);

export type EventListener = (event: StoredEvent) => void;

export class RunEvents {
  private readonly emitter = new EventEmitter();

  constructor(private readonly store: Pick<RunStore, 'appendEvent' | 'eventsAfter'>) {
    // One listener per open SSE stream or waiting request: no fixed bound is right.
    this.emitter.setMaxListeners(0);
  }

  publish(run: RunKey, type: string, data: object): void {
    this.emit(run.id, this.store.appendEvent(run, type, data));
  }

  /** Hands on an event the store has recorded already. */
  emit(runId: string, event: StoredEvent): void {
    this.emitter.emit(runId, event);
  }

  replay(run: RunKey, afterSeq: number): StoredEvent[] {
    return this.store.eventsAfter(run, afterSeq);
  }

  subscribe(runId: string, listener: EventListener): () => void {
    this.emitter.on(runId, listener);
    return () => this.emitter.off(runId, listener);
  }
}
