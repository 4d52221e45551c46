/**
 * The catalog's data as zod schemas: every figure is a limit or a price, and every limit and
 * price carries where it comes from (`source`, a URL) and when it was read (`as_of`). The
 * shipped files are checked against these at load, and by the tests, so a bad entry fails the
 * suite rather than a user's run.
 */
import { z } from 'zod';

const dated = {
  source: z.string().url(),
  as_of: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  /** H: from the provider's own page; M: a secondary or older source; L: unverified. */
  confidence: z.enum(['H', 'M', 'L']).optional(),
};

const positive = z.number().positive();
const nonNegative = z.number().nonnegative();

export const SizeLimits = z.object({ min: positive, max: positive, ...dated }).strict();

export const IopsModel = z.object({
  /** Included with the volume at no extra price (gp3). */
  included: nonNegative.optional(),
  min: nonNegative.optional(),
  max: positive,
  /** Baseline IOPS per GiB (gp2). */
  per_gib: positive.optional(),
  /** The most IOPS that may be provisioned per GiB. */
  per_gib_max: positive.optional(),
  typical: positive.optional(),
  provisioned: z.boolean(),
  ...dated,
}).strict();

export const ThroughputModel = z.object({
  included: nonNegative.optional(),
  min: nonNegative.optional(),
  max: positive,
  /** The most MiB/s per provisioned IOPS (gp3: 0.25; io2 Block Express: 0.256). */
  per_iops_max: positive.optional(),
  /** gp2: volumes up to `small_up_to_gib` deliver at most `small_max`. */
  small_max: positive.optional(),
  small_up_to_gib: positive.optional(),
  /** HDD: baseline MiB/s per TiB of size, up to `base_max`. */
  base_per_tib: positive.optional(),
  base_max: positive.optional(),
  provisioned: z.boolean(),
  ...dated,
}).strict();

export const BurstModel = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('iops'),
    /** The IOPS a burst runs at. */
    level: positive,
    /** I/O credits in a full bucket (a volume starts full). */
    bucket: positive,
    /** Credits earned per GiB per second (the baseline). */
    refill_per_gib_s: positive,
    /** Only volumes smaller than this burst. */
    below_gib: positive,
    ...dated,
  }).strict(),
  z.object({
    kind: z.literal('throughput'),
    level_per_tib: positive,
    level_max: positive,
    /** MiB of credits per TiB of size in a full bucket. */
    bucket_mib_per_tib: positive,
    refill: z.literal('base'),
    ...dated,
  }).strict(),
]);

export const Delivery = z.object({ fraction: z.number().gt(0).lte(1), of_time: z.number().gt(0).lte(1), ...dated }).strict();

export const IopsTier = z.object({ up_to: positive.nullable(), usd: nonNegative }).strict();

export const RegionPrice = z.object({
  storage_gb_month: nonNegative,
  /** Per provisioned IOPS-month above what is included. */
  iops_month: nonNegative.optional(),
  /** Tiered per-IOPS prices (io2): each tier's IOPS up to `up_to`. */
  iops_month_tiers: z.array(IopsTier).min(1).optional(),
  throughput_mibps_month: nonNegative.optional(),
  per_million_requests: nonNegative.optional(),
  ...dated,
}).strict();

export const VolumeType = z.object({
  type: z.string().regex(/^[a-z0-9-]+$/),
  title: z.string().min(1),
  media: z.enum(['ssd', 'hdd']),
  /** The I/O size the provider counts I/Os in: larger I/Os count as several. */
  io_size_kib: positive,
  size_gib: SizeLimits,
  iops: IopsModel,
  throughput_mibps: ThroughputModel,
  burst: BurstModel.optional(),
  delivery: Delivery.optional(),
  billing: z.string().min(1),
  prices: z.record(z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/), RegionPrice),
}).strict();

export const ProviderCatalog = z.object({
  provider: z.enum(['aws', 'gcp', 'azure']),
  service: z.string().min(1),
  as_of: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  types: z.array(VolumeType).min(1),
}).strict();

export type VolumeTypeInfo = z.infer<typeof VolumeType>;
export type ProviderCatalogData = z.infer<typeof ProviderCatalog>;
export type RegionPriceInfo = z.infer<typeof RegionPrice>;

const datedFields = {
  source: z.string().url(),
  as_of: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  confidence: z.enum(['H', 'M', 'L']).optional(),
};

export const InstanceType = z.object({
  type: z.string().regex(/^[a-z][a-z0-9-]*\.[a-z0-9]+$/),
  ebs: z.object({
    baseline_mbps: z.number().positive(),
    max_mbps: z.number().positive(),
    baseline_iops: z.number().positive(),
    max_iops: z.number().positive(),
    /** Smaller sizes run at their maximum for this long a day, then at their baseline. */
    burst: z.object({ minutes_per_day: z.number().positive() }).strict().optional(),
    ...datedFields,
  }).strict(),
  instance_store: z.object({
    devices: z.number().int().positive(),
    gb_per_device: z.number().positive(),
    random_read_iops_4k: z.number().positive(),
    write_iops_4k: z.number().positive(),
    ...datedFields,
  }).strict().optional(),
}).strict();

export const InstanceCatalog = z.object({
  provider: z.literal('aws'),
  service: z.literal('ec2'),
  as_of: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  instances: z.array(InstanceType).min(1),
}).strict();

export type InstanceTypeInfo = z.infer<typeof InstanceType>;
