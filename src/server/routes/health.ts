/** GET /v1/healthz (no token: for load balancers) and GET /v1/metrics (Prometheus text). */
import { z } from 'zod';

import { VERSION } from '../../version.js';
import { jsonResponse } from '../../api/problem.js';
import { named } from '../../api/registry.js';
import { anyRouteResponses, tokenRouteResponses } from './common.js';
import type { RouteDeps, ZodApp } from './types.js';

const healthSchema = named('Health', z.object({ status: z.literal('ok'), version: z.string() }));

export function registerHealthRoutes(app: ZodApp, { service }: RouteDeps): void {
  app.get('/v1/healthz', {
    schema: { summary: 'Liveness; needs no token', tags: ['service'], security: [], response: { 200: jsonResponse('The service is up', healthSchema), ...anyRouteResponses } },
  }, async () => ({ status: 'ok' as const, version: VERSION }));

  app.get('/v1/metrics', {
    schema: {
      summary: 'Prometheus metrics',
      tags: ['service'],
      response: {
        200: { description: 'Prometheus text exposition format', content: { 'text/plain': { schema: z.string() } } },
        ...tokenRouteResponses,
      },
    },
  }, async (_request, reply) => reply.type(service.metrics.contentType).send(await service.metrics.text()));
}
