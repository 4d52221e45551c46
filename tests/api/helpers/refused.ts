/**
 * A submission the service must refuse: the status, a problem+json body that names the failing
 * field and matches openapi.yaml, and no run stored for it.
 */
import { expect } from 'vitest';

import { assertMatchesOpenApi } from './openapi.js';
import type { ApiClient, ApiResponse } from './server.js';

async function runCount(client: ApiClient): Promise<number> {
  return (await client.get('/v1/runs?limit=100')).body.runs.length;
}

/** Sends a POST /v1/runs through `send` and returns the problem body after checking it. */
export async function expectRefused(
  client: ApiClient,
  send: () => Promise<ApiResponse>,
  status: number,
  field: string,
): Promise<any> {
  const before = await runCount(client);
  const res = await send();
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  assertMatchesOpenApi('POST', '/v1/runs', res);
  expect(res.body.field).toBe(field);
  expect(await runCount(client)).toBe(before);
  return res.body;
}
