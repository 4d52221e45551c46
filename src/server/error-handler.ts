/**
 * Every error leaves as application/problem+json, never as a stack trace: problems the service
 * and the library raise keep their status, request validation names the offending field, and
 * Fastify's own refusals (body too large, wrong media type, broken JSON) keep theirs.
 */
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';

import { HttpProblem, INTERNAL_PROBLEM, knownProblem, PROBLEM_CONTENT_TYPE, problemType, type Problem } from './problem.js';
import { isSuiteBody, SPEC_SHAPE, SUITE_SHAPE } from './schemas/run-request.js';

/** `/jobs/0/bs` → `jobs[0].bs`, the spec path style the library uses. */
export function fieldFromPointer(pointer: string): string {
  return pointer
    .split('/')
    .filter((p) => p !== '')
    .reduce((out, part) => (/^\d+$/.test(part) ? `${out}[${part}]` : out ? `${out}.${part}` : part), '');
}

interface ValidationIssue {
  instancePath: string;
  keyword?: string;
  message?: string;
  params?: { keys?: string[] };
}

/** Where an issue is; an unknown key is named itself rather than the object that holds it. */
function issuePointer(issue: ValidationIssue): string {
  const unknown = issue.keyword === 'unrecognized_keys' ? issue.params?.keys?.[0] : undefined;
  return unknown === undefined ? issue.instancePath : `${issue.instancePath}/${unknown}`;
}

/** `body` is the request's body as parsed, before validation refused it. */
function validationProblem(err: FastifyError & { validation: ValidationIssue[] }, body: unknown): Problem {
  const issue = err.validation[0];
  const context = (err as { validationContext?: string }).validationContext ?? 'body';
  const path = fieldFromPointer(issuePointer(issue));
  const field = context === 'body' ? path || 'body' : `${context === 'querystring' ? 'query' : context}${path ? `.${path}` : ''}`;
  return {
    type: problemType(context === 'body' ? 'invalid-spec' : 'invalid-request'),
    title: context === 'body' ? 'Invalid spec' : 'Invalid request',
    status: 400,
    detail: `${field}: ${issue.message ?? 'invalid'}`,
    field,
    ...(context === 'body' ? { code: 'EINVALID_SPEC', accepted: isSuiteBody(body) ? SUITE_SHAPE : SPEC_SHAPE } : {}),
  };
}

const FASTIFY_CODES: Record<string, { slug: string; title: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { slug: 'body-too-large', title: 'Request body too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { slug: 'unsupported-media-type', title: 'Unsupported media type' },
  FST_ERR_CTP_INVALID_JSON_BODY: { slug: 'invalid-json', title: 'Invalid JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { slug: 'invalid-json', title: 'Invalid JSON' },
};

function fastifyProblem(err: FastifyError): Problem | null {
  const status = err.statusCode ?? 0;
  if (status < 400 || status >= 500) return null;
  const known = err.code ? FASTIFY_CODES[err.code] : undefined;
  return {
    type: problemType(known?.slug ?? 'bad-request'),
    title: known?.title ?? 'Bad request',
    status,
    detail: err.message,
  };
}

export function sendProblem(reply: FastifyReply, problem: Problem, headers: Record<string, string> = {}): FastifyReply {
  return reply.code(problem.status).headers(headers).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem));
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const problem =
      knownProblem(err) ??
      (hasZodFastifySchemaValidationErrors(err) ? validationProblem(err, request.body) : null) ??
      fastifyProblem(err);
    if (problem === null) {
      request.log.error({ err }, 'request failed');
      return sendProblem(reply, INTERNAL_PROBLEM);
    }
    return sendProblem(reply, problem, err instanceof HttpProblem ? err.headers : {});
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, {
      type: problemType('not-found'),
      title: 'Not found',
      status: 404,
      detail: `no route ${request.method} ${request.url.split('?')[0]}`,
    }));
}
