/**
 * The web view's files: served without the token (they hold no secret), each from a fixed
 * list; any other path, however spelled, is not a file the service will read.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ROOT } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';
import { startServer, type TestServer } from './helpers/server.js';

const needs = requires('child', 'tmpfs');

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server?.close());

describe('web view files', () => {
  it('serves the page, its script and style and ECharts without the token, with a strict CSP', async () => {
    const anonymous = server.client.withToken(null);
    const page = await anonymous.get('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.text).toBe(readFileSync(join(ROOT, 'web', 'index.html'), 'utf8'));
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    const modules = ['app', 'common', 'describe', 'live', 'reports', 'run-page'].map((m): [string, string] => [`/web/${m}.js`, 'text/javascript']);
    const files: Array<[string, string]> = [...modules, ['/web/app.css', 'text/css'], ['/web/echarts.min.js', 'text/javascript']];
    for (const [path, type] of files) {
      const res = await anonymous.get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe(`${type}; charset=utf-8`);
    }
    expect((await anonymous.get('/web/echarts.min.js')).text.length).toBeGreaterThan(500_000);
  });

  it('reads no other path: traversal and other names are unknown routes, behind the token', async () => {
    const anonymous = server.client.withToken(null);
    for (const path of ['/web/../package.json', '/web/%2e%2e/package.json', '/web/index.html', '/web/', '/web/app.js/', '/index.html', '/web/..%2fpackage.json']) {
      const res = await anonymous.get(path);
      expect(res.status, path).toBe(401);
      expect(res.text).not.toContain('"name": "volbench"');
    }
    const withToken = await server.client.get('/web/..%2fpackage.json');
    expect(withToken.status).toBe(404);
  });

  it('keeps the web files out of the API description', async () => {
    const doc = await server.client.get('/v1/openapi.json');
    expect(Object.keys(doc.body.paths).filter((p) => p === '/' || p.startsWith('/web'))).toEqual([]);
  });
});
