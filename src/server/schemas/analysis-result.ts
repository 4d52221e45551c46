/** What the analyses add under "volbench" in fio's JSON, documented (the library's types are the contract). */
import { z } from 'zod';

import { named } from './registry.js';

const sweepPoint = z.looseObject({
  value: z.int().describe('The iodepth or numjobs of the point'),
  job: z.string().describe("The point's entry in jobs"),
  iops: z.number(),
  bw_bytes: z.number(),
  clat_mean_ns: z.number(),
  clat_p50_ns: z.number(),
  clat_p99_ns: z.number(),
  clat_p999_ns: z.number(),
  score: z.number().describe('T·L / (α·L + (1−α)·T): T the IOPS, L 1/clat_mean, each over the sweep\'s best'),
});

export const volbenchSweepSchema = named(
  'VolbenchSweep',
  z.looseObject({
    over: z.enum(['iodepth', 'numjobs']),
    alpha: z.number(),
    stopped: z.enum(['max_depth', 'flat', 'max_p99', 'cancelled', 'error']).describe('Why the sweep ended'),
    max_iops: z.number(),
    points: z.array(sweepPoint),
    optimum: sweepPoint.extend({ speedup: z.number().describe('IOPS over the first point\'s') }).nullable(),
  }).describe('Set by a sweep: the curve and its optimum'),
);

export const volbenchUniformitySchema = named(
  'VolbenchUniformity',
  z.looseObject({
    rw: z.enum(['read', 'write']),
    initialize: z.boolean(),
    chunk_bytes: z.number(),
    probe_bytes: z.number(),
    min_mbps: z.number(),
    avg_mbps: z.number(),
    max_mbps: z.number(),
    min_offset: z.number(),
    max_offset: z.number(),
    complete: z.boolean(),
    series: z.array(z.looseObject({ index: z.int(), offset: z.number(), bytes: z.number(), mbps: z.number(), job: z.string() })),
  }).describe('Set by a uniformity pass: MB/s (10^6 bytes/s) along the target'),
);

export const volbenchRotationalSchema = named(
  'VolbenchRotational',
  z.looseObject({
    rotational: z.boolean().nullable(),
    forced: z.boolean(),
    revolution_ns: z.number().nullable(),
    rpm: z.number().nullable(),
    plausible: z.boolean().describe('Whether the RPM is one a spinning disk has (3,000 to 20,000)'),
    full_stroke_seek_ns: z.number().nullable(),
    track_to_track_ns: z.number().nullable(),
  }).describe('Set by a rotational analysis: seek and rotation'),
);

const burstUnit = z.enum(['IOPS', 'MiB/s']);

export const volbenchBurstSchema = named(
  'VolbenchBurst',
  z.looseObject({
    points: z.int().describe('Series points analysed (about one a second)'),
    unit: burstUnit.describe("The levels' unit: MiB/s for a volume whose burst is in throughput (st1, sc1), else IOPS"),
    cliff: z.boolean().describe('Whether the rate stepped down by a third or more and stayed down'),
    cliff_at_s: z.number().optional().describe("Seconds into the job's measured period when the level before ended"),
    level_before: z.number().optional().describe('The level before the cliff (median), in unit'),
    level_after: z.number().optional().describe('The level after the cliff (median), in unit'),
    level: z.number().optional().describe('Without a cliff: the median level, in unit'),
    credits: z.number().optional().describe('Work above the level after, up to the cliff: IOPS·s (I/Os) or MiB'),
    never_left_burst: z.boolean().optional()
      .describe('With a volume that bursts: true when the series stayed above its baseline to the end (the run measured the burst)'),
    catalog: z.looseObject({
      volume: z.string().describe('e.g. "gp2 100 GiB"'),
      unit: burstUnit,
      level: z.number().describe('Burst level, in the provider\'s units'),
      baseline: z.number(),
      bucket: z.number().describe('Credits in a full bucket: I/Os (IOPS) or MiB (MiB/s)'),
      seconds_from_full: z.number().describe('How long a full bucket lasts at the burst level'),
      counted_per_io: z.number().describe("The provider's I/Os one of the job's counts as"),
      credits: z.number().optional().describe("With a cliff: the credits measured, in the provider's units"),
      matches: z.boolean().optional().describe("With a cliff: whether they are a full bucket's, at the baseline after"),
      seconds_needed: z.number().optional().describe('Without a cliff, above the baseline: the run that would drain a full bucket at the rate seen'),
    }).optional().describe("The catalog's burst model of the volume the result names (volbench.cloud.volume)"),
    message: z.string().describe('The finding in a sentence, as the normal text prints it'),
  }).describe("Burst analysis of the job's per-second series"),
);
