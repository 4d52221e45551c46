/** GET /v1/targets: each configured root and the device behind it. */
import { describeTarget } from './target-info.js';
import { jsonResponse } from '../../api/problem.js';
import { targetListSchema } from '../../api/target.js';
import { tokenRouteResponses } from './common.js';
import type { RouteDeps, ZodApp } from './types.js';

export function registerTargetsRoute(app: ZodApp, { service }: RouteDeps): void {
  app.get('/v1/targets', {
    schema: {
      summary: 'Target roots and their devices',
      tags: ['targets'],
      response: { 200: jsonResponse('Every configured root', targetListSchema), ...tokenRouteResponses },
    },
  }, async () => ({
    targets: await Promise.all(service.roots.map((root) => describeTarget(root, service.queueCounts(root.path)))),
  }));
}
