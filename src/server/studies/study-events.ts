/**
 * A study's events as this process saw them (the machine's FleetEvents, in order), numbered for
 * Server-Sent Events: a client that reconnects with Last-Event-ID gets what it missed. An id
 * names the process's life as well as the event (`LIFE-SEQ`): a client that reconnects to a
 * service restarted since (kill -9, a new host) holds an id of an earlier life, and gets every
 * event this life kept, none skipped because its numbering began again. Only an echo: the study's
 * state is in S3, and a stream begins with the study as it is there. The last MAX_KEPT events of
 * each study are kept.
 */
import { randomBytes } from 'node:crypto';

import type { FleetEvent } from '../../fleet/index.js';

export interface NumberedEvent {
  seq: number;
  event: FleetEvent;
}

const MAX_KEPT = 500;

interface Log {
  seq: number;
  kept: NumberedEvent[];
  listeners: Set<(e: NumberedEvent) => void>;
}

export class StudyEvents {
  private readonly logs = new Map<string, Log>();
  /** This process's life, in every event id it gives. */
  readonly life = randomBytes(4).toString('hex');

  /** The SSE id of event `seq`. */
  idOf(seq: number): string {
    return `${this.life}-${seq}`;
  }

  /** The seq a client resumes after: its Last-Event-ID's when of this life, else 0 (all kept: an earlier life's, or none). */
  resumeAfter(lastEventId: string | undefined): number {
    const m = /^([0-9a-f]{8})-(\d{1,15})$/.exec(lastEventId ?? '');
    return m && m[1] === this.life ? Number(m[2]) : 0;
  }

  private log(id: string): Log {
    let log = this.logs.get(id);
    if (!log) this.logs.set(id, (log = { seq: 0, kept: [], listeners: new Set() }));
    return log;
  }

  push(id: string, event: FleetEvent): void {
    const log = this.log(id);
    const numbered = { seq: ++log.seq, event };
    log.kept.push(numbered);
    if (log.kept.length > MAX_KEPT) log.kept.shift();
    for (const listen of log.listeners) listen(numbered);
  }

  /** Those after `after`, kept. */
  since(id: string, after: number): NumberedEvent[] {
    return (this.logs.get(id)?.kept ?? []).filter((e) => e.seq > after);
  }

  subscribe(id: string, listen: (e: NumberedEvent) => void): () => void {
    const log = this.log(id);
    log.listeners.add(listen);
    return () => log.listeners.delete(listen);
  }
}
