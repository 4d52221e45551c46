/**
 * The HTTP contract of studies (`/v1/studies`): what a client sends to start one, and what the
 * service answers about it. A study is the library's state machine (src/fleet/study/); these
 * schemas say it in the API's words. The service and the Lambda form both answer with them.
 */
import { z } from 'zod';

import { memberProgressSchema } from './study-objects.js';
import { named } from './registry.js';

/** The steps of a study, in order; `done` and `failed` end it. */
export const STUDY_STEPS = ['planned', 'creating', 'running', 'collecting', 'reporting', 'tearing-down', 'done', 'failed'] as const;

export const STUDY_SHAPE = '{volumes, instance, suite, region, bucket, ttl, precondition, runtime, tags}: volumes as the volume grammar ' +
  '(a list, or one comma-separated text), the rest optional';

export const studyRequestSchema = named(
  'StudyRequest',
  z.strictObject({
    volumes: z.union([z.string().min(1).max(4000), z.array(z.string().min(1).max(200)).min(1).max(16)])
      .describe('The volumes to compare, one instance each, in the volume grammar: "gp3:500g,io2:500g:iops=16000" or ["gp3:500g", "st1:2t"]'),
    instance: z.string().max(64).optional().describe('The instance type every member runs on (default m6i.large)'),
    suite: z.string().max(64).optional().describe("A shipped suite, or auto (the default): each volume's media picks its suite"),
    region: z.string().max(32).optional().describe("The AWS region (default: the service's first allowed one)"),
    bucket: z.string().max(63).optional().describe("The S3 bucket the study lives in (default: the service's)"),
    ttl: z.string().max(16).optional().describe("How long the fleet may live, 10m to 7d (default: the plan's duration twice plus 30 minutes); AWS deletes it then"),
    precondition: z.boolean().optional().describe('Write what the read tests reach before each suite (default true)'),
    runtime: z.string().max(32).optional().describe("The suites' runtime, in every test (fio's units, e.g. 60s)"),
    tags: z.record(z.string().max(128), z.string().max(256)).optional()
      .describe('Tags on every stack (and so on what it makes), e.g. {"CostCenter": "cc-42"}; keys starting aws: or volbench: are refused'),
  }).describe('A study to start: the comparison of volume types, one instance per volume'),
);

export type StudyRequest = z.infer<typeof studyRequestSchema>;

export const studyStepSchema = named(
  'StudyStep',
  z.enum(STUDY_STEPS).describe('planned → creating → running → collecting → reporting → tearing-down → done | failed (why: failure)'),
);

/** The plan as `volbench fleet plan --format json` prints it: open to what a newer plan adds. */
export const studyPlanSchema = named(
  'StudyPlan',
  z.looseObject({
    fleetId: z.string(),
    region: z.string(),
    instanceType: z.string(),
    suite: z.string(),
    members: z.array(z.looseObject({ label: z.string(), stackName: z.string() })),
    hours: z.number().describe('Wall time the estimate assumes: start-up, the workload, teardown'),
    workloadSeconds: z.number(),
    estimatedUsd: z.number().optional().describe('The whole study, every instance and volume for `hours`'),
    findings: z.array(z.looseObject({ kind: z.string(), label: z.string(), message: z.string() })),
    ttlSec: z.number(),
    warnings: z.array(z.string()),
  }).describe("The study's plan, as volbench fleet plan --format json gives it: members, each test's entitlement, findings, estimated cost"),
);

export const studyLinksSchema = z.object({
  self: z.string(),
  events: z.string(),
  report: z.string().describe('?format=html|md|csv|json'),
});

export const studyMemberSchema = named(
  'StudyMember',
  z.object({
    label: z.string(),
    volume: z.string().describe('The volume in the volume grammar'),
    suite: z.string().optional(),
    stack: z.enum(['creating', 'created', 'failed', 'deleted']).describe('Its stack, as the study last saw it'),
    instance_id: z.string().optional(),
    volume_id: z.string().optional(),
    progress: memberProgressSchema.optional().describe('What the member last wrote of its run (its progress.json)'),
    done: z.object({ status: z.enum(['ok', 'failed']), finished_at: z.string(), reason: z.string().optional(), exit_code: z.number().optional() }).optional(),
    error: z.string().optional().describe('Why it failed or was cancelled'),
    collected: z.string().optional().describe('Where its result was saved (s3://...), once collected'),
    refused: z.string().optional().describe('Its progress object is not what a member writes: why'),
  }),
);

export const studySchema = named(
  'Study',
  z.object({
    id: z.string().describe('The fleet id (vb + 10 hex digits)'),
    step: studyStepSchema,
    region: z.string(),
    instance_type: z.string(),
    bucket: z.string(),
    created_at: z.string(),
    updated_at: z.string().describe('When the step last changed'),
    expires_at: z.string().optional().describe('AWS deletes every stack then, whatever happens to the service'),
    failure: z.string().optional(),
    estimated_usd: z.number().optional(),
    eta_s: z.number().optional().describe('Seconds the slowest member expects are left of its run, while they run'),
    percent: z.number().optional().describe('The members\' runs done, on average, 0..100'),
    lease: z.object({ holder: z.string(), expires_at: z.string() }).optional().describe('Who drives it, until when'),
    members: z.array(studyMemberSchema),
    links: studyLinksSchema,
  }).describe('A study: where its machine is, each member, and links to its events and report'),
);

export type StudyBody = z.infer<typeof studySchema>;

export const studyCreatedSchema = named(
  'StudyCreated',
  z.object({
    id: z.string(),
    step: studyStepSchema,
    plan: studyPlanSchema,
    links: studyLinksSchema,
  }).describe('A study accepted: its id, its plan and estimate, and where to follow it (also in Location)'),
);

export const studySummarySchema = named(
  'StudySummary',
  z.object({
    id: z.string(),
    step: studyStepSchema,
    region: z.string(),
    instance_type: z.string().optional(),
    bucket: z.string(),
    volumes: z.array(z.string()).describe('Each member\'s volume, in the volume grammar'),
    estimated_usd: z.number().optional(),
    created_at: z.string(),
    updated_at: z.string(),
    links: studyLinksSchema,
  }),
);

export const studyListSchema = named(
  'StudyList',
  z.object({
    studies: z.array(studySummarySchema).describe('Newest first'),
    next_cursor: z.string().optional().describe('Pass as ?cursor= for the next page'),
  }),
);

export type StudySummary = z.infer<typeof studySummarySchema>;
