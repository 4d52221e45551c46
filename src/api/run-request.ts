/**
 * The JSON bodies of POST /v1/runs: a spec (the library's `{global, jobs}` plus `assert`), or a
 * shipped suite with the overrides `volbench suite` takes. A body with a `suite` key is a suite
 * run; validation picks the shape by that key (keyed-union.ts), so an error names the field
 * inside the shape the client meant.
 */
import { z } from 'zod';

import { jobSpecSchema } from '../jobspec/index.js';
import { suiteDefinitions } from '../suites/index.js';
import { keyedUnion } from './keyed-union.js';
import { ASSERT_FORM, assertListSchema } from './assertion.js';
import { named } from './registry.js';
import { analysisRunRequestSchema } from './analysis-request.js';

export const SUITE_NAMES = suiteDefinitions().map((s) => s.name) as [string, ...string[]];

const fioValue = z.union([z.string(), z.number()]);

/** The volume a run measures, as volbench.cloud.volume shows it, and the instance it is on. */
export const runVolumeSchema = named(
  'RunVolume',
  z.strictObject({
    type: z.string().max(32).describe('A volume type of the catalog (GET /v1/catalog): gp3, io2, st1, ...'),
    size_gib: z.int().min(1).max(1 << 20).describe('Its size in GiB'),
    iops: z.int().min(1).max(10_000_000).optional().describe('Provisioned IOPS, where the type takes them'),
    throughput_mibps: z.int().min(1).max(1_000_000).optional().describe('Provisioned throughput in MiB/s, where the type takes it'),
    instance: z.string().max(32).optional().describe('The instance type it is attached to: its limits bound the volume'),
  }).describe("The volume the targets are on: the result gains volbench.cloud and each job's entitlement (checked before the run is queued)"),
);

export const specRunRequestSchema = named(
  'SpecRunRequest',
  jobSpecSchema
    .extend({ assert: assertListSchema.optional(), volume: runVolumeSchema.optional() })
    .describe('A volbench spec (fio jobs in JSON, fio 3.33 option names and values) and the gates to judge it by'),
);

export const suiteRunRequestSchema = named(
  'SuiteRunRequest',
  z
    .strictObject({
      suite: z.enum(SUITE_NAMES).describe('A shipped suite (GET /v1/suites lists them)'),
      directory: z.string().optional().describe("Where the suite's files go (fio's directory); default: the first root or ?target="),
      filename: z.string().optional().describe('A file or block device for every test (fio\'s filename); never removed afterwards'),
      runtime: fioValue.optional().describe("Replaces the suite's runtime in every test (fio's units: 60, 5s, 1m)"),
      size: fioValue.optional().describe("Replaces the suite's size in every test (fio's units: 4m, 1g)"),
      loops: z.int().min(1).max(1000).optional().describe('Runs of each test, the best kept (default: the suite\'s, 5 for kdiskmark)'),
      assert: assertListSchema.optional(),
      volume: runVolumeSchema.optional(),
    })
    .describe('A shipped suite on a target root, as `volbench suite NAME` runs it'),
);

export const runRequestSchema = keyedUnion(
  named('RunRequest', z.union([specRunRequestSchema, suiteRunRequestSchema, analysisRunRequestSchema])
    .describe('A spec run, a suite run (a body with "suite"), or an analysis run (a body with "analysis")')),
  'analysis',
  analysisRunRequestSchema,
  keyedUnion(z.union([specRunRequestSchema, suiteRunRequestSchema]), 'suite', suiteRunRequestSchema, specRunRequestSchema),
);

export type SpecRunRequest = z.infer<typeof specRunRequestSchema>;
export type RunVolume = z.infer<typeof runVolumeSchema>;
export type SuiteRunRequest = z.infer<typeof suiteRunRequestSchema>;

export function isSuiteBody(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && 'suite' in body;
}

export const SPEC_SHAPE = '{ "global"?: { option: value }, "jobs": [{ option: value }, ...], "assert"?: [expression, ...], "volume"?: { "type", "size_gib", ... } } ' +
  'with at least one job; values are strings, numbers or booleans';

export const SUITE_SHAPE = `{ "suite": ${SUITE_NAMES.join(' | ')}, "directory"?: path, "filename"?: path, "runtime"?: time, ` +
  `"size"?: size, "loops"?: 1..1000, "assert"?: ["${ASSERT_FORM}", ...], "volume"?: { "type", "size_gib", ... } }`;
