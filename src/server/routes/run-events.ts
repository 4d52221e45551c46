/**
 * GET /v1/runs/{id}/events: Server-Sent Events. Each event's id is its number within the run;
 * a client that reconnects with Last-Event-ID gets every later event from the store, then the
 * live ones. The stream closes after the final event (finished, failed or cancelled).
 */
import { z } from 'zod';

import { FINAL_EVENTS } from '../runs/run-events.js';
import { isTerminal } from '../runs/run-service.js';
import type { StoredEvent } from '../store/events.js';
import { getRunOr404, notFoundResponse, pathParamResponses, runParams, tokenRouteResponses } from './common.js';
import type { RouteDeps, ZodApp } from './types.js';

/** A comment line every so often keeps proxies from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;

const eventHeaders = z.object({
  'last-event-id': z.string().optional().describe('Resume after this event id'),
});

function lastEventId(header: string | undefined): number {
  const n = header === undefined ? 0 : Number.parseInt(header, 10);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

export function formatEvent(event: StoredEvent): string {
  return `id: ${event.seq}\nevent: ${event.type}\ndata: ${event.data}\n\n`;
}

export function registerEventsRoute(app: ZodApp, { service }: RouteDeps): void {
  app.get('/v1/runs/:id/events', {
    schema: {
      summary: "A run's events as Server-Sent Events",
      description:
        'Events: queued, started, progress (about once a second: iops, bw_bytes, clat_mean_ns, clat_p99_ns per ' +
        'direction; a suite\'s also names its current test, an analysis\'s its current step), for a suite run test as each test ' +
        'and loop starts (test, tests, loop, loops, jobs), for an analysis run analysis as each step starts and again with ' +
        'its figures once it has run (analysis, step, steps; a sweep point\'s value and figures, a uniformity chunk\'s offset ' +
        'and mbps), then one of finished, failed, cancelled (with the gate), after which the stream ends. Send Last-Event-ID ' +
        'to resume.',
      tags: ['runs'],
      params: runParams,
      headers: eventHeaders,
      response: {
        200: { description: 'An event stream', content: { 'text/event-stream': { schema: z.string() } } },
        ...pathParamResponses,
        ...tokenRouteResponses,
        404: notFoundResponse,
      },
    },
  }, (request, reply) => {
    const run = getRunOr404(service, request.params.id);
    let last = lastEventId(request.headers['last-event-id']);
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 1000\n\n');
    let closed = false;
    const close = (): void => {
      if (closed) return;
      closed = true;
      unsubscribe();
      clearInterval(keepalive);
      service.closing.removeEventListener('abort', close);
      res.end();
    };
    const send = (event: StoredEvent): void => {
      if (closed || event.seq <= last) return;
      last = event.seq;
      res.write(formatEvent(event));
      if (FINAL_EVENTS.has(event.type)) close();
    };
    // Subscribe before replaying: both happen in this tick, so no event falls between them.
    const unsubscribe = service.events.subscribe(run.id, send);
    const keepalive = setInterval(() => res.write(': keep-alive\n\n'), KEEPALIVE_MS);
    res.on('close', close);
    // A server that is closing ends the stream; the client resumes with Last-Event-ID.
    service.closing.addEventListener('abort', close, { once: true });
    for (const event of service.events.replay(run, last)) send(event);
    if (!closed && (service.closing.aborted || isTerminal(service.get(run.id)?.status ?? 'finished'))) close();
  });
}
