/** GET /v1/runs/{id} and DELETE /v1/runs/{id}. */
import { runJson } from '../run-json.js';
import { runView } from '../run-view.js';
import { isTerminal } from '../run-service.js';
import { jsonResponse } from '../schemas/problem.js';
import { runSchema, type RunBody } from '../schemas/run.js';
import { runNotFound } from '../problems.js';
import { getRunOr404, notFoundResponse, runParams, unauthorizedResponse } from './common.js';
import type { RouteDeps, ZodApp } from './types.js';

export function registerRunRoutes(app: ZodApp, { service }: RouteDeps): void {
  app.get('/v1/runs/:id', {
    schema: {
      summary: 'A run: status, progress, spec or suite, timestamps, error, assertion outcomes and gate',
      tags: ['runs'],
      params: runParams,
      response: { 200: jsonResponse('The run', runSchema), 401: unauthorizedResponse, 404: notFoundResponse },
    },
  }, async (request, reply) => {
    // Already serialized by the route's own serializer (cached per version of the run): a string
    // with a JSON content type is sent as it is.
    const text = runJson(getRunOr404(service, request.params.id)) as unknown as RunBody;
    return reply.type('application/json; charset=utf-8').send(text);
  });

  app.delete('/v1/runs/:id', {
    schema: {
      summary: 'Cancel a queued or running run',
      description: 'Idempotent: a run that has ended is returned unchanged. A running run stops within a second ' +
        'and keeps its partial result, like fio interrupted.',
      tags: ['runs'],
      params: runParams,
      response: {
        200: jsonResponse('The run has ended (cancelled now, or earlier with any status)', runSchema),
        202: jsonResponse('Cancel requested; the run is still stopping', runSchema),
        401: unauthorizedResponse,
        404: notFoundResponse,
      },
    },
  }, async (request, reply) => {
    const run = await service.cancel(request.params.id);
    if (run === null) throw runNotFound(request.params.id);
    return reply.code(isTerminal(run.status) ? 200 : 202).send(runView(run));
  });
}
