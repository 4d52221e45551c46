/**
 * The JSON form of a spec, as the HTTP service takes it (and documents it in OpenAPI): fio's
 * option names as keys, values as a job file would give them.
 */
import { z } from 'zod';

export const optionValueSchema = z
  .union([z.string(), z.number(), z.boolean()])
  .describe('A value as in a fio job file ("4k", "60s", "randread"); numbers and booleans are read as ' +
    'their text, true alone sets a flag option');

export const optionsSchema = z
  .record(z.string(), optionValueSchema)
  .describe('fio options by fio name (rw, bs, iodepth, size, runtime, time_based, ...)');

export const jobSpecSchema = z
  .strictObject({
    global: optionsSchema.optional().describe("Options every job starts from, like a job file's [global] section"),
    jobs: z
      .array(optionsSchema)
      .min(1)
      .describe("One entry per job, like a job file's job sections; each needs a name (its own or global's)"),
  })
  .describe('A volbench spec: fio jobs in JSON, with fio 3.33 option names and values');

export type JobSpecInput = z.infer<typeof jobSpecSchema>;
