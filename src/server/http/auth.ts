/**
 * Bearer-token authentication for every route but the health check. Tokens are compared as
 * SHA-256 digests with timingSafeEqual, so neither the token's content nor its length leaks
 * through response times. The docs page and the document it loads also take the token as the
 * password of HTTP Basic auth, which a browser can send; the API itself takes Bearer only.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

import type { FastifyInstance, FastifyRequest } from 'fastify';

import { HttpProblem } from '../problems/http-problem.js';
import { API_PREFIX } from '../runs/run-view.js';
import { unauthorized } from '../problems/service-problems.js';
import { WEB_PATHS } from './web.js';

/** The health check, and the web view's static files (its API calls need the token). */
export const PUBLIC_ROUTES: ReadonlySet<string> = new Set([`${API_PREFIX}/healthz`, ...WEB_PATHS]);

function isDocsRoute(url: string): boolean {
  return url === `${API_PREFIX}/openapi.json` || url === `${API_PREFIX}/docs` || url.startsWith(`${API_PREFIX}/docs/`);
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** The credential a request carries: the Bearer token, or (docs only) the Basic password. */
function presented(header: string | undefined, allowBasic: boolean): string | null {
  if (header === undefined) return null;
  const space = header.indexOf(' ');
  if (space < 0) return null;
  const scheme = header.slice(0, space).toLowerCase();
  const value = header.slice(space + 1).trim();
  if (scheme === 'bearer') return value;
  if (scheme === 'basic' && allowBasic) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon < 0 ? null : decoded.slice(colon + 1);
  }
  return null;
}

function refused(missing: boolean, docs: boolean): HttpProblem {
  return unauthorized(missing, docs ? 'Basic realm="volbench", charset="UTF-8"' : 'Bearer realm="volbench"');
}

/** The study routes (/v1/studies...) take the study token, which may spend money, and never the run token. */
export function isStudyRoute(route: string): boolean {
  return route === `${API_PREFIX}/studies` || route.startsWith(`${API_PREFIX}/studies/`);
}

export function registerAuth(app: FastifyInstance, token: string, studyToken?: string): void {
  const expected = digest(token);
  const studyExpected = studyToken === undefined ? undefined : digest(studyToken);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    // The matched route's pattern, not the raw URL: encoded or odd spellings of a public path
    // cannot reach a protected route, and unknown URLs need the token too (no probing).
    const route = request.routeOptions.url ?? '';
    if (PUBLIC_ROUTES.has(route)) return;
    const docs = isDocsRoute(route);
    const given = presented(request.headers.authorization, docs);
    if (given === null) throw refused(true, docs);
    // Without studies, their routes take the run token and answer 403 (studies-disabled).
    const wanted = isStudyRoute(route) && studyExpected !== undefined ? studyExpected : expected;
    if (!timingSafeEqual(digest(given), wanted)) throw refused(false, docs);
  });
}
