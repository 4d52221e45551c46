import { z } from 'zod';

import { jobSpecSchema } from '../jobspec/index.js';
import { assertionOutcomeSchema, gateSchema } from './assertion.js';
import { fioResultSchema } from './fio-result.js';
import { problemSchema } from './problem.js';
import { named } from './registry.js';
import { runAnalysisSchema } from './analysis-request.js';
import { runVolumeSchema } from './run-request.js';

/** The library's spec schema, named for the document. */
export const specSchema = named('JobSpec', jobSpecSchema);

export const RUN_STATUSES = ['queued', 'running', 'finished', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const runStatusSchema = named(
  'RunStatus',
  z.enum(RUN_STATUSES).describe(
    'queued → running → finished (every job ran clean) | failed (refused at start, a job ended with an I/O error, ' +
      'or the server stopped mid-run: reason "interrupted") | cancelled (DELETE). Assertions do not change it: ' +
      'a run whose assertions fail is finished, with gate "failed"',
  ),
);

export const directionRateSchema = named(
  'DirectionRate',
  z.object({
    iops: z.number(),
    bw_bytes: z.number().describe('bytes per second'),
    clat_mean_ns: z.number(),
    clat_p99_ns: z.number(),
  }).describe('One direction over the last second'),
);

export const suiteTestSchema = named(
  'SuiteTest',
  z.object({
    test: z.int().describe('1-based'),
    tests: z.int(),
    loop: z.int().describe('1-based'),
    loops: z.int(),
    jobs: z.array(z.string()).describe('Job names of the test'),
    fraction: z.number().optional().describe('Share of the whole suite done, 0..1 (progress events only)'),
    eta_ms: z.number().nullable().optional()
      .describe('Ms until the whole suite ends, from what each remaining run should take; null while unknown (progress events only)'),
  }).describe('The test and loop of a suite run that started last'),
);

export const analysisStepSchema = named(
  'AnalysisStep',
  z.object({
    analysis: z.string(),
    step: z.int().describe('1-based: the sweep point, the uniformity chunk, or the reads timed so far'),
    steps: z.int(),
  }).describe('Where an analysis run is: its current point, chunk or batch of reads'),
);

export const layoutProgressSchema = named(
  'LayoutProgress',
  z.object({
    path: z.string().describe('The file being laid out'),
    file: z.int().describe('1-based: which of the files laid out so far in this stage'),
    done_bytes: z.number(),
    total_bytes: z.number().describe('What the layout writes or allocates'),
    bytes_per_sec: z.number().nullable().describe('The layout\'s rate so far; null before it has written anything'),
  }).describe("A stage's file layout, while it runs (the stage's jobs wait for it)"),
);

export const progressSchema = named(
  'RunProgress',
  z.object({
    stage: z.int().describe('Stonewall stage running now, 0-based'),
    stages: z.int(),
    elapsed_ms: z.number().describe('Time in the current stage'),
    fraction: z.number().describe('Share of the current stage done, 0..1'),
    eta_ms: z.number().nullable().describe('Ms until the stage ends: its layout, then what each job has left (a time_based job its runtime); null while unknown'),
    layout: layoutProgressSchema.optional().describe('While the stage lays out its files'),
    read: directionRateSchema,
    write: directionRateSchema,
    trim: directionRateSchema,
    suite_test: suiteTestSchema.optional().describe('Suite runs only'),
    analysis_step: analysisStepSchema.optional().describe('Analysis runs only'),
  }),
);

export const runLinksSchema = named(
  'RunLinks',
  z.object({ self: z.string(), result: z.string(), events: z.string() }),
);

const timestamp = z.string().describe('ISO 8601, UTC');

export const runSuiteSchema = named(
  'RunSuite',
  z.object({
    name: z.string(),
    loops: z.int().describe('Runs of each test'),
    directory: z.string().optional(),
    filename: z.string().optional(),
    runtime: z.union([z.string(), z.number()]).optional(),
    size: z.union([z.string(), z.number()]).optional(),
  }).describe('The suite and the overrides the run was submitted with'),
);

const runFields = {
  id: z.string(),
  status: runStatusSchema,
  targets: z.array(z.string()).describe('Target roots the run uses'),
  created_at: timestamp,
  started_at: timestamp.nullable(),
  finished_at: timestamp.nullable(),
  error: problemSchema.nullable().describe('Why the run failed (reason "interrupted" when the server stopped mid-run)'),
  suite: runSuiteSchema.nullable().describe('The suite, for a suite run'),
  analysis: runAnalysisSchema.nullable().describe('The analysis and its settings, for an analysis run'),
  gate: gateSchema
    .nullable()
    .describe('Whether the assertions held on the result; null without assertions, before the run ends, or when it ended without a result'),
  links: runLinksSchema,
};

const directionSchema = z.enum(['read', 'write', 'trim']);

/** What the full views add: the run in words, the submission and the outcome of its assertions. */
const runDetailFields = {
  title: z.string().describe('What ran, on which target and volume: `rr: randread bs=4k iodepth=32 on /data (gp3 500 GiB, 6000 IOPS)`'),
  what_ran: z.string().describe('The jobs, suite or analysis: `rr: randread bs=4k iodepth=32`, `suite kdiskmark (8 tests)`'),
  target_text: z.string().describe('The paths the run names, else its target roots'),
  volume_text: z.string().nullable().describe('The volume as submitted, in words (`gp3 500 GiB, 6000 IOPS on m6i.large`), or null'),
  directions: z.array(directionSchema).describe("The directions the run's jobs do (rw and rwmixread as the engine reads them)"),
  job_directions: z.record(z.string(), z.array(directionSchema)).describe("Each job's directions, by job name"),
  spec: specSchema.describe(
    "The spec as submitted; for a suite run, the suite's job file with the overrides applied; for an analysis run, its largest single run",
  ),
  assert: z.array(z.string()).describe('The assertions as submitted'),
  volume: runVolumeSchema.nullable().describe('The volume as submitted, or null'),
  volume_label: z.string().nullable().describe("The volume as a report row names it (gp3 500 GiB 3000/125: its provisioned figures resolved), or null"),
  assertions: z.array(assertionOutcomeSchema).describe("Their outcomes once the run has a result (also in fio's JSON under volbench.assertions)"),
};

export const runSummarySchema = named('RunSummary', z.object(runFields));

export const runSchema = named(
  'Run',
  z.object({
    ...runFields,
    ...runDetailFields,
    progress: progressSchema.nullable().describe('Last progress report while running; the last one after'),
  }),
);

export const runWithResultSchema = named(
  'RunWithResult',
  z.object({
    ...runFields,
    ...runDetailFields,
    progress: progressSchema.nullable(),
    result: fioResultSchema.nullable().describe("fio's JSON (json form), null when the run produced none"),
  }),
);

export const runAcceptedSchema = named(
  'RunAccepted',
  z.object({ id: z.string(), status: runStatusSchema, links: runLinksSchema }),
);

export const runListSchema = named(
  'RunList',
  z.object({
    runs: z.array(runSummarySchema).describe('Newest first'),
    next_cursor: z.string().nullable().describe('Pass as ?cursor= for the next page; null on the last page'),
  }),
);

export type RunSummaryBody = z.infer<typeof runSummarySchema>;
export type RunBody = z.infer<typeof runSchema>;
export type RunProgressBody = z.infer<typeof progressSchema>;
export type RunSuiteBody = z.infer<typeof runSuiteSchema>;
export type SuiteTestBody = z.infer<typeof suiteTestSchema>;
