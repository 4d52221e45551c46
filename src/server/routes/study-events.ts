/**
 * GET /v1/studies/{id}/events: the study's machine as Server-Sent Events. The stream opens with
 * `study`, the study as GET /v1/studies/{id} answers it, then each of the machine's events as
 * this service drives it (FleetEvent: step, member-up, member-failed, progress, member-done,
 * collected, result, report, tearing-down, torn-down, log; numbered, so Last-Event-ID resumes,
 * across a restart of the service too), and `study` again whenever it changed (a study another driver moves
 * is followed this way too). It ends once the study is done or failed.
 */
import { z } from 'zod';

import type { FleetEvent } from '../../fleet/index.js';
import { renderJson } from '../../publish/index.js';
import type { NumberedEvent } from '../studies/study-events.js';
import { pathParamResponses } from './common.js';
import { studiesOf, studyNotFoundResponse, studyParams, studyTokenResponses } from './studies.js';
import type { RouteDeps, ZodApp } from './types.js';

const KEEPALIVE_MS = 15_000;
/** How often the study's state is looked at again, for what changed besides this service's own events. */
const LOOK_MS = 5000;

const eventHeaders = z.object({
  'last-event-id': z.string().optional().describe("Resume after this event id; an id of the service's earlier life (before a restart) gets every event kept since"),
});

/** An event's data: the report as `volbench report --format json` gives it. */
function dataOf(e: FleetEvent): string {
  return JSON.stringify(e.event === 'report' ? { ...e, report: JSON.parse(renderJson(e.report)) as unknown } : e);
}

export function registerStudyEventsRoute(app: ZodApp, deps: RouteDeps): void {
  app.get('/v1/studies/:id/events', {
    schema: {
      summary: "A study's events as Server-Sent Events",
      description: 'Opens with `study` (the study as GET answers it); then the machine\'s events as this service drives it: step, member-up, ' +
        'member-failed, progress (a member\'s progress.json), member-done, collected, result, report, tearing-down, torn-down, log ' +
        '(docs/fleet.md lists their fields); `study` again whenever it changed. Ends once the study is done or failed. Send Last-Event-ID to resume: ' +
        "an id (LIFE-SEQ) names the service's life, so one from before a restart gets every event the restarted service kept.",
      tags: ['studies'],
      params: studyParams,
      headers: eventHeaders,
      response: {
        200: { description: 'An event stream', content: { 'text/event-stream': { schema: z.string() } } },
        ...pathParamResponses,
        ...studyTokenResponses,
        404: studyNotFoundResponse,
      },
    },
  }, async (request, reply) => {
    const studies = studiesOf(deps);
    const { id } = request.params;
    let study = await studies.view(id);
    let last = studies.events.resumeAfter(request.headers['last-event-id']);
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    res.write('retry: 1000\n\n');
    let closed = false;
    let shown = '';
    const close = (): void => {
      if (closed) return;
      closed = true;
      unsubscribe();
      clearInterval(keepalive);
      clearInterval(look);
      res.end();
    };
    const showStudy = (thenClose = true): void => {
      const text = JSON.stringify(study);
      if (text === shown || closed) return;
      shown = text;
      res.write(`event: study\ndata: ${text}\n\n`);
      if (thenClose && studies.isTerminal(study.step)) close();
    };
    const send = (n: NumberedEvent): void => {
      if (closed || n.seq <= last) return;
      last = n.seq;
      res.write(`id: ${studies.events.idOf(n.seq)}\nevent: ${n.event.event}\ndata: ${dataOf(n.event)}\n\n`);
      if (n.event.event === 'step' && studies.isTerminal(n.event.step)) void refresh();
    };
    const refresh = async (): Promise<void> => {
      try {
        study = await studies.view(id);
        showStudy();
      } catch {
        // The next look tries again.
      }
    };
    const unsubscribe = studies.events.subscribe(id, send);
    const keepalive = setInterval(() => res.write(': keep-alive\n\n'), KEEPALIVE_MS);
    const look = setInterval(() => void refresh(), LOOK_MS);
    res.on('close', close);
    showStudy(false);
    for (const n of studies.events.since(id, last)) send(n);
    if (studies.isTerminal(study.step)) close();
  });
}
