/**
 * GET /v1/runs/{id}/result: fio's output exactly as fio prints it, in the format asked for:
 * `json` and `json+` as application/json, `normal` and `terse` as text/plain. Printed on a render thread,
 * within the report budgets but the answer size (report-renderer.ts).
 */
import type { FastifyReply } from 'fastify';
import { z } from 'zod';

import type { OutputFormat } from '../../fio-output/index.js';
import { isTerminal } from '../runs/run-service.js';
import { problemResponse } from '../../api/problem.js';
import { fioResultSchema } from '../../api/fio-result.js';
import { BAD_PARAM, clientGone, getRunOr404, pathParamResponses, renderBudgetResponses, runParams, tokenRouteResponses } from './common.js';
import type { RouteDeps, ZodApp } from './types.js';
import { noResult, runNotEnded } from '../problems/service-problems.js';

const resultQuery = z.object({
  format: z.enum(['json', 'json+', 'normal', 'terse']).default('json').describe("fio's --output-format"),
});

const CONTENT_TYPES: Record<OutputFormat, string> = {
  json: 'application/json; charset=utf-8',
  'json+': 'application/json; charset=utf-8',
  normal: 'text/plain; charset=utf-8',
  terse: 'text/plain; charset=utf-8',
};

export function registerResultRoute(app: ZodApp, { service, reports }: RouteDeps): void {
  app.get('/v1/runs/:id/result', {
    schema: {
      summary: "A run's result in fio's output formats",
      tags: ['runs'],
      params: runParams,
      querystring: resultQuery,
      response: {
        200: {
          description: "fio's output: JSON for json and json+, fio's normal text for normal, its terse v3 lines for terse",
          content: {
            'application/json': { schema: fioResultSchema },
            'text/plain': { schema: z.string() },
          },
        },
        ...pathParamResponses,
        ...tokenRouteResponses,
        400: problemResponse(`?format= is not json, json+, normal or terse, or ${BAD_PARAM}`),
        404: problemResponse('No such run, or the run ended without a result'),
        409: problemResponse('The run has not ended yet'),
        ...renderBudgetResponses,
      },
    },
  }, async (request, reply) => {
    const run = getRunOr404(service, request.params.id);
    if (!isTerminal(run.status)) throw runNotEnded(run.id, run.status);
    const storedBytes = service.store.resultBytes(run.id);
    if (storedBytes === null) throw noResult(run.id, run.status);
    const held = service.store.heldResult(run.id);
    // A large one is parsed and printed on a render thread: a long run of many jobs stores megabytes.
    const format = request.query.format;
    const task = { kind: 'result' as const, format, run: { id: run.id, ...(held === undefined ? {} : { heldResult: held }) } };
    const body = await reports.render(task, storedBytes, clientGone(reply));
    // The rendered bytes, sent as they are (no schema serializes a Buffer).
    return (reply as FastifyReply).type(CONTENT_TYPES[format]).send(body);
  });
}
