/** GET /v1/runs/{id} and DELETE /v1/runs/{id}. */
import { runJson } from '../runs/run-json.js';
import { runView } from '../runs/run-view.js';
import { isTerminal } from '../runs/run-service.js';
import { jsonResponse } from '../../api/problem.js';
import { runSchema, type RunBody } from '../../api/run.js';
import { runNotFound } from '../problems/service-problems.js';
import { problemResponse } from '../../api/problem.js';
import { BAD_PARAM, getRunOr404, notFoundResponse, pathParamResponses, runParams, tokenRouteResponses } from './common.js';
import type { RouteDeps, ZodApp } from './types.js';

export function registerRunRoutes(app: ZodApp, { service }: RouteDeps): void {
  app.get('/v1/runs/:id', {
    schema: {
      summary: 'A run: status, progress, spec or suite, timestamps, error, assertion outcomes and gate',
      tags: ['runs'],
      params: runParams,
      response: { 200: jsonResponse('The run', runSchema), ...pathParamResponses, ...tokenRouteResponses, 404: notFoundResponse },
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
        ...pathParamResponses,
        ...tokenRouteResponses,
        // DELETE may carry a body, which Fastify parses (and refuses) before the route runs.
        400: problemResponse(`The path parameter is not valid (${BAD_PARAM}), or a JSON body does not parse`),
        404: notFoundResponse,
        413: problemResponse('The body is larger than the server accepts'),
        415: problemResponse('A body that is neither application/json nor text/plain'),
      },
    },
  }, async (request, reply) => {
    const run = await service.cancel(request.params.id);
    if (run === null) throw runNotFound(request.params.id);
    return reply.code(isTerminal(run.status) ? 200 : 202).send(runView(run));
  });
}
