import { z } from 'zod';

import { named } from './registry.js';

export const problemSchema = named(
  'Problem',
  z
    .object({
      type: z.string().describe('URI naming the kind of problem (urn:volbench:problem:...)'),
      title: z.string().describe('Short summary of the kind of problem'),
      status: z.int().describe('The HTTP status code'),
      detail: z.string().describe('What went wrong with this request, in words'),
      field: z.string().optional().describe('Path of the offending value in the spec, e.g. jobs[0].bs'),
      accepted: z.string().optional().describe('What that value may be'),
      code: z.string().optional().describe("The library's error code, e.g. EINVALID_VALUE"),
      limit: z.string().optional().describe("The operator's limit that refused a study, e.g. --study-max-cost"),
      estimated_usd: z.number().optional().describe("A refused study's estimated cost, in USD"),
    })
    .describe('An RFC 9457 problem: every error the service returns (content type application/problem+json)'),
);

/** The response entry for an error status: problem+json only. */
export function problemResponse(description: string) {
  return { description, content: { 'application/problem+json': { schema: problemSchema } } };
}

/** A JSON response entry with its own description (a bare schema would be "Default Response"). */
export function jsonResponse<T extends z.ZodType>(description: string, schema: T) {
  return { description, content: { 'application/json': { schema } } };
}
