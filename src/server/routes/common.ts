/** Pieces several routes share: the run id parameter, its 404, and problem responses. */
import { z } from 'zod';

import { runNotFound } from '../problems.js';
import { problemResponse } from '../schemas/problem.js';
import type { RunService } from '../run-service.js';
import type { RunRow } from '../store/runs.js';

export const runParams = z.object({ id: z.string().describe('Run id') });

export function getRunOr404(service: RunService, id: string): RunRow {
  const run = service.get(id);
  if (run === null) throw runNotFound(id);
  return run;
}

export const unauthorizedResponse = problemResponse('Missing or wrong bearer token');
export const notFoundResponse = problemResponse('No such run');
