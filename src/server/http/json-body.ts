/**
 * JSON bodies, parsed as Fastify does (its prototype-poisoning checks included) after a linear
 * scan that refuses nesting deeper than any request of this API needs. 1 MiB of `[` kept the
 * event loop busy for a quarter of a second inside JSON.parse; the scan refuses it in about a
 * millisecond.
 */
import type { FastifyInstance } from 'fastify';

import { HttpProblem } from '../problems/http-problem.js';

/** A spec is three levels deep ({ jobs: [ { ... } ] }); nothing this API takes needs more than a few. */
export const MAX_JSON_DEPTH = 32;

/** Whether `text` nests arrays and objects deeper than `max`, strings skipped. */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

export function registerJsonBodies(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (nestsDeeperThan(body as string, MAX_JSON_DEPTH)) {
      done(new HttpProblem(400, 'invalid-json', 'Invalid JSON', `the body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`, {
        field: 'body',
        accepted: `JSON nested at most ${MAX_JSON_DEPTH} levels deep`,
      }), undefined);
      return;
    }
    parse(request, body as string, done);
  });
}
