/**
 * GET /v1/runs: newest first, filtered by status, target root and gate outcome, in pages. The cursor is the
 * position after the last run of a page, so pages stay stable while new runs arrive.
 */
import { z } from 'zod';

import { runSummaryView } from '../runs/run-view.js';
import { GATES } from '../../api/assertion.js';
import { jsonResponse, problemResponse } from '../../api/problem.js';
import { runListSchema, runStatusSchema } from '../../api/run.js';
import { tokenRouteResponses } from './common.js';
import type { RouteDeps, ZodApp } from './types.js';
import { invalidRequest } from '../problems/service-problems.js';

const listQuery = z.object({
  status: runStatusSchema.optional(),
  target: z.string().optional().describe('Only runs that use this target root'),
  gate: z.enum(GATES).optional().describe('Only runs whose assertions all held (passed) or did not (failed)'),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().optional().describe('next_cursor of the previous page'),
});

export function encodeCursor(seq: number): string {
  return Buffer.from(`s${seq}`).toString('base64url');
}

export function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const seq = /^s(\d{1,15})$/.exec(text);
  if (seq === null) {
    throw invalidRequest('cursor is not one this server handed out', 'query.cursor', 'the next_cursor of a previous page');
  }
  return Number(seq[1]);
}

export function registerListRoute(app: ZodApp, { service }: RouteDeps): void {
  app.get('/v1/runs', {
    schema: {
      summary: 'List runs',
      tags: ['runs'],
      querystring: listQuery,
      response: {
        200: jsonResponse('A page of runs, newest first', runListSchema),
        400: problemResponse('A query parameter is invalid'),
        ...tokenRouteResponses,
      },
    },
  }, async (request) => {
    const { status, target, gate, limit, cursor } = request.query;
    const rows = service.list({
      limit: limit + 1,
      ...(status ? { status } : {}),
      ...(gate ? { gate } : {}),
      ...(target ? { root: target } : {}),
      ...(cursor ? { beforeSeq: decodeCursor(cursor) } : {}),
    });
    const page = rows.slice(0, limit);
    return {
      runs: page.map(runSummaryView),
      next_cursor: rows.length > limit ? encodeCursor(page[page.length - 1].seq) : null,
    };
  });
}
