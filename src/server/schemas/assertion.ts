/**
 * Pipeline gates in the API: the assertion texts a run is submitted with, and their outcomes,
 * which are the library's `volbench.assertions` entries (the run record and fio's JSON carry
 * the same objects).
 */
import { z } from 'zod';

import { named } from './registry.js';

/** Enough for any gate a pipeline writes; the body limit bounds the text anyway. */
export const MAX_ASSERTIONS = 100;

export const ASSERT_FORM = '<job>[.<dir>].<metric> <op> <value>';

export const assertListSchema = z
  .array(z.string().min(1))
  .max(MAX_ASSERTIONS)
  .describe(
    `Gates judged on the result, as for \`volbench run --assert\`: '${ASSERT_FORM}', e.g. ` +
      "'RND4K-Q32T1-read.iops >= 3000', 'rr.clat_ns.p99 <= 2ms'. Checked against the jobs before anything is queued.",
  );

export const assertionOutcomeSchema = named(
  'AssertionOutcome',
  z
    .object({
      expr: z.string().describe('The assertion as given'),
      job: z.string(),
      dir: z.enum(['read', 'write', 'trim', 'sync', 'mixed']).nullable().describe('null for error, which is per job'),
      metric: z.string().describe('Canonical metric name: iops, bw, io_bytes, error, clat_ns.p99, lat_ns.mean, ...'),
      op: z.enum(['>=', '<=', '>', '<', '==', '!=']),
      wanted: z.number().describe('In unit'),
      measured: z.number().nullable().describe('In unit; null when the result lacks the job or the metric'),
      passed: z.boolean(),
      unit: z.string().describe('IOPS, B/s, B, ns or errno'),
      message: z.string().describe('Measured against wanted, in the unit the assertion was written in'),
    })
    .describe('One assertion judged on the result'),
);

export const GATES = ['passed', 'failed'] as const;
export type Gate = (typeof GATES)[number];

export const gateSchema = named(
  'Gate',
  z.enum(GATES).describe('passed: every assertion holds; failed: at least one does not'),
);

export type AssertionOutcomeBody = z.infer<typeof assertionOutcomeSchema>;
