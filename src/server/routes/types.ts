import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';

import type { ReportRenderer } from '../reports/report-renderer.js';
import type { RunService } from '../runs/run-service.js';
import type { StudyService } from '../studies/study-service.js';

export type ZodApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

export interface RouteDeps {
  service: RunService;
  /** Every POST waits for its run (Lambda), as if ?wait= the longest allowed. */
  waitForEveryRun: boolean;
  /** Renders reports on threads of their own, within the service's report budgets. */
  reports: ReportRenderer;
  /** Studies, when the service was started with them (--studies). */
  studies?: StudyService;
}
