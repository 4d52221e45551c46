/**
 * /v1/studies: compare volume types with one call. POST starts a study on the library's machine
 * (the code `fleet compare` runs) and answers 202 with its id, plan and estimate; GET lists them
 * and says where one is (its step, each member's progress, its results so far); DELETE cancels
 * one and tears it down. Every route needs the study token; on a service started without
 * --studies each answers 403.
 */
import { z } from 'zod';

import { jsonResponse, problemResponse } from '../../api/problem.js';
import { STUDY_SHAPE, studyCreatedSchema, studyListSchema, studyRequestSchema, studySchema, type StudyRequest } from '../../api/study.js';
import { studiesDisabled } from '../problems/service-problems.js';
import type { StudyService } from '../studies/study-service.js';
import { studyLinks } from '../studies/study-view.js';
import { BAD_PARAM, pathParamResponses, tokenRouteResponses } from './common.js';
import type { RouteDeps, ZodApp } from './types.js';

export const studyParams = z.object({ id: z.string().describe('Study id (the fleet id, vb + 10 hex digits)') });

export const studyTokenResponses = {
  ...tokenRouteResponses,
  401: problemResponse('Missing or wrong study token (the service\'s --study-token-file, not the run token)'),
  403: problemResponse('Studies are off on this service (started without --studies): studies-disabled'),
};

export const studyNotFoundResponse = problemResponse('This service started no such study');

/** The service's studies, or 403 when it was started without --studies. */
export function studiesOf(deps: RouteDeps): StudyService {
  if (!deps.studies) throw studiesDisabled();
  return deps.studies;
}

const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(40).optional().describe('next_cursor of the previous page'),
});

export function registerStudyRoutes(app: ZodApp, deps: RouteDeps): void {
  app.post('/v1/studies', {
    schema: {
      summary: 'Start a study: the comparison of volume types, one instance per volume',
      description: `Body: ${STUDY_SHAPE}. The study is checked (each value as fleet plan checks it, then the service's limits, then ` +
        "preflight in the account) before anything is made, then started; it goes on without the client: follow it with GET, its events, " +
        'and fetch its report once done. AWS deletes its stacks at its expiry whatever happens to the service.',
      tags: ['studies'],
      body: studyRequestSchema,
      response: {
        202: jsonResponse('Started: its id, its plan (each test\'s entitlement, findings, estimated cost) and links; Location names it', studyCreatedSchema),
        ...studyTokenResponses,
        400: problemResponse('A value is not valid (the CLI\'s error for it: EVOLUME_SYNTAX, EVOLUME_TYPE, EVOLUME_LIMIT, EVOLUME_PLACEMENT, EINVALID_ARGS, ...), naming the field'),
        403: problemResponse('Studies are off (studies-disabled), or the region, instance type, volume type or bucket is not one this service allows (study-not-allowed, naming the limit)'),
        409: problemResponse('Another driver holds the study\'s lease (ESTUDY_LEASED)'),
        413: problemResponse('The body is larger than the server accepts'),
        415: problemResponse('The body is not application/json'),
        422: problemResponse('Over --study-max-cost (study-over-cost, with estimated_usd), over --study-max-concurrent (too-many-studies), no bundle for the ' +
          "members' architecture (no-study-package), or the account cannot hold it (EPREFLIGHT: no default VPC, the type not offered, the bucket's key)"),
        502: problemResponse('An AWS call failed (ECLOUD, naming the action)'),
      },
    },
  }, async (request, reply) => {
    const studies = studiesOf(deps);
    const { id, plan } = await studies.create(request.body as StudyRequest);
    const links = studyLinks(id);
    return reply.code(202).header('location', links.self).send({ id, step: 'planned', plan: JSON.parse(JSON.stringify(plan)), links });
  });

  app.get('/v1/studies', {
    schema: {
      summary: 'The studies this service started, newest first',
      tags: ['studies'],
      querystring: listQuery,
      response: { 200: jsonResponse('A page of studies', studyListSchema), 400: problemResponse('A query parameter is invalid'), ...studyTokenResponses },
    },
  }, async (request) => studiesOf(deps).list(request.query.limit, request.query.cursor));

  app.get('/v1/studies/:id', {
    schema: {
      summary: 'A study: its step, each member\'s stack and progress, its results so far, its ETA',
      tags: ['studies'],
      params: studyParams,
      response: {
        200: jsonResponse('The study, read from its state in S3', studySchema),
        ...pathParamResponses,
        ...studyTokenResponses,
        404: studyNotFoundResponse,
        422: problemResponse('Its state in S3 is not one volbench wrote (EFLEET_STATE)'),
        502: problemResponse('An AWS call failed (ECLOUD)'),
      },
    },
  }, async (request) => studiesOf(deps).view(request.params.id));

  app.delete('/v1/studies/:id', {
    schema: {
      summary: 'Cancel a study and tear it down',
      description: 'Its members not yet done are cancelled, and it goes to its teardown, which deletes every stack, schedule, parameter and ' +
        'object of it but its record. Idempotent: a study that has ended is answered as it is.',
      tags: ['studies'],
      params: studyParams,
      response: {
        200: jsonResponse('The study has ended (earlier, with any step)', studySchema),
        202: jsonResponse('Cancelled: it is being torn down', studySchema),
        ...pathParamResponses,
        ...studyTokenResponses,
        400: problemResponse(`The path parameter is not valid (${BAD_PARAM}), or a JSON body does not parse`),
        404: studyNotFoundResponse,
        409: problemResponse('Another driver holds the study\'s lease (ESTUDY_LEASED)'),
        413: problemResponse('The body is larger than the server accepts'),
        415: problemResponse('A body that is neither application/json nor text/plain'),
        502: problemResponse('An AWS call failed (ECLOUD)'),
      },
    },
  }, async (request, reply) => {
    const studies = studiesOf(deps);
    const study = await studies.cancel(request.params.id);
    return reply.code(studies.isTerminal(study.step) ? 200 : 202).send(study);
  });
}
