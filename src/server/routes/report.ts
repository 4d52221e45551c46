/**
 * GET /v1/runs/{id}/report and GET /v1/report?run=ID&run=ID2: the price/performance report of
 * stored runs, in the formats of `volbench report`. A run that failed or was cancelled without a
 * result is a row that says so; a run still queued or running is refused until it ends. Reports
 * are drawn on threads of their own, within the service's report budgets (report-renderer.ts).
 */
import type { FastifyReply } from 'fastify';
import { z } from 'zod';

import { activePrices } from '../../cloud/price-source.js';
import { REPORT_CONTENT_TYPES, REPORT_FORMATS, type ReportFormat } from '../../publish/render.js';
import { THROUGHPUT_UNITS } from '../../publish/units.js';
import { QUESTION_METRICS } from '../../suites/manifest.js';
import type { ReportRun } from '../reports/report-task.js';
import { isTerminal } from '../runs/run-service.js';
import { problemResponse } from '../../api/problem.js';
import { runNotEnded } from '../problems/service-problems.js';
import type { RunService } from '../runs/run-service.js';
import { BAD_PARAM, clientGone, getRunOr404, notFoundResponse, pathParamResponses, renderBudgetResponses, runParams, tokenRouteResponses } from './common.js';
import type { RouteDeps, ZodApp } from './types.js';

/** Enough for a wide comparison; each run's result is parsed and drawn. */
export const MAX_REPORT_RUNS = 50;

const formatParam = z.enum(REPORT_FORMATS).default('md').describe('html (self-contained page with charts), md, csv or json');

const rankByParam = z.enum(QUESTION_METRICS).optional().describe("The figure every verdict ranks by (default: each suite question's own)");
const unitsParam = z.enum(THROUGHPUT_UNITS).optional().describe('Throughput in MiB/s (default) or MB/s in html, md and csv; json keeps MiB/s');

const reportQuery = z.object({ format: formatParam, rank_by: rankByParam, units: unitsParam });

const runsQuery = z.object({
  run: z.preprocess((v) => (Array.isArray(v) ? v : [v]), z.array(z.string().min(1).max(200)).min(1).max(MAX_REPORT_RUNS))
    .describe(`Run ids, repeated: ?run=ID&run=ID2 (at most ${MAX_REPORT_RUNS})`),
  format: formatParam,
  rank_by: rankByParam,
  units: unitsParam,
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

function reportRun(service: RunService, id: string): ReportRun {
  const run = getRunOr404(service, id);
  if (!isTerminal(run.status)) throw runNotEnded(run.id, run.status);
  const held = service.store.heldResult(run.id);
  return {
    id: run.id,
    status: run.status,
    error: run.error?.detail ?? null,
    suite: run.suite?.name ?? null,
    jobNames: [...new Set(run.spec.jobs.map((j, i) => String(j.name ?? `job${i}`)))],
    ...(held === undefined ? {} : { heldResult: held }),
  };
}

/** Renders on a thread of its own; a client that goes away takes its render with it. */
type ReportQuery = z.infer<typeof reportQuery>;

async function sendReport({ service, reports }: RouteDeps, reply: FastifyReply, runs: ReportRun[], query: ReportQuery): Promise<FastifyReply> {
  const storedBytes = runs.reduce((sum, run) => sum + (service.store.resultBytes(run.id) ?? 0), 0);
  const { format } = query;
  const task = { kind: 'publish' as const, format, runs, pricesFile: activePrices()?.file ?? null, rankBy: query.rank_by, units: query.units };
  const body = await reports.render(task, storedBytes, clientGone(reply));
  return reply.type(REPORT_CONTENT_TYPES[format]).send(body);
}

export function registerReportRoutes(app: ZodApp, deps: RouteDeps): void {
  const { service } = deps;
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
        ...renderBudgetResponses,
      },
    },
  }, async (request, reply) => sendReport(deps, reply, [reportRun(service, request.params.id)], request.query));

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
        ...renderBudgetResponses,
      },
    },
  }, async (request, reply) => {
    // A run named twice is one row: ?run=ID fifty times is one run's report.
    const runs = [...new Set(request.query.run)].map((id) => reportRun(service, id));
    return sendReport(deps, reply, runs, request.query);
  });
}
