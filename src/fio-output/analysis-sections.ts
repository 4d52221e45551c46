/**
 * What the analyses add to fio's document, under `volbench.sweep`, `volbench.uniformity`,
 * `volbench.rotational` and each job's `volbench.jobs[].analysis`: zod schemas, and the types
 * inferred from them. Latencies in ns, bandwidth in bytes/s (sweep) or MB/s (uniformity, 10^6
 * bytes per second, as drvperf and most disk tools print it).
 */
import { z } from 'zod';

/** One point of a sweep: one run of the template at one depth or job count. */
export const volbenchSweepPointSchema = z.object({
  value: z.int().describe('The iodepth or numjobs of the point'),
  iodepth: z.int(),
  numjobs: z.int(),
  job: z.string().describe("The point's entry in jobs"),
  iops: z.number(),
  bw_bytes: z.number(),
  clat_mean_ns: z.number(),
  clat_p50_ns: z.number(),
  clat_p99_ns: z.number(),
  clat_p999_ns: z.number(),
  throughput_norm: z.number().describe("IOPS over the sweep's best"),
  latency_norm: z.number().describe("1 / clat_mean over the sweep's best"),
  score: z.number().describe("T·L / (α·L + (1−α)·T): T the IOPS, L 1/clat_mean, each over the sweep's best (findings/optimum.ts)"),
});

export const sweepStops = ['max_depth', 'flat', 'max_p99', 'cancelled', 'error'] as const;

export const volbenchSweepSchema = z.object({
  over: z.enum(['iodepth', 'numjobs']),
  alpha: z.number(),
  max_depth: z.int(),
  max_p99_ns: z.number().nullable(),
  stopped: z.enum(sweepStops).describe('Why the sweep ended: it reached max_depth, IOPS stopped growing, p99 passed max_p99, ...'),
  max_iops: z.number(),
  points: z.array(volbenchSweepPointSchema),
  optimum: volbenchSweepPointSchema.extend({ speedup: z.number().describe("IOPS over the first point's (depth or job count 1)") }).nullable(),
}).describe('Set by a sweep: the curve and its optimum');

export const volbenchUniformityChunkSchema = z.object({
  index: z.int(),
  offset: z.number(),
  bytes: z.number(),
  mbps: z.number(),
  job: z.string().describe("The chunk's entry in jobs"),
});

export const volbenchUniformitySchema = z.object({
  rw: z.enum(['read', 'write']),
  initialize: z.boolean().describe('The whole chunk was read (--initialize): every block of the target once'),
  target_bytes: z.number(),
  chunk_bytes: z.number(),
  probe_bytes: z.number(),
  min_mbps: z.number(),
  avg_mbps: z.number(),
  max_mbps: z.number(),
  min_offset: z.number(),
  max_offset: z.number(),
  spread: z.number().describe('max / min'),
  complete: z.boolean().describe('Fewer chunks than asked when the run was cancelled'),
  series: z.array(volbenchUniformityChunkSchema),
}).describe('Set by a uniformity pass: MB/s (10^6 bytes/s) along the target');

export const volbenchRotationalSchema = z.object({
  rotational: z.boolean().nullable().describe('Whether the target says it is rotational (null: it does not say)'),
  forced: z.boolean().describe('Whether --force ran it anyway'),
  long_samples: z.int(),
  short_samples: z.int(),
  long_outliers: z.int().describe('Samples dropped as outliers (MAD filtering)'),
  short_outliers: z.int(),
  revolution_ns: z.number().nullable(),
  rpm: z.number().nullable(),
  full_stroke_seek_ns: z.number().nullable(),
  track_to_track_ns: z.number().nullable(),
  plausible: z.boolean()
    .describe('Whether the RPM is one a spinning disk has (3,000 to 20,000): a device that only says it is rotational gives figures no platter would'),
  long_median_ns: z.number().nullable().describe('Median latency of a long jump, as measured'),
  short_median_ns: z.number().nullable(),
}).describe('Set by a rotational analysis: seek and rotation');

const burstUnit = z.enum(['IOPS', 'MiB/s']);

export const volbenchBurstCatalogSchema = z.object({
  volume: z.string().describe('e.g. "gp2 100 GiB"'),
  unit: burstUnit.describe("The catalog's unit of credits: the provider's I/Os (IOPS) or MiB (MiB/s)"),
  level: z.number().describe("Burst level, in the provider's units"),
  baseline: z.number(),
  bucket: z.number().describe('Credits in a full bucket: I/Os (IOPS) or MiB (MiB/s)'),
  seconds_from_full: z.number().describe('How long a full bucket lasts at the burst level'),
  counted_per_io: z.number().describe("How many of the provider's I/Os one of the job's counts as (its size against 256 KiB or 1 MiB)"),
  credits: z.number().optional().describe("With a cliff: the credits measured, in the provider's I/Os or MiB"),
  matches: z.boolean().optional().describe("With a cliff: whether they are a full bucket's"),
  seconds_needed: z.number().optional().describe('Without a cliff, above the baseline: the run that would drain a full bucket at the rate seen, seconds'),
});

export const volbenchBurstSchema = z.object({
  points: z.int().describe('Series points analysed (about one a second)'),
  unit: burstUnit.describe("The levels' unit: MiB/s for a volume whose burst is in throughput (st1, sc1), else IOPS"),
  cliff: z.boolean().describe('Whether the rate stepped down and stayed down'),
  cliff_at_s: z.number().optional().describe("Seconds into the job's measured period when the level before would have had to stop"),
  level_before: z.number().optional().describe('The level before the cliff (median), in unit'),
  level_after: z.number().optional().describe('The level after the cliff (median), in unit'),
  level: z.number().optional().describe('Without a cliff: the median level, in unit'),
  credits: z.number().optional().describe('The work done above the level after, up to the cliff: IOPS·s (I/Os) or MiB; for a bucket that started full, its size'),
  never_left_burst: z.boolean().optional()
    .describe('With a volume that bursts: true when the series stayed above its baseline to the end (the run measured the burst)'),
  catalog: volbenchBurstCatalogSchema.optional().describe("The catalog's burst model of the volume, when the result names one (volbench.cloud.volume)"),
  cause: z.literal('instance-burst').optional()
    .describe("Set when the level after the cliff is the instance's EBS baseline (volbench.cloud.instance_type): its 30 minutes a day at its maximum ended, not the volume's bucket"),
  message: z.string().describe('The finding in a sentence, as the normal text prints it'),
}).describe("The burst analysis of one job's per-second series");

export const volbenchJobAnalysisSchema = z.object({
  burst: volbenchBurstSchema.optional(),
}).describe("Findings on the job's own series; absent when its series is too short to say anything");

export type VolbenchSweepPoint = z.infer<typeof volbenchSweepPointSchema>;
export type VolbenchSweepOptimum = NonNullable<z.infer<typeof volbenchSweepSchema>['optimum']>;
export type SweepStop = (typeof sweepStops)[number];
export type VolbenchSweep = z.infer<typeof volbenchSweepSchema>;
export type VolbenchUniformityChunk = z.infer<typeof volbenchUniformityChunkSchema>;
export type VolbenchUniformity = z.infer<typeof volbenchUniformitySchema>;
export type VolbenchRotational = z.infer<typeof volbenchRotationalSchema>;
export type VolbenchBurstCatalog = z.infer<typeof volbenchBurstCatalogSchema>;
export type VolbenchBurst = z.infer<typeof volbenchBurstSchema>;
export type VolbenchJobAnalysis = z.infer<typeof volbenchJobAnalysisSchema>;
