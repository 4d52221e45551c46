/**
 * Every error leaves as application/problem+json, never as a stack trace: problems the service
 * and the library raise keep their status, request validation names the offending field, and
 * Fastify's own refusals (body too large, wrong media type, broken JSON, a path parameter too
 * long or badly encoded) keep theirs. So do the refusals that come before Fastify has a request
 * at all: Node's HTTP parser refusing headers too large, answered here on the socket.
 */
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';

import { HttpProblem, INTERNAL_PROBLEM, knownProblem, PROBLEM_CONTENT_TYPE, problemType, type Problem } from '../problems/http-problem.js';
import { shuttingDown } from '../problems/service-problems.js';
import { isSuiteBody, SPEC_SHAPE, SUITE_SHAPE } from '../../api/run-request.js';
import { ANALYSIS_SHAPE, isAnalysisBody } from '../../api/analysis-request.js';
import { ownValue } from '../../own-key.js';
import { STUDY_SHAPE } from '../../api/study.js';
import { isStudyRoute } from './auth.js';
import { MAX_PARAM_LENGTH } from '../routes/common.js';

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
function validationProblem(err: FastifyError & { validation: ValidationIssue[] }, body: unknown, route: string): Problem {
  const issue = err.validation[0];
  const context = (err as { validationContext?: string }).validationContext ?? 'body';
  const path = fieldFromPointer(issuePointer(issue));
  const field = context === 'body' ? path || 'body' : `${context === 'querystring' ? 'query' : context}${path ? `.${path}` : ''}`;
  if (context === 'body' && isStudyRoute(route)) {
    return { type: problemType('invalid-request'), title: 'Invalid request', status: 400, detail: `${field}: ${issue.message ?? 'invalid'}`, field, code: 'EINVALID_ARGS', accepted: STUDY_SHAPE };
  }
  return {
    type: problemType(context === 'body' ? 'invalid-spec' : 'invalid-request'),
    title: context === 'body' ? 'Invalid spec' : 'Invalid request',
    status: 400,
    detail: `${field}: ${issue.message ?? 'invalid'}`,
    field,
    ...(context === 'body' ? { code: 'EINVALID_SPEC', accepted: isAnalysisBody(body) ? ANALYSIS_SHAPE : isSuiteBody(body) ? SUITE_SHAPE : SPEC_SHAPE } : {}),
  };
}

/** `detail` replaces Fastify's message where that echoes the whole URL back. */
const FASTIFY_CODES: Record<string, { slug: string; title: string; detail?: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { slug: 'body-too-large', title: 'Request body too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { slug: 'unsupported-media-type', title: 'Unsupported media type' },
  FST_ERR_CTP_INVALID_JSON_BODY: { slug: 'invalid-json', title: 'Invalid JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { slug: 'invalid-json', title: 'Invalid JSON' },
  FST_ERR_MAX_PARAM_LENGTH: {
    slug: 'uri-too-long',
    title: 'URI too long',
    detail: `a path parameter is longer than the ${MAX_PARAM_LENGTH} characters this server takes`,
  },
  FST_ERR_BAD_URL: { slug: 'invalid-url', title: 'Invalid URL', detail: 'a path parameter is not valid percent-encoded UTF-8' },
};

function fastifyProblem(err: FastifyError): Problem | null {
  const status = err.statusCode ?? 0;
  if (status < 400 || status >= 500) return null;
  const known = err.code ? ownValue(FASTIFY_CODES, err.code) : undefined;
  return {
    type: problemType(known?.slug ?? 'bad-request'),
    title: known?.title ?? 'Bad request',
    status,
    detail: known?.detail ?? err.message,
  };
}

/** What Node's HTTP parser refused, before there was a request to route. */
function clientErrorProblem(code: string | undefined): Problem {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return {
      type: problemType('headers-too-large'),
      title: 'Request header fields too large',
      status: 431,
      detail: `the request line and headers are larger than the ${maxHeaderSize} bytes this server reads`,
    };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { type: problemType('request-timeout'), title: 'Request timeout', status: 408, detail: 'the request did not arrive in time' };
  }
  return { type: problemType('malformed-request'), title: 'Malformed request', status: 400, detail: 'the request is not valid HTTP/1.1' };
}

/**
 * Fastify's clientErrorHandler (http.Server's 'clientError'): Node has no request or reply to
 * give here, only the socket, so the response is written on it as Node itself would, then the
 * connection closes (the parser cannot go on after an error).
 */
export function answerClientError(this: FastifyInstance, err: Error & { code?: string }, socket: Socket): void {
  // A connection reset or already gone has nobody left to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const problem = clientErrorProblem(err.code);
  // The code only: the error carries the raw bytes of the request, its Authorization header too.
  this.log.debug({ code: err.code }, 'client error');
  const body = JSON.stringify(problem);
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\n` +
      `Content-Type: ${PROBLEM_CONTENT_TYPE}; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}

/** Fastify's frameworkErrors: what the router refuses before a route runs (414, a bad URL). */
export function answerFrameworkError(err: FastifyError, _request: unknown, reply: FastifyReply): void {
  sendProblem(reply, fastifyProblem(err) ?? INTERNAL_PROBLEM);
}

export function sendProblem(reply: FastifyReply, problem: Problem, headers: Record<string, string> = {}): FastifyReply {
  return reply.code(problem.status).headers(headers).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem));
}

/**
 * Fastify answers requests that arrive while it closes with a 503 of its own unless told not
 * to (return503OnClosing: false); this answers them as a problem instead, before auth.
 */
function refuseWhileClosing(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async () => {
    if (closing) throw shuttingDown();
  });
}

export function registerErrorHandling(app: FastifyInstance): void {
  refuseWhileClosing(app);
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const problem =
      knownProblem(err) ??
      (hasZodFastifySchemaValidationErrors(err) ? validationProblem(err, request.body, request.routeOptions.url ?? '') : null) ??
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
