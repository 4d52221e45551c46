/**
 * Regression: some refusals left as Fastify's or Node's own JSON, or with a status openapi.yaml
 * does not list: an over-long path parameter (414, FST_ERR_MAX_PARAM_LENGTH), headers too large
 * (431, answered by Node before Fastify sees the request), a path parameter that is not valid
 * URL encoding (400, FST_ERR_BAD_URL), a bad ?format= on the result route (400, undocumented),
 * a body on DELETE in a media type nobody accepts (415, undocumented), a request that arrives
 * while the server closes (Fastify's own 503), and an over-long job name (422 without a field).
 * Expected: each is application/problem+json with type, title, status, detail (and field where
 * a field is at fault), and its status is documented for the route in openapi.yaml.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

import { requires } from '../helpers/requires.js';
import { assertMatchesOpenApi, OPENAPI_PATH } from './helpers/openapi.js';
import { startServer, type ApiResponse, type TestServer } from './helpers/server.js';

const needs = requires('tmpfs');

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server?.close());

/** Checks the response is a documented problem of this status and returns its body. */
function problem(method: string, route: string, res: ApiResponse, status: number): any {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  assertMatchesOpenApi(method, route, res);
  expect(res.body).toMatchObject({ status, type: expect.stringMatching(/^urn:volbench:problem:[a-z-]+$/) });
  expect(res.body.title).toBeTruthy();
  expect(res.body.detail).toBeTruthy();
  return res.body;
}

const long = 'x'.repeat(200);

describe('refusals before a route is reached', () => {
  it('an over-long path parameter is 414 on every route that has one', async () => {
    for (const [path, route] of [
      [`/v1/runs/${long}`, '/v1/runs/{id}'],
      [`/v1/runs/${long}/result`, '/v1/runs/{id}/result'],
      [`/v1/runs/${long}/events`, '/v1/runs/{id}/events'],
      [`/v1/suites/${long}`, '/v1/suites/{name}'],
    ]) {
      const body = problem('GET', route, await server.client.get(path), 414);
      expect(body.type).toBe('urn:volbench:problem:uri-too-long');
      expect(body.detail).not.toContain(long);
    }
    problem('DELETE', '/v1/runs/{id}', await server.client.request('DELETE', `/v1/runs/${long}`), 414);
  });

  it('a path parameter that is not valid URL encoding is 400', async () => {
    const body = problem('GET', '/v1/runs/{id}', await server.client.get('/v1/runs/%E0%A4%A'), 400);
    expect(body.type).toBe('urn:volbench:problem:invalid-url');
  });

  it('headers larger than Node reads are 431, a URL that long too', async () => {
    const headers = await server.client.request('GET', '/v1/runs', { headers: { 'x-padding': 'y'.repeat(20_000) } });
    expect(problem('GET', '/v1/runs', headers, 431).type).toBe('urn:volbench:problem:headers-too-large');
    const url = await server.client.get(`/v1/runs?target=${'y'.repeat(20_000)}`);
    problem('GET', '/v1/runs', url, 431);
    const health = await server.client.withToken(null).request('GET', '/v1/healthz', { headers: { 'x-padding': 'y'.repeat(20_000) } });
    problem('GET', '/v1/healthz', health, 431);
  });
});

describe('refusals by a route', () => {
  it('a ?format= the result route does not know is 400 naming query.format', async () => {
    const body = problem('GET', '/v1/runs/{id}/result', await server.client.get('/v1/runs/some-id/result?format=xml'), 400);
    expect(body.field).toBe('query.format');
  });

  it('a body on DELETE in a media type nobody accepts is 415', async () => {
    const res = await server.client.request('DELETE', '/v1/runs/some-id', { text: '<x/>', headers: { 'content-type': 'application/xml' } });
    problem('DELETE', '/v1/runs/{id}', res, 415);
  });

  it('an over-long job name is 422 naming a field', async () => {
    const res = await server.client.submit({ jobs: [{ name: 'n'.repeat(300), rw: 'read', bs: '4k', size: '1m' }] });
    const body = problem('POST', '/v1/runs', res, 422);
    expect(body.field).toMatch(/^jobs\[0\]\./);
  });
});

describe('a server that is closing', () => {
  it('answers a request that arrives meanwhile with 503 problem+json', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Holds the close open, after the service's own preClose, until the request is answered.
    const closing = await startServer({ beforeListen: (app) => app.addHook('preClose', () => held) });
    const closed = closing.close();
    try {
      const body = problem('GET', '/v1/runs', await closing.client.get('/v1/runs'), 503);
      expect(body.type).toBe('urn:volbench:problem:shutting-down');
    } finally {
      release();
      await closed;
    }
  });
});

describe('openapi.yaml', () => {
  const doc = parse(readFileSync(OPENAPI_PATH, 'utf8'));
  const operations = Object.entries(doc.paths as Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown[] }>>)
    .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, path, op })));

  it('lists 431, 500 and 503 for every route, 401 for every route that needs the token, 400 and 414 for every path parameter', () => {
    for (const { name, path, op } of operations) {
      const expected = ['431', '500', '503'];
      if (op.security?.length !== 0) expected.push('401');
      if (path.includes('{')) expected.push('400', '414');
      expect({ name, statuses: expected.filter((s) => !(s in op.responses)) }).toEqual({ name, statuses: [] });
    }
  });
});
