/**
 * GET /v1/suites and GET /v1/suites/{name}: the shipped suites with their fio job files, so a
 * client can see what a suite run will do (and which job names its assertions may use).
 */
import { z } from 'zod';

import { listSuites, loadSuite, type Suite } from '../../suites/index.js';
import { jsonResponse, problemResponse } from '../../api/problem.js';
import { suiteListSchema, suiteSchema, type SuiteBody } from '../../api/suite.js';
import { pathParamResponses, tokenRouteResponses } from './common.js';
import type { RouteDeps, ZodApp } from './types.js';
import { suiteNotFound } from '../problems/service-problems.js';

function suiteView(suite: Suite): SuiteBody {
  return {
    name: suite.name,
    title: suite.title,
    source: suite.source,
    loops: suite.loops,
    target: suite.target === 'block-device' ? 'block_device' : 'any',
    file: suite.file,
    jobs: suite.spec.jobs.map((job) => String(job.name)),
    job_file: suite.text,
  };
}

/** The suites ship with the package and do not change while it runs: read once. */
let views: SuiteBody[] | null = null;

function suiteViews(): SuiteBody[] {
  views ??= listSuites().map((s) => suiteView(loadSuite(s.name)));
  return views;
}

export function registerSuiteRoutes(app: ZodApp, _deps: RouteDeps): void {
  app.get('/v1/suites', {
    schema: {
      summary: 'The shipped suites, with their fio job files',
      tags: ['suites'],
      response: { 200: jsonResponse('Every suite, in the order volbench suite --list prints them', suiteListSchema), ...tokenRouteResponses },
    },
  }, async () => ({ suites: suiteViews() }));

  app.get('/v1/suites/:name', {
    schema: {
      summary: 'One suite, with its fio job file',
      tags: ['suites'],
      params: z.object({ name: z.string().describe('Suite name') }),
      response: { 200: jsonResponse('The suite', suiteSchema), ...pathParamResponses, ...tokenRouteResponses, 404: problemResponse('No such suite') },
    },
  }, async (request) => {
    const suite = suiteViews().find((s) => s.name === request.params.name);
    if (suite === undefined) throw suiteNotFound(request.params.name, suiteViews().map((s) => s.name));
    return suite;
  });
}
