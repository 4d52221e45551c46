/**
 * A member's `volbench serve`, as the fleet talks to it. Every answer is read within a size bound
 * and parsed with the service's own contract (src/api): a member that answers anything else fails
 * that member, naming what did not fit. A run's events are followed to its final one, a dropped
 * stream opened again after the last event seen (Last-Event-ID).
 */
import type { z } from 'zod';

import { problemSchema } from '../api/problem.js';

export type Fetch = (url: string, init?: RequestInit) => Promise<Response>;

/** The events that end a run's stream. */
export type FinalEvent = 'finished' | 'failed' | 'cancelled';

const FINAL: ReadonlySet<string> = new Set<FinalEvent>(['finished', 'failed', 'cancelled']);

const MAX_ANSWER = 256 << 20;
const MAX_EVENT = 1 << 20;

/** What a refusal says, from its problem+json, if it is one. */
function problemDetail(body: unknown): string {
  const problem = problemSchema.safeParse(body);
  return problem.success ? `: ${problem.data.detail}` : '';
}

/** zod's first complaint, with where it is. */
function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}` : 'invalid';
}

/** One Server-Sent Event block: its id, type and data (as JSON, or null when it is not). */
function parseEvent(block: string): { id?: string; type: string; data: unknown } {
  let id: string | undefined;
  let type = 'message';
  let data = '';
  for (const line of block.split('\n')) {
    if (line.startsWith('id: ')) id = line.slice(4);
    else if (line.startsWith('event: ')) type = line.slice(7);
    else if (line.startsWith('data: ')) data += line.slice(6);
  }
  try {
    return { id, type, data: data ? JSON.parse(data) : undefined };
  } catch {
    return { id, type, data: null };
  }
}

export class MemberClient {
  constructor(readonly base: string, readonly token: string, readonly signal?: AbortSignal, readonly fetch: Fetch = globalThis.fetch) {}

  private async answer(path: string, init: RequestInit): Promise<{ status: number; body: unknown }> {
    const res = await this.fetch(`${this.base}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${this.token}`, accept: 'application/json', ...(init.body ? { 'content-type': 'application/json' } : {}) },
      signal: this.signal,
    });
    const text = await res.text();
    if (text.length > MAX_ANSWER) throw new Error(`${path}: answer larger than ${MAX_ANSWER} bytes`);
    try {
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    } catch {
      throw new Error(`${path}: HTTP ${res.status}, not JSON: ${text.slice(0, 200)}`);
    }
  }

  /**
   * `what`'s answer parsed with `schema`, when its status is one of `ok`; else an error with the
   * status and the problem's detail. `body` is sent as JSON.
   */
  async call<T extends z.ZodType>(what: string, path: string, schema: T, opts: { body?: unknown; ok?: number[] } = {}): Promise<z.output<T>> {
    const init: RequestInit = opts.body === undefined ? {} : { method: 'POST', body: JSON.stringify(opts.body) };
    const { status, body } = await this.answer(path, init);
    if (!(opts.ok ?? [200]).includes(status)) throw new Error(`${what}: HTTP ${status}${problemDetail(body)}`);
    const parsed = schema.safeParse(body);
    if (!parsed.success) throw new Error(`${what}: not the service's answer (${firstIssue(parsed.error)})`);
    return parsed.data;
  }

  /** Asks the run to stop; best effort (the member is about to go anyway). */
  async cancel(runId: string): Promise<void> {
    await this.fetch(`${this.base}/v1/runs/${encodeURIComponent(runId)}`, { method: 'DELETE', headers: { authorization: `Bearer ${this.token}` } }).catch(() => {});
  }

  /** One connection to the run's events: the final event's type, once it came. */
  private async stream(runId: string, last: { id?: string }, onEvent: (type: string, data: unknown) => void): Promise<FinalEvent | undefined> {
    const res = await this.fetch(`${this.base}/v1/runs/${encodeURIComponent(runId)}/events`, {
      headers: { authorization: `Bearer ${this.token}`, accept: 'text/event-stream', ...(last.id ? { 'last-event-id': last.id } : {}) },
      signal: this.signal,
    });
    if (res.status !== 200 || !res.body) throw new Error(`events: HTTP ${res.status}`);
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      if (buffer.length > MAX_EVENT) throw new Error('events: an event larger than 1 MiB');
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const event = parseEvent(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (event.id !== undefined) last.id = event.id;
        if (event.data === undefined) continue;
        onEvent(event.type, event.data);
        if (FINAL.has(event.type)) return event.type as FinalEvent;
      }
    }
    return undefined;
  }

  /**
   * Follows the run's events until its final one; a dropped stream is opened again after the
   * last event seen, `maxReconnects` times in a row at most. Returns the final event's type.
   */
  async follow(runId: string, onEvent: (type: string, data: unknown) => void, maxReconnects: number): Promise<FinalEvent> {
    const last: { id?: string } = {};
    for (let failures = 0; ;) {
      let seen = false;
      try {
        const final = await this.stream(runId, last, (type, data) => {
          seen = true;
          onEvent(type, data);
        });
        if (final) return final;
        throw new Error('events: the stream ended before the run did');
      } catch (err) {
        failures = seen ? 1 : failures + 1;
        if (this.signal?.aborted || failures > maxReconnects) throw err;
        await new Promise((r) => setTimeout(r, Math.min(500 * 2 ** (failures - 1), 10_000)));
      }
    }
  }
}

/** Retries a request that could not connect, for up to a minute: a service that has just started may not listen yet. */
export async function reachable<T>(call: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (let delay = 200; ; delay = Math.min(delay * 2, 5000)) {
    try {
      return await call();
    } catch (err) {
      // fetch puts the socket's code in its cause; the pinned client rejects with the socket's error.
      const code = (err as { code?: string; cause?: { code?: string } }).cause?.code ?? (err as { code?: string }).code;
      if (signal?.aborted || Date.now() > deadline || !['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT'].includes(code ?? '')) throw err;
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}
