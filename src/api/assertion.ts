/**
 * Pipeline gates in the API: the assertion texts a run is submitted with, and their outcomes,
 * which are the library's `volbench.assertions` entries (the run record and fio's JSON carry
 * the same objects).
 */
import { z } from 'zod';

import type { VolbenchAssertion } from '../fio-output/fio-result.js';
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

/** One assertion's outcome: the library's `volbench.assertions` entry (fio-result.ts beside it documents it). */
export { assertionOutcomeSchema } from './fio-result.js';

export const GATES = ['passed', 'failed'] as const;
export type Gate = (typeof GATES)[number];

export const gateSchema = named(
  'Gate',
  z.enum(GATES).describe('passed: every assertion holds; failed: at least one does not'),
);

export type AssertionOutcomeBody = VolbenchAssertion;
