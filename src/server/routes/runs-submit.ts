/**
 * POST /v1/runs: a spec or a suite as JSON, or a fio job file as text/plain, each with
 * assertions (`assert` in JSON, `?assert=` for a job file). The run is admitted (every check
 * before any I/O), stored and queued: 202 with its links, or with ?wait=N, 200 with the run and
 * fio's JSON when it ends within N seconds.
 */
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';

import { checkSpecBounds, type SpecBounds } from '../../jobspec/index.js';
import { formatJson } from '../../fio-output/index.js';
import { specFromJobFile } from '../admission/job-file.js';
import { findRoot } from '../admission/roots.js';
import type { RunRequest } from '../admission/run-request.js';
import { isTerminal, type RunService } from '../runs/run-service.js';
import { runLinks, runView } from '../runs/run-view.js';
import { assertListSchema } from '../../api/assertion.js';
import { jsonResponse, problemResponse } from '../../api/problem.js';
import { isSuiteBody, runRequestSchema, type SpecRunRequest, type SuiteRunRequest } from '../../api/run-request.js';
import { runAcceptedSchema, runWithResultSchema } from '../../api/run.js';
import { isAnalysisBody, type AnalysisRunRequest } from '../../api/analysis-request.js';
import type { RunRow } from '../store/runs.js';
import { tokenRouteResponses } from './common.js';
import type { RouteDeps, ZodApp } from './types.js';
import { invalidRequest, unknownTarget } from '../problems/service-problems.js';

/** A repeated query parameter arrives as an array, a single one as a string. */
const repeatable = z.preprocess((value) => (typeof value === 'string' ? [value] : value), assertListSchema);

const submitQuery = z.object({
  wait: z.coerce
    .number()
    .min(0)
    .optional()
    .describe('Seconds to wait for the run to end; 200 with the result when it does, else 202'),
  target: z.string().optional().describe('Target root for jobs (or a suite) that give no filename or directory (default: the first root)'),
  assert: repeatable
    .optional()
    .describe("A fio job file's assertions, repeatable: ?assert=rr.iops%3E%3D3000&assert=... (JSON bodies carry theirs in \"assert\")"),
});

/** The finished run with fio's JSON in its plain `json` form, values exactly as fio prints them. */
function withResult(service: RunService, run: RunRow): z.infer<typeof runWithResultSchema> {
  const stored = service.store.result(run.id);
  const result = stored === null ? null : (JSON.parse(formatJson(JSON.parse(stored) as object)) as z.infer<typeof runWithResultSchema>['result']);
  return { ...runView(run), result };
}

/** The request a body and query make; assertions come from the body, or from ?assert= for a job file. */
function runRequestOf(body: unknown, queryAsserts: string[] | undefined, bounds: SpecBounds): RunRequest {
  if (typeof body === 'string') return { kind: 'spec', spec: specFromJobFile(body, bounds), jobFile: body, asserts: queryAsserts ?? [] };
  if (queryAsserts !== undefined) {
    throw invalidRequest('?assert= is for fio job files; a JSON body carries its assertions in "assert"', 'query.assert',
      'no ?assert= with a JSON body');
  }
  if (isAnalysisBody(body)) {
    const analysis = body as AnalysisRunRequest;
    return { kind: 'analysis', analysis, asserts: analysis.assert ?? [] };
  }
  if (isSuiteBody(body)) {
    const suite = body as SuiteRunRequest;
    return { kind: 'suite', suite, asserts: suite.assert ?? [] };
  }
  const { assert, volume, ...spec } = body as SpecRunRequest;
  return { kind: 'spec', spec, jobFile: null, asserts: assert ?? [], ...(volume ? { volume } : {}) };
}

function defaultRootFor(service: RunService, target: string | undefined) {
  if (target === undefined) return null;
  const root = findRoot(service.roots, target);
  if (root === null) throw unknownTarget(target, service.roots);
  return root;
}

/**
 * Runs before the body's schema is validated. A spec of more jobs than the server runs
 * instances can never be admitted, and validating (then parsing) thousands of them held the
 * event loop for a quarter of a second; so are a section's keys when there are more than
 * options. A job file gets the same job limit while it is read.
 */
function boundedSpecBody(service: RunService) {
  return async (request: FastifyRequest): Promise<void> => {
    const body = request.body;
    if (typeof body === 'object' && body !== null && !isSuiteBody(body) && !isAnalysisBody(body)) {
      checkSpecBounds(body, { maxJobs: service.limits.maxInstances });
    }
  };
}

export function registerSubmitRoute(app: ZodApp, { service, waitForEveryRun }: RouteDeps): void {
  app.post('/v1/runs', {
    preValidation: boundedSpecBody(service),
    schema: {
      summary: 'Submit a run: a spec, a fio job file, a suite or an analysis, with assertions',
      description:
        'A run whose assertions fail still ends finished when its I/O ran clean: the outcome is in gate and assertions ' +
        '(and in fio\'s JSON under volbench.assertions). A pipeline checks status == finished and gate == passed.',
      tags: ['runs'],
      querystring: submitQuery,
      body: {
        content: {
          'application/json': { schema: runRequestSchema },
          'text/plain': { schema: z.string().min(1).describe('A fio job file ([global] and job sections)') },
        },
      },
      response: {
        200: jsonResponse("The run ended within ?wait: the run with fio's JSON", runWithResultSchema),
        202: jsonResponse('The run is queued or running; Location names it', runAcceptedSchema),
        400: problemResponse('The spec, job file or an assertion does not parse, the suite is unknown, or a path is relative or holds .. or NUL'),
        ...tokenRouteResponses,
        403: problemResponse('A path is outside the target roots, or a block device may not be written'),
        413: problemResponse('The body is larger than the server accepts'),
        415: problemResponse('Neither application/json nor text/plain'),
        422: problemResponse(
          'The spec or suite parses but cannot run here (unsupported option, unusable target, over a limit), or an assertion ' +
            'names a job, direction or metric the run will not report',
        ),
        429: problemResponse('The queue is full; Retry-After says when to try again'),
        503: problemResponse("The service's store refuses writes (an I/O error, a read-only filesystem; the run is not stored), or the server is shutting down"),
        507: problemResponse("The filesystem of the service's data directory is full; the run is not stored"),
      },
    },
  }, async (request, reply) => {
    const runRequest = runRequestOf(request.body, request.query.assert, { maxJobs: service.limits.maxInstances });
    const defaultRoot = defaultRootFor(service, request.query.target);
    const run = await service.submit({ request: runRequest, defaultRoot });
    // Where the host freezes between requests (Lambda), a run must end inside the one that submits it.
    const waitSec = waitForEveryRun ? service.limits.maxWaitSec : Math.min(request.query.wait ?? 0, service.limits.maxWaitSec);
    // A client that goes away stops the wait: nothing is left listening for a run nobody awaits.
    const gone = new AbortController();
    const onClose = (): void => gone.abort();
    reply.raw.once('close', onClose);
    const ended = await service.waitForEnd(run.id, waitSec * 1000, gone.signal);
    reply.raw.off('close', onClose);
    reply.header('location', runLinks(run.id).self);
    if (ended !== null && isTerminal(ended.status)) return reply.code(200).send(withResult(service, ended));
    return reply.code(202).send({ id: run.id, status: ended?.status ?? run.status, links: runLinks(run.id) });
  });
}
