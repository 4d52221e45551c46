/**
 * Authentication: every route but /v1/healthz needs the bearer token; a missing or wrong token
 * is a 401 problem with a WWW-Authenticate challenge. The docs page also takes the token as a
 * Basic password (what a browser can send); the API does not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import { assertMatchesOpenApi } from './helpers/openapi.js';
import { randreadSpec, startServer, type TestServer } from './helpers/server.js';

const needs = requires('tmpfs');

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server?.close());

const PROTECTED: Array<[string, string]> = [
  ['POST', '/v1/runs'],
  ['GET', '/v1/runs'],
  ['GET', '/v1/runs/x'],
  ['GET', '/v1/runs/x/result'],
  ['GET', '/v1/runs/x/events'],
  ['DELETE', '/v1/runs/x'],
  ['GET', '/v1/suites'],
  ['GET', '/v1/suites/kdiskmark'],
  ['GET', '/v1/targets'],
  ['GET', '/v1/metrics'],
  ['GET', '/v1/openapi.json'],
  ['GET', '/v1/docs'],
  ['GET', '/v1/no-such-route'],
];

describe('bearer token', () => {
  it.each(PROTECTED)('%s %s without a token is 401', async (method, path) => {
    const res = await server.client.withToken(null).request(method, path, method === 'POST' ? { json: randreadSpec() } : {});
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(res.body).toMatchObject({ status: 401, type: 'urn:volbench:problem:unauthorized' });
    expect(res.headers.get('www-authenticate')).toMatch(/^(Bearer|Basic) realm="volbench"/);
  });

  it.each(PROTECTED)('%s %s with a wrong token is 401', async (method, path) => {
    const res = await server.client.withToken(`${server.token}x`).request(method, path);
    expect(res.status).toBe(401);
  });

  it('a token of another length, an empty one and another scheme are 401 too', async () => {
    for (const authorization of ['Bearer x', 'Bearer ', 'Bearer', `Token ${server.token}`, `bearer${server.token}`]) {
      const res = await server.client.withToken(null).request('GET', '/v1/runs', { headers: { authorization } });
      expect(res.status, authorization).toBe(401);
    }
  });

  it('the API refuses Basic auth even with the right token as password', async () => {
    const basic = Buffer.from(`user:${server.token}`).toString('base64');
    const res = await server.client.withToken(null).request('GET', '/v1/runs', { headers: { authorization: `Basic ${basic}` } });
    expect(res.status).toBe(401);
    assertMatchesOpenApi('GET', '/v1/runs', res);
  });

  it('the scheme name is case-insensitive, as HTTP says', async () => {
    const res = await server.client.withToken(null).request('GET', '/v1/runs', { headers: { authorization: `bearer ${server.token}` } });
    expect(res.status).toBe(200);
  });

  it('/v1/healthz needs no token', async () => {
    const res = await server.client.withToken(null).get('/v1/healthz');
    expect(res.status).toBe(200);
    assertMatchesOpenApi('GET', '/v1/healthz', res);
    expect(res.body.status).toBe('ok');
  });
});

describe('docs page', () => {
  it('is served from this server (no CDN) to Bearer or Basic with the token', async () => {
    const basic = Buffer.from(`any:${server.token}`).toString('base64');
    const page = await server.client.withToken(null).request('GET', '/v1/docs/', { headers: { authorization: `Basic ${basic}` } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.text).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)[^"' ]+\.(js|css)/);
    const script = await server.client.get('/v1/docs/static/swagger-ui-bundle.js');
    expect(script.status).toBe(200);
    const doc = await server.client.get('/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
  });

  it('answers a browser without credentials with a Basic challenge', async () => {
    const res = await server.client.withToken(null).get('/v1/docs/');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm="volbench"/);
  });
});
