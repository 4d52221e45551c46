/**
 * GET /v1/runs/{id}/report and GET /v1/report?run=ID&run=ID2: the price/performance report of
 * stored runs, in the formats of `volbench report`. A run that failed or was cancelled without a
 * result is a row that says so; a run still queued or running is refused until it ends.
 */
import { z } from 'zod';

import { activePrices } from '../../cloud/prices.js';
import { buildPublishReport, catalogPricer, renderReport, REPORT_CONTENT_TYPES, REPORT_FORMATS, type ReportInput } from '../../publish/index.js';
import type { FioJson } from '../../report/fio-result.js';
import { isTerminal } from '../run-service.js';
import { problemResponse } from '../schemas/problem.js';
import { runNotEnded } from '../problems.js';
import type { RunService } from '../run-service.js';
import { BAD_PARAM, getRunOr404, notFoundResponse, pathParamResponses, runParams, tokenRouteResponses } from './common.js';
import type { RouteDeps, ZodApp } from './types.js';

/** Enough for a wide comparison; each run's result is parsed and drawn. */
export const MAX_REPORT_RUNS = 50;

const formatParam = z.enum(REPORT_FORMATS).default('md').describe('html (self-contained page with charts), md, csv or json');

const reportQuery = z.object({ format: formatParam });

const runsQuery = z.object({
  run: z.preprocess((v) => (Array.isArray(v) ? v : [v]), z.array(z.string().min(1).max(200)).min(1).max(MAX_REPORT_RUNS))
    .describe(`Run ids, repeated: ?run=ID&run=ID2 (at most ${MAX_REPORT_RUNS})`),
  format: formatParam,
});

const reportResponse = {
  description: 'The report in the format asked for',
  content: {
    'text/html': { schema: z.string() },
    'text/markdown': { schema: z.string() },
    'text/csv': { schema: z.string() },
    'application/json': { schema: z.record(z.string(), z.unknown()) },
  },
};

function reportInput(service: RunService, id: string): ReportInput {
  const run = getRunOr404(service, id);
  if (!isTerminal(run.status)) throw runNotEnded(run.id, run.status);
  const stored = service.store.result(run.id);
  return {
    source: run.id,
    status: run.status,
    result: stored === null ? null : (JSON.parse(stored) as FioJson),
    error: run.error?.detail ?? null,
    suite: run.suite?.name ?? null,
    jobNames: [...new Set(run.spec.jobs.map((j, i) => String(j.name ?? `job${i}`)))],
  };
}

export function registerReportRoutes(app: ZodApp, { service }: RouteDeps): void {
  app.get('/v1/runs/:id/report', {
    schema: {
      summary: "A run's price/performance report",
      tags: ['runs'],
      params: runParams,
      querystring: reportQuery,
      response: {
        200: reportResponse,
        ...pathParamResponses,
        ...tokenRouteResponses,
        400: problemResponse(`?format= is not html, md, csv or json, or ${BAD_PARAM}`),
        404: notFoundResponse,
        409: problemResponse('The run has not ended yet'),
      },
    },
  }, async (request, reply) => {
    const report = buildPublishReport([reportInput(service, request.params.id)], { priceVolume: catalogPricer(), reprice: activePrices() !== undefined });
    const format = request.query.format;
    return reply.type(REPORT_CONTENT_TYPES[format]).send(await renderReport(report, format));
  });

  app.get('/v1/report', {
    schema: {
      summary: 'The price/performance report of several runs, side by side',
      tags: ['runs'],
      querystring: runsQuery,
      response: {
        200: reportResponse,
        ...tokenRouteResponses,
        400: problemResponse(`No ?run=, more than ${MAX_REPORT_RUNS}, or ?format= is not html, md, csv or json`),
        404: problemResponse('One of the runs does not exist'),
        409: problemResponse('One of the runs has not ended yet'),
      },
    },
  }, async (request, reply) => {
    const inputs = request.query.run.map((id) => reportInput(service, id));
    const format = request.query.format;
    return reply.type(REPORT_CONTENT_TYPES[format]).send(await renderReport(buildPublishReport(inputs, { priceVolume: catalogPricer(), reprice: activePrices() !== undefined }), format));
  });
}
