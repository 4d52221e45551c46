/**
 * GET /v1/runs/{id}/result: fio's output exactly as fio prints it, in the format asked for:
 * `json` and `json+` as application/json, `normal` as text/plain.
 */
import { z } from 'zod';

import { formatResult, type FioJson, type OutputFormat } from '../../report/index.js';
import { isTerminal } from '../run-service.js';
import { problemResponse } from '../schemas/problem.js';
import { fioResultSchema } from '../schemas/fio-result.js';
import { BAD_PARAM, getRunOr404, pathParamResponses, runParams, tokenRouteResponses } from './common.js';
import type { RouteDeps, ZodApp } from './types.js';
import { noResult, runNotEnded } from '../problems.js';

const resultQuery = z.object({
  format: z.enum(['json', 'json+', 'normal']).default('json').describe("fio's --output-format"),
});

const CONTENT_TYPES: Record<OutputFormat, string> = {
  json: 'application/json; charset=utf-8',
  'json+': 'application/json; charset=utf-8',
  normal: 'text/plain; charset=utf-8',
};

export function registerResultRoute(app: ZodApp, { service }: RouteDeps): void {
  app.get('/v1/runs/:id/result', {
    schema: {
      summary: "A run's result in fio's output formats",
      tags: ['runs'],
      params: runParams,
      querystring: resultQuery,
      response: {
        200: {
          description: "fio's output: JSON for json and json+, fio's normal text for normal",
          content: {
            'application/json': { schema: fioResultSchema },
            'text/plain': { schema: z.string() },
          },
        },
        ...pathParamResponses,
        ...tokenRouteResponses,
        400: problemResponse(`?format= is not json, json+ or normal, or ${BAD_PARAM}`),
        404: problemResponse('No such run, or the run ended without a result'),
        409: problemResponse('The run has not ended yet'),
      },
    },
  }, async (request, reply) => {
    const run = getRunOr404(service, request.params.id);
    if (!isTerminal(run.status)) throw runNotEnded(run.id, run.status);
    const stored = service.store.result(run.id);
    if (stored === null) throw noResult(run.id, run.status);
    const format = request.query.format;
    return reply.type(CONTENT_TYPES[format]).send(formatResult(JSON.parse(stored) as FioJson, format));
  });
}
