/**
 * GET /v1/studies/{id}/report?format=html|md|csv|json: the study's price/performance report, as
 * `fleet compare` prints it and `volbench report` renders it, from the results it has collected
 * so far (a member without one is a row that says why). Drawn within the service's report
 * budgets, on a thread of its own (report-renderer.ts).
 */
import type { FastifyReply } from 'fastify';
import { z } from 'zod';

import { activePrices } from '../../cloud/price-source.js';
import { REPORT_CONTENT_TYPES, REPORT_FORMATS } from '../../publish/render.js';
import { THROUGHPUT_UNITS } from '../../publish/units.js';
import { QUESTION_METRICS } from '../../suites/manifest.js';
import { problemResponse } from '../../api/problem.js';
import { BAD_PARAM, clientGone, pathParamResponses, renderBudgetResponses } from './common.js';
import { studiesOf, studyNotFoundResponse, studyParams, studyTokenResponses } from './studies.js';
import type { RouteDeps, ZodApp } from './types.js';

const reportQuery = z.object({
  format: z.enum(REPORT_FORMATS).default('md').describe('html (self-contained page with charts), md, csv or json'),
  rank_by: z.enum(QUESTION_METRICS).optional().describe("The figure every verdict ranks by (default: each suite question's own)"),
  units: z.enum(THROUGHPUT_UNITS).optional().describe('Throughput in MiB/s (default) or MB/s in html, md and csv; json keeps MiB/s'),
});

export function registerStudyReportRoute(app: ZodApp, deps: RouteDeps): void {
  app.get('/v1/studies/:id/report', {
    schema: {
      summary: "A study's price/performance report: each volume's verdicts against what it is entitled to, from the results collected so far",
      tags: ['studies'],
      params: studyParams,
      querystring: reportQuery,
      response: {
        200: {
          description: 'The report in the format asked for',
          content: {
            'text/html': { schema: z.string() },
            'text/markdown': { schema: z.string() },
            'text/csv': { schema: z.string() },
            'application/json': { schema: z.record(z.string(), z.unknown()) },
          },
        },
        ...pathParamResponses,
        ...studyTokenResponses,
        400: problemResponse(`?format= is not html, md, csv or json, or ${BAD_PARAM}`),
        404: studyNotFoundResponse,
        ...renderBudgetResponses,
        502: problemResponse('An AWS call failed (ECLOUD)'),
      },
    },
  }, async (request, reply) => {
    const { inputs, key, bytes } = await studiesOf(deps).reportInputs(request.params.id);
    const { format, rank_by: rankBy, units } = request.query;
    const task = { kind: 'inputs' as const, key, format, inputs, pricesFile: activePrices()?.file ?? null, rankBy, units };
    const body = await deps.reports.render(task, bytes, clientGone(reply));
    // Bytes as rendered, sent as they are (the schema describes each format's text).
    return (reply as FastifyReply).type(REPORT_CONTENT_TYPES[format]).send(body);
  });
}
