/** Pieces several routes share: the run id parameter, its 404, and problem responses. */
import type { FastifyReply } from 'fastify';
import { z } from 'zod';

import { runNotFound } from '../problems/service-problems.js';
import { problemResponse } from '../../api/problem.js';
import type { RunService } from '../runs/run-service.js';
import type { RunRow } from '../store/runs.js';

/** Longest path parameter (a run id, a suite name) the router takes; longer is 414. */
export const MAX_PARAM_LENGTH = 100;

export const runParams = z.object({ id: z.string().describe('Run id') });

export function getRunOr404(service: RunService, id: string): RunRow {
  const run = service.get(id);
  if (run === null) throw runNotFound(id);
  return run;
}

export const unauthorizedResponse = problemResponse('Missing or wrong bearer token');
export const notFoundResponse = problemResponse('No such run');

/** What a path parameter that is not valid percent-encoded UTF-8 is answered with (by the router). */
export const BAD_PARAM = 'a path parameter is not valid percent-encoded UTF-8';

/**
 * Statuses any route may answer besides its own: headers too large (refused by Node before any
 * routing, so on every route alike), the server's own failure, and a server shutting down.
 */
export const anyRouteResponses = {
  431: problemResponse('The request line and headers are larger than the server reads'),
  500: problemResponse('The server failed to handle the request; its log has the details'),
  503: problemResponse('The server is shutting down'),
};

/** The same, for a route that needs the token. */
export const tokenRouteResponses = { 401: unauthorizedResponse, ...anyRouteResponses };

/** A route with a path parameter: the router refuses one too long or badly encoded before the route runs. */
export const pathParamResponses = {
  400: problemResponse(`The path parameter is not valid: ${BAD_PARAM}`),
  414: problemResponse(`A path parameter is longer than ${MAX_PARAM_LENGTH} characters`),
};

/** Aborted when the client closes the connection before its answer is sent: a render it asked for may be dropped. */
export function clientGone(reply: FastifyReply): AbortSignal {
  const gone = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) gone.abort(new Error('the client closed the connection'));
  });
  return gone.signal;
}

/** The statuses of a route whose answer is rendered within the report budgets (report-renderer.ts). */
export const renderBudgetResponses = {
  422: problemResponse("The answer is over one of the service's report budgets (report-too-large; field names the budget: --report-timeout, --report-memory or --report-max-size)"),
  429: problemResponse('Too many reports are waiting to be rendered (report-queue-full, with Retry-After)'),
};
