/**
 * The service's web view at `/`: a few static files from the package's `web/` directory (the
 * page, its style, and its script as a handful of ES modules) and
 * ECharts' browser build, each at a fixed URL mapped to a fixed file. No part of a request's
 * path reaches the filesystem, and the files are read once, at start-up. The pages hold no
 * secret (the token is entered in the browser), so they are served without the token; every
 * API call they make needs it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { FastifyInstance } from 'fastify';

const WEB_DIR = fileURLToPath(new URL('../../../web/', import.meta.url));

function echartsBrowserBuild(): string {
  // The package's CommonJS entry is dist/echarts.js; its minified browser build sits beside it.
  return join(dirname(createRequire(import.meta.url).resolve('echarts')), 'echarts.min.js');
}

interface WebFile {
  file: () => string;
  type: string;
}

/** URL → file. The only files the web view serves. */
const WEB_FILES: Readonly<Record<string, WebFile>> = {
  '/': { file: () => join(WEB_DIR, 'index.html'), type: 'text/html; charset=utf-8' },
  '/web/app.js': { file: () => join(WEB_DIR, 'app.js'), type: 'text/javascript; charset=utf-8' },
  '/web/common.js': { file: () => join(WEB_DIR, 'common.js'), type: 'text/javascript; charset=utf-8' },
  '/web/describe.js': { file: () => join(WEB_DIR, 'describe.js'), type: 'text/javascript; charset=utf-8' },
  '/web/live.js': { file: () => join(WEB_DIR, 'live.js'), type: 'text/javascript; charset=utf-8' },
  '/web/reports.js': { file: () => join(WEB_DIR, 'reports.js'), type: 'text/javascript; charset=utf-8' },
  '/web/run-page.js': { file: () => join(WEB_DIR, 'run-page.js'), type: 'text/javascript; charset=utf-8' },
  '/web/studies.js': { file: () => join(WEB_DIR, 'studies.js'), type: 'text/javascript; charset=utf-8' },
  '/web/app.css': { file: () => join(WEB_DIR, 'app.css'), type: 'text/css; charset=utf-8' },
  '/web/echarts.min.js': { file: echartsBrowserBuild, type: 'text/javascript; charset=utf-8' },
};

export const WEB_PATHS: readonly string[] = Object.keys(WEB_FILES);

/**
 * Same-origin scripts, styles and API calls only; the report preview (an iframe of the
 * service's own HTML report, given as srcdoc) runs no script.
 */
const CSP = "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; frame-src 'self' blob:; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function readWebFile(file: () => string): Buffer | null {
  try {
    return readFileSync(file());
  } catch {
    return null;
  }
}

/** A copy of the package without web/ (or without ECharts) still serves the API. */
export function registerWebRoutes(app: FastifyInstance): void {
  for (const [url, { file, type }] of Object.entries(WEB_FILES)) {
    const body = readWebFile(file);
    if (body === null) {
      app.log.warn({ url }, 'web view file missing; not served');
      continue;
    }
    app.get(url, { schema: { hide: true } }, async (_request, reply) =>
      reply
        .type(type)
        .header('content-security-policy', CSP)
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', url === '/' ? 'no-cache' : 'max-age=300')
        .send(body));
  }
}
