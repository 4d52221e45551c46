/**
 * GET /v1/runs/{id}'s body, serialized once per version of a run. A running run changes about
 * once a second while pollers may ask for it hundreds of times a second; the store replaces a
 * live run's row object on every change, so the row object keys the cache. Serialization goes
 * through the route's zod serializer, so the cached text is exactly what it would send.
 */
import { serializerCompiler } from 'fastify-type-provider-zod';

import { runView } from './run-view.js';
import { runSchema } from '../../api/run.js';
import type { RunRow } from '../store/runs.js';

const serialize = serializerCompiler({ schema: runSchema, method: 'GET', url: '/v1/runs/:id', httpStatus: '200' });
const cache = new WeakMap<RunRow, string>();

export function runJson(run: RunRow): string {
  let text = cache.get(run);
  if (text === undefined) {
    text = serialize(runView(run));
    cache.set(run, text);
  }
  return text;
}
