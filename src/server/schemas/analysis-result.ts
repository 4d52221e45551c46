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
