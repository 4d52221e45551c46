/**
 * POST /v1/runs bodies for the analyses: `{ "analysis": "sweep" | "uniformity" | "rotational",
 * ... }` with the settings `volbench sweep`, `uniformity` and `rotational` take. The block device
 * write opt-in is the target root's, as for every run.
 */
import { z } from 'zod';

import { jobSpecSchema } from '../jobspec/index.js';
import { ASSERT_FORM, assertListSchema } from './assertion.js';
import { named } from './registry.js';

const fioValue = z.union([z.string(), z.number()]);

const analysisAssert = assertListSchema.optional().describe(
  "Gates judged on the result: on the analysis's findings ('sweep.optimal_depth >= 8', 'uniformity.min_mbps >= 100', " +
    "'rotational.rpm >= 7000') or on one of its entries ('rr-qd32.clat_ns.p99 <= 2ms'). Checked before anything is queued.",
);

export const sweepRunRequestSchema = named(
  'SweepRunRequest',
  jobSpecSchema
    .extend({
      analysis: z.literal('sweep'),
      jobs: jobSpecSchema.shape.jobs.max(1).describe('The one job the sweep runs at each point, without the option it sweeps'),
      over: z.enum(['iodepth', 'numjobs']).optional().describe('What the sweep doubles (default iodepth)'),
      max_depth: z.int().min(1).max(65535).optional().describe('The highest iodepth (or numjobs) tried: 1, 2, 4, ... (default 256)'),
      alpha: z.number().min(0).max(1).optional().describe('Weight of throughput against latency in the optimum, 0..1 (default 0.8)'),
      max_p99: fioValue.optional().describe("Stop once a point's p99 completion latency passes this (fio's units, bare numbers in us: 5ms, 500)"),
      assert: analysisAssert,
    })
    .describe(
      'A job run at iodepth 1, 2, 4, ... (volbench sweep); stops once IOPS grow less than 5% over two doublings or p99 ' +
        'passes max_p99. The result holds an entry per point and volbench.sweep (the curve and the optimum).',
    ),
);

export const uniformityRunRequestSchema = named(
  'UniformityRunRequest',
  z
    .strictObject({
      analysis: z.literal('uniformity'),
      filename: z.string().optional().describe('A file or block device under a root (absolute); default: the target root'),
      size: fioValue.optional().describe("Bytes to cover (fio's units); default the target's size, needed for a file not there yet"),
      chunks: z.int().min(1).max(10000).optional().describe('Chunks (default 100)'),
      probe: fioValue.optional().describe('Bytes at the start of each chunk (default 128m, less when a chunk is smaller)'),
      initialize: z.boolean().optional().describe('Read every chunk whole: every block once (EBS initialisation)'),
      write: z.boolean().optional().describe("Write the probes (a block device root must allow writes)"),
      bs: fioValue.optional().describe('Block size of the probes (default 1m)'),
      iodepth: z.int().min(1).max(65535).optional(),
      ioengine: z.string().optional(),
      assert: analysisAssert,
    })
    .describe('Speed along a file or device, a sequential direct probe per chunk (volbench uniformity); volbench.uniformity holds min / avg / max MB/s and the series'),
);

export const rotationalRunRequestSchema = named(
  'RotationalRunRequest',
  z
    .strictObject({
      analysis: z.literal('rotational'),
      filename: z.string().optional().describe('A block device (or a file on one) under a root (absolute); default: the target root'),
      force: z.boolean().optional().describe('Measure a target that does not say it is rotational'),
      samples: z.int().min(8).max(10000).optional().describe('Long jumps and short jumps timed, each (default 100)'),
      ioengine: z.string().optional(),
      assert: analysisAssert,
    })
    .describe('Seek time, revolution time and RPM of a spinning disk (volbench rotational); only reads'),
);

export const analysisRunRequestSchema = named(
  'AnalysisRunRequest',
  z.discriminatedUnion('analysis', [sweepRunRequestSchema, uniformityRunRequestSchema, rotationalRunRequestSchema])
    .describe('An analysis run: a body with "analysis"'),
);

export type AnalysisRunRequest = z.infer<typeof analysisRunRequestSchema>;
export type AnalysisName = AnalysisRunRequest['analysis'];

export function isAnalysisBody(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && 'analysis' in body;
}

export const ANALYSIS_SHAPE = '{ "analysis": "sweep", "jobs": [one job], "global"?: {...}, "over"?, "max_depth"?, "alpha"?, "max_p99"? } | ' +
  '{ "analysis": "uniformity", "filename"?, "size"?, "chunks"?, "probe"?, "initialize"?, "write"?, "bs"?, "iodepth"?, "ioengine"? } | ' +
  `{ "analysis": "rotational", "filename"?, "force"?, "samples"?, "ioengine"? }, each with "assert"?: ["${ASSERT_FORM}", ...]`;

/** The analysis a run was submitted as, as the run record shows it: the request without its assertions. */
export const runAnalysisSchema = named(
  'RunAnalysis',
  z.object({
    analysis: z.enum(['sweep', 'uniformity', 'rotational']),
  }).catchall(z.unknown()).describe('The analysis and the settings the run was submitted with'),
);

export type RunAnalysisBody = z.infer<typeof runAnalysisSchema>;
