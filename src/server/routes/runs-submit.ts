/**
 * POST /v1/runs: a spec as JSON or a fio job file as text/plain. The run is admitted (every
 * check before any I/O), stored and queued: 202 with its links, or with ?wait=N, 200 with the
 * run and fio's JSON when it ends within N seconds.
 */
import { z } from 'zod';

import { formatJson } from '../../report/index.js';
import type { JobSpec } from '../../spec/types.js';
import { specFromJobFile } from '../job-file.js';
import { HttpProblem } from '../problem.js';
import { findRoot } from '../roots.js';
import { isTerminal, type RunService } from '../run-service.js';
import { runLinks, runView } from '../run-view.js';
import { jsonResponse, problemResponse } from '../schemas/problem.js';
import { runAcceptedSchema, runWithResultSchema, specSchema } from '../schemas/run.js';
import type { RunRow } from '../store/runs.js';
import { unauthorizedResponse } from './common.js';
import type { RouteDeps, ZodApp } from './types.js';

const submitQuery = z.object({
  wait: z.coerce
    .number()
    .min(0)
    .optional()
    .describe('Seconds to wait for the run to end; 200 with the result when it does, else 202'),
  target: z.string().optional().describe('Target root for jobs that give no filename or directory (default: the first root)'),
});

/** The finished run with fio's JSON in its plain `json` form, values exactly as fio prints them. */
function withResult(service: RunService, run: RunRow): z.infer<typeof runWithResultSchema> {
  const stored = service.store.result(run.id);
  const result = stored === null ? null : (JSON.parse(formatJson(JSON.parse(stored) as object)) as z.infer<typeof runWithResultSchema>['result']);
  return { ...runView(run), result };
}

function defaultRootFor(service: RunService, target: string | undefined) {
  if (target === undefined) return null;
  const root = findRoot(service.roots, target);
  if (root === null) {
    throw new HttpProblem(400, 'unknown-target', 'Unknown target', `?target=${target} is not a target root of this server`, {
      field: 'query.target',
      accepted: service.roots.map((r) => r.path).join(', '),
    });
  }
  return root;
}

export function registerSubmitRoute(app: ZodApp, { service, waitForEveryRun }: RouteDeps): void {
  app.post('/v1/runs', {
    schema: {
      summary: 'Submit a run',
      tags: ['runs'],
      querystring: submitQuery,
      body: {
        content: {
          'application/json': { schema: specSchema },
          'text/plain': { schema: z.string().min(1).describe('A fio job file ([global] and job sections)') },
        },
      },
      response: {
        200: jsonResponse("The run ended within ?wait: the run with fio's JSON", runWithResultSchema),
        202: jsonResponse('The run is queued or running; Location names it', runAcceptedSchema),
        400: problemResponse('The spec or job file does not parse, or a path is relative or holds .. or NUL'),
        401: unauthorizedResponse,
        403: problemResponse('A path is outside the target roots, or a block device may not be written'),
        413: problemResponse('The body is larger than the server accepts'),
        415: problemResponse('Neither application/json nor text/plain'),
        422: problemResponse('The spec parses but cannot run here (unsupported option, unusable target, over a limit)'),
        429: problemResponse('The queue is full; Retry-After says when to try again'),
      },
    },
  }, async (request, reply) => {
    const body = request.body as JobSpec | string;
    const jobFile = typeof body === 'string' ? body : null;
    const spec = jobFile === null ? (body as JobSpec) : specFromJobFile(jobFile);
    const defaultRoot = defaultRootFor(service, request.query.target);
    const run = await service.submit({ spec, jobFile, defaultRoot });
    // Where the host freezes between requests (Lambda), a run must end inside the one that submits it.
    const waitSec = waitForEveryRun ? service.limits.maxWaitSec : Math.min(request.query.wait ?? 0, service.limits.maxWaitSec);
    const ended = await service.waitForEnd(run.id, waitSec * 1000);
    reply.header('location', runLinks(run.id).self);
    if (ended !== null && isTerminal(ended.status)) return reply.code(200).send(withResult(service, ended));
    return reply.code(202).send({ id: run.id, status: ended?.status ?? run.status, links: runLinks(run.id) });
  });
}
