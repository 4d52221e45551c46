/**
 * A job's entitlement, as the result states it (CLOUD-VOLUMES.md "Entitlement in results: the
 * contract"): the catalog model's answer for the job's I/O size and pattern (`entitled`,
 * `entitled_merged`, the counting, the bursts), then what the job measured against it and
 * which limit bound it. The model (src/cloud/entitlement.ts) returns the first part in this very
 * shape; the run adds the second. Each figure is stated once.
 */
import { z } from 'zod';

/** The limits the model names: the volume's, its bucket's, the instance's. */
export const LIMITS = ['volume-iops', 'volume-throughput', 'burst-credits', 'instance-iops', 'instance-bandwidth', 'instance-burst'] as const;

/**
 * What bound a job: a limit; `job-rate` (its own rate or rate_iops asked for less); `latency`
 * (too few I/Os in flight for the entitled rate at the volume's unloaded latency); or
 * `below-entitlement` (short of it, and nothing measured or modelled explains it).
 */
export const BOUND_BY = [...LIMITS, 'job-rate', 'latency', 'below-entitlement'] as const;

/** Where `bound_by` comes from: the volume's own statistics (NVMe log page 0xD0), or the catalog's model. */
export const BOUND_BY_SOURCES = ['ebs-stats', 'model'] as const;

export const limitSchema = z.enum(LIMITS);
export const boundBySchema = z.enum(BOUND_BY);

export const entitledRateSchema = z.object({
  iops: z.number(),
  mibps: z.number(),
  bound_by: limitSchema,
}).describe('A rate the volume should deliver to the job, and the limit that sets it');

export const instanceBurstSchema = z.object({
  after_s: z.number().describe("Seconds at the instance's maximum EBS rates (30 minutes a day)"),
  iops: z.number(),
  mibps: z.number(),
  bound_by: z.literal('instance-burst'),
}).describe("Given an instance whose EBS limits burst: what the job is entitled to once the instance's daily burst is spent, when lower");

export const volumeBurstSchema = z.object({
  level: z.number().describe('The rate a full bucket allows, in unit'),
  baseline: z.number().describe('The rate once it is empty'),
  unit: z.enum(['IOPS', 'MiB/s']).describe("IOPS counted in the provider's I/O size, or MiB/s as the provider charges them"),
  seconds_from_full: z.number().describe('How long a full bucket lasts at the burst level'),
  seconds_at_job_rate: z.number().nullable()
    .describe("How long a full bucket lasts at the job's own entitled rate; null when that rate does not drain it (at or under the baseline)"),
}).describe("For a volume that bursts (gp2 under 1 TiB, st1, sc1): its bucket's levels and life");

export const modelEntitlementSchema = z.object({
  entitled: entitledRateSchema.describe('The bound with no merging of small sequential I/O (what O_DIRECT at low depth gets)'),
  entitled_merged: entitledRateSchema
    .describe('The bound with small sequential I/Os merged up to the counted size, where the provider merges; the same as entitled for random I/O'),
  counted_io_kib: z.number().describe('The I/O size the provider counts in (256 KiB EBS SSD, 1 MiB EBS HDD)'),
  counted_per_io: z.number().describe("How many counted I/Os one of the job's is, unmerged"),
  instance_burst: instanceBurstSchema.optional(),
  burst: volumeBurstSchema.optional(),
}).describe("The catalog's model for the job's I/O size and pattern");

export const directionShareSchema = z.object({
  share_of_ios: z.number().describe("The direction's share of the job's I/Os as the job asks (rwmixread)"),
  share_of_bytes: z.number().describe("Its share of the job's bytes: the I/O share weighted by each direction's I/O size"),
  entitled: z.object({ iops: z.number(), mibps: z.number() }).describe("Its share of the job's entitled rate: IOPS by I/Os, MiB/s by bytes"),
  measured_vs_entitled: z.number().describe("The direction's measured IOPS over its share"),
}).describe("A mixed job's direction, held to the share of the job's entitlement it asks for");

export const volbenchEntitlementSchema = modelEntitlementSchema.extend({
  bs: z.number().describe("The job's average I/O size, bytes (its bytes over its I/Os)"),
  measured_iops: z.number().describe('Reads and writes together'),
  measured_bw_bytes: z.number(),
  measured_vs_entitled: z.number()
    .describe('Measured IOPS over entitled.iops (times cloud.emulation.rate on an emulated volume: the rate it was held to); above 1.10 is flagged'),
  bound_by: boundBySchema.describe('What bound the job: measured where the volume says (bound_by_source), else the model\'s answer'),
  bound_by_source: z.enum(BOUND_BY_SOURCES),
  bound_by_model: boundBySchema.optional().describe("With bound_by_source ebs-stats: the model's answer, kept beside the measurement"),
  depth_needed: z.number().optional().describe('With latency: the I/Os in flight the entitled rate needs at the measured latency (Little\'s law)'),
  read: directionShareSchema.optional(),
  write: directionShareSchema.optional(),
}).describe('What the catalog says the volume should deliver to the job, against what it measured');

export type Limit = z.infer<typeof limitSchema>;
export type BoundBy = z.infer<typeof boundBySchema>;
export type BoundBySource = (typeof BOUND_BY_SOURCES)[number];
export type EntitledRate = z.infer<typeof entitledRateSchema>;
export type InstanceBurst = z.infer<typeof instanceBurstSchema>;
export type VolumeBurst = z.infer<typeof volumeBurstSchema>;
export type ModelEntitlement = z.infer<typeof modelEntitlementSchema>;
export type DirectionShare = z.infer<typeof directionShareSchema>;
export type VolbenchEntitlement = z.infer<typeof volbenchEntitlementSchema>;
