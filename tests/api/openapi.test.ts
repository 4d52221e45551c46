/**
 * openapi.yaml is generated from the routes' zod schemas (`npm run openapi`). This fails when
 * the committed file and the schemas have drifted apart, and when the document is not valid
 * OpenAPI 3.1 by the specification's own JSON schema.
 */
import { readFileSync } from 'node:fs';

import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

import { openApiDocument } from '../../src/server/http/openapi-document.js';
import { requires } from '../helpers/requires.js';
import { OPENAPI_PATH } from './helpers/openapi.js';

const needs = requires('tmpfs');

describe('openapi.yaml', () => {
  it('matches what the zod schemas generate (run `npm run openapi` after changing them)', async () => {
    const committed = parse(readFileSync(OPENAPI_PATH, 'utf8'));
    expect(committed).toEqual(await openApiDocument());
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(parse(readFileSync(OPENAPI_PATH, 'utf8')));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('documents every route, the token, and problem+json for errors', () => {
    const doc = parse(readFileSync(OPENAPI_PATH, 'utf8'));
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/v1/catalog', '/v1/catalog/{provider}/{type}', '/v1/healthz', '/v1/metrics', '/v1/report', '/v1/runs', '/v1/runs/{id}', '/v1/runs/{id}/events', '/v1/runs/{id}/report', '/v1/runs/{id}/result',
      '/v1/studies', '/v1/studies/{id}', '/v1/studies/{id}/events', '/v1/studies/{id}/report', '/v1/suites', '/v1/suites/{name}', '/v1/targets',
    ]);
    // Studies: every status they answer, with the estimate a refusal carries.
    expect(Object.keys(doc.paths['/v1/studies'].post.responses).sort()).toEqual(['202', '400', '401', '403', '409', '413', '415', '422', '431', '500', '502', '503']);
    expect(Object.keys(doc.paths['/v1/studies/{id}'].delete.responses)).toEqual(expect.arrayContaining(['200', '202', '404', '409']));
    expect(doc.components.schemas.Problem.properties.estimated_usd.type).toBe('number');
    expect(doc.paths['/v1/studies'].post.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/StudyRequestInput');
    expect(doc.components.securitySchemes.bearer).toEqual({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/v1/healthz'].get.security).toEqual([]);
    expect(Object.keys(doc.paths['/v1/runs'].post.requestBody.content)).toEqual(['application/json', 'text/plain']);
    // A JSON body is a spec run, a suite run or an analysis run, each with its assertions.
    expect(doc.components.schemas.RunRequestInput.anyOf.map((s: { $ref: string }) => s.$ref)).toEqual([
      '#/components/schemas/SpecRunRequestInput', '#/components/schemas/SuiteRunRequestInput', '#/components/schemas/AnalysisRunRequestInput',
    ]);
    expect(doc.components.schemas.AnalysisRunRequestInput.oneOf.map((s: { $ref: string }) => s.$ref)).toEqual([
      '#/components/schemas/SweepRunRequestInput', '#/components/schemas/UniformityRunRequestInput', '#/components/schemas/RotationalRunRequestInput',
    ]);
    expect(doc.components.schemas.SuiteRunRequestInput.properties.suite.enum).toHaveLength(6);
    expect(doc.paths['/v1/runs'].post.responses['422'].content['application/problem+json'].schema.$ref).toBe('#/components/schemas/Problem');
  });
});
