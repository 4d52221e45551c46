/**
 * Server-Sent Events: a run's stream carries queued, started, a progress event about once a
 * second with per-direction rates, and one final event; a client that reconnects with
 * Last-Event-ID gets exactly the events after that id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import { randreadSpec, startServer, type TestServer } from './helpers/server.js';
import { readEvents } from './helpers/sse.js';

const needs = requires('tmpfs');

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server?.close());

function auth(extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${server.token}`, ...extra };
}

describe('GET /v1/runs/{id}/events', () => {
  it('streams queued, started, progress with rates per direction, then finished, and closes', async () => {
    const submitted = await server.client.submit(randreadSpec({ runtime: '3s' }));
    const stream = await readEvents(`${server.url}/v1/runs/${submitted.body.id}/events`, auth());
    expect(stream.status).toBe(200);
    expect(stream.contentType).toBe('text/event-stream; charset=utf-8');
    const types = stream.events.map((e) => e.event);
    expect(types.slice(0, 2)).toEqual(['queued', 'started']);
    expect(types[types.length - 1]).toBe('finished');
    const progress = stream.events.filter((e) => e.event === 'progress');
    expect(progress.length).toBeGreaterThanOrEqual(2);
    for (const p of progress) {
      for (const direction of ['read', 'write', 'trim']) {
        expect(Object.keys(p.data[direction]).sort()).toEqual(['bw_bytes', 'clat_mean_ns', 'clat_p99_ns', 'iops']);
      }
    }
    const busy = progress.find((p) => p.data.read.iops > 0);
    // Both are rounded rates over the same second: 4 KiB per I/O, within one I/O.
    expect(Math.abs(busy!.data.read.bw_bytes - busy!.data.read.iops * 4096)).toBeLessThanOrEqual(4096);
    expect(busy?.data.read.clat_p99_ns).toBeGreaterThan(0);
    expect(busy?.data.read.clat_mean_ns).toBeGreaterThan(0);
    expect(stream.events.map((e) => Number(e.id))).toEqual(stream.events.map((_, i) => i + 1));
    expect(stream.events[stream.events.length - 1].data.status).toBe('finished');
  });

  it('resumes after Last-Event-ID with exactly the later events', async () => {
    const submitted = await server.client.submit(randreadSpec({ runtime: '2s' }));
    const url = `${server.url}/v1/runs/${submitted.body.id}/events`;
    const first = await readEvents(url, auth(), { maxEvents: 2 });
    expect(first.events.map((e) => e.event)).toEqual(['queued', 'started']);
    const rest = await readEvents(url, auth({ 'last-event-id': first.events[1].id! }));
    expect(rest.events[0].id).toBe('3');
    expect(rest.events[rest.events.length - 1].event).toBe('finished');
    const whole = await readEvents(url, auth());
    expect([...first.events, ...rest.events]).toEqual(whole.events);
  });

  it('a stream resumed after the final event ends at once with nothing', async () => {
    const submitted = await server.client.submit(randreadSpec(), '?wait=30');
    const url = `${server.url}/v1/runs/${submitted.body.id}/events`;
    const whole = await readEvents(url, auth());
    const after = await readEvents(url, auth({ 'last-event-id': whole.events[whole.events.length - 1].id! }));
    expect(after.status).toBe(200);
    expect(after.events).toEqual([]);
  });

  it('needs the token and an existing run', async () => {
    const noToken = await fetch(`${server.url}/v1/runs/x/events`);
    expect(noToken.status).toBe(401);
    const missing = await fetch(`${server.url}/v1/runs/x/events`, { headers: auth() });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  });
});
