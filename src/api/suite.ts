import { z } from 'zod';

import { named } from './registry.js';

export const suiteSchema = named(
  'Suite',
  z
    .object({
      name: z.string().describe('What POST /v1/runs takes as "suite"'),
      title: z.string().describe('What the suite measures, in one line'),
      source: z.string().describe('Where its tests come from'),
      loops: z.int().describe('Runs of each test by default; the result keeps the best'),
      target: z.enum(['any', 'block_device']).describe('any: a directory or a file; block_device: a whole block device as filename'),
      file: z.string().describe("The job file's name in the package's suites/ directory"),
      jobs: z.array(z.string()).describe('Job names in run order: the names assertions use'),
      job_file: z.string().describe('The fio job file as shipped (fio runs it too)'),
    })
    .describe('A shipped suite: a fio job file and how volbench runs it'),
);

export const suiteListSchema = named('SuiteList', z.object({ suites: z.array(suiteSchema) }));

export type SuiteBody = z.infer<typeof suiteSchema>;
