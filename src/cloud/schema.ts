/**
 * The catalog's data as zod schemas: every figure is a limit or a price, and every limit and
 * price carries where it comes from (`source`, a URL) and when it was read (`as_of`). The
 * shipped files are checked against these at load, and by the tests, so a bad entry fails the
 * suite rather than a user's run.
 */
import { z } from 'zod';

/**
 * Where a figure comes from: its URL, or, where no page could be read, the source by name
 * ("an AWS re:Invent 2025 talk"), always with a confidence no higher than that source earns.
 */
const sourceText = z.string().min(1).max(400);

const dated = {
  source: sourceText,
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
  /** What every volume gets before its per-GiB figure (GCP pd-balanced: 3,000 + 6 per GiB). */
  base: nonNegative.optional(),
  /** Baseline IOPS per GiB (gp2, GCP Persistent Disk). */
  per_gib: positive.optional(),
  /** Writes where they differ from reads (GCP pd-standard: 1.5 per GiB, up to 15,000). */
  write_per_gib: positive.optional(),
  write_max: positive.optional(),
  /** The most IOPS that may be provisioned per GiB. */
  per_gib_max: positive.optional(),
  /** The fewest IOPS that may be provisioned per GiB (Hyperdisk Extreme: 2). */
  per_gib_min: positive.optional(),
  /** IOPS that come with each provisioned MiB/s (Hyperdisk Throughput: 4), up to `max`. */
  per_mibps: positive.optional(),
  /** The most IOPS delivered to an instance not built on Nitro (io1, io2: 32,000), whatever is provisioned. */
  non_nitro_max: positive.optional(),
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
  /** The fewest MiB/s per provisioned IOPS (Hyperdisk Balanced: 1/256). */
  per_iops_min: positive.optional(),
  /** What every volume gets before its per-GiB figure (GCP pd-balanced: 140 + 0.28 per GiB). */
  base: nonNegative.optional(),
  per_gib: positive.optional(),
  /** Writes' maximum where it differs from reads' (GCP pd-standard). */
  write_max: positive.optional(),
  /**
   * Throughput that comes with provisioned IOPS in bands (io1: 0.25 MiB/s per IOPS up to 500
   * MiB/s; above 32,000 IOPS 1/64 MiB/s per IOPS, up to 1,000): the band with the largest
   * `above_iops` under the volume's IOPS applies.
   */
  per_iops_bands: z.array(z.object({ above_iops: nonNegative, mibps_per_iops: positive, max: positive }).strict()).min(1).optional(),
  /** Provisioned MiB/s per TiB of size, at least and at most (Hyperdisk Throughput: 10–90). */
  per_tib_min: positive.optional(),
  per_tib_max: positive.optional(),
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
  z.object({
    /** Azure's credit-based bursting: a tier under its target earns credits, spent up to these levels. */
    kind: z.literal('credits'),
    iops: positive,
    throughput_mibps: positive,
    /** How long a full bucket lasts at the burst levels (a disk starts full). */
    minutes: positive,
    /** Only tiers this size and smaller burst (Premium SSD: P20, 512 GiB). */
    up_to_gib: positive,
    ...dated,
  }).strict(),
]);

/** A fixed size tier (Azure P10, E30): a disk is billed, and performs, as the smallest tier that holds it. */
export const SizeTier = z.object({
  name: z.string().regex(/^[A-Z]+\d+$/),
  size_gib: positive,
  iops: positive,
  throughput_mibps: positive,
}).strict();

/**
 * How long one I/O takes with nothing queued (a 16 KiB random read on an idle volume), the
 * provider's figure where it states one: a job whose latency is near it and whose depth is too
 * low for the entitled rate is bound by latency, not by a limit.
 */
export const Latency = z.object({ unloaded_us: positive, ...dated }).strict();

export const Delivery = z.object({ fraction: z.number().gt(0).lte(1), of_time: z.number().gt(0).lte(1), ...dated }).strict();

export const IopsTier = z.object({ up_to: positive.nullable(), usd: nonNegative }).strict();

/** us-east-1, us-central1, eastus. */
export const REGION_NAME = /^[a-z]{2,}[a-z0-9-]{0,30}[a-z0-9]$/;

export const RegionPrice = z.object({
  /** Per GB-month (GiB-month where the provider bills in GiB: GCP). */
  storage_gb_month: nonNegative,
  /** Tiered types: each tier's price a month, by tier name (storage_gb_month is then 0). */
  tier_month: z.record(z.string().regex(/^[A-Z]+\d+$/), nonNegative).optional(),
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
  /**
   * st1/sc1: an I/O smaller than `io_size_kib` is charged as a whole one against the throughput
   * and its burst credits, unless small sequential I/Os reach the volume merged.
   */
  small_io_charged_whole: z.object({ ...dated }).strict().optional(),
  size_gib: SizeLimits,
  iops: IopsModel,
  throughput_mibps: ThroughputModel,
  burst: BurstModel.optional(),
  latency: Latency.optional(),
  /** Fixed size tiers, smallest first; size_gib.max is the largest. */
  tiers: z.array(SizeTier).min(1).optional(),
  /**
   * Instance store: the size, IOPS and throughput are the instance type's
   * (catalog/aws-ec2-instances.json); the figures here are the most any catalogued instance has.
   */
  from_instance: z.literal(true).optional(),
  delivery: Delivery.optional(),
  billing: z.string().min(1),
  /** What the figures leave out or how they are read (units, per-VM caps). */
  notes: z.array(z.string().min(1)).optional(),
  prices: z.record(z.string().regex(REGION_NAME), RegionPrice),
}).strict().superRefine((t, ctx) => {
  if (t.tiers) {
    t.tiers.forEach((tier, i) => {
      if (i > 0 && tier.size_gib <= t.tiers![i - 1].size_gib) ctx.addIssue({ code: 'custom', path: ['tiers', i, 'size_gib'], message: 'tiers go smallest first' });
    });
    if (t.tiers.at(-1)!.size_gib !== t.size_gib.max) ctx.addIssue({ code: 'custom', path: ['size_gib', 'max'], message: 'is the largest tier\'s size' });
    for (const [region, p] of Object.entries(t.prices)) {
      for (const tier of t.tiers) {
        if (p.tier_month?.[tier.name] === undefined) ctx.addIssue({ code: 'custom', path: ['prices', region, 'tier_month', tier.name], message: 'every tier needs its price' });
      }
    }
  }
  if (t.burst?.kind === 'credits' && !t.tiers) ctx.addIssue({ code: 'custom', path: ['burst'], message: 'credit bursting is a tiered type\'s' });
});

export const ProviderCatalog = z.object({
  provider: z.enum(['aws', 'gcp', 'azure']),
  service: z.string().min(1),
  as_of: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  /** Where a price is looked up when no region is given. */
  default_region: z.string().regex(REGION_NAME),
  types: z.array(VolumeType).min(1),
}).strict().superRefine((c, ctx) => {
  c.types.forEach((t, i) => {
    if (!t.prices[c.default_region]) ctx.addIssue({ code: 'custom', path: ['types', i, 'prices', c.default_region], message: 'every type is priced in the default region' });
  });
});

export type VolumeTypeInfo = z.infer<typeof VolumeType>;
export type ProviderCatalogData = z.infer<typeof ProviderCatalog>;
export type RegionPriceInfo = z.infer<typeof RegionPrice>;
export type SizeTierInfo = z.infer<typeof SizeTier>;

const datedFields = {
  source: sourceText,
  as_of: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  confidence: z.enum(['H', 'M', 'L']).optional(),
};

export const InstanceType = z.object({
  type: z.string().regex(/^[a-z][a-z0-9-]*\.[a-z0-9]+$/),
  /** DescribeInstanceTypes' Hypervisor: nitro or xen; absent for bare metal (built on Nitro, without a hypervisor). */
  hypervisor: z.enum(['nitro', 'xen']).optional(),
  ebs: z.object({
    baseline_mbps: z.number().positive(),
    max_mbps: z.number().positive(),
    baseline_iops: z.number().positive(),
    max_iops: z.number().positive(),
    /** Smaller sizes run at their maximum for this long a day, then at their baseline. */
    burst: z.object({ minutes_per_day: z.number().positive() }).strict().optional(),
    /** EbsInfo.NvmeSupport: whether EBS volumes appear as NVMe devices (and answer the statistics page). */
    nvme_support: z.enum(['unsupported', 'supported', 'required']).optional(),
    /** EbsInfo.EbsOptimizedSupport: unsupported, supported (to be asked for), or default (always on). */
    ebs_optimized_support: z.enum(['unsupported', 'supported', 'default']).optional(),
    ...datedFields,
  }).strict(),
  /** The CPU architectures it runs (x86_64, arm64), as DescribeInstanceTypes names them. */
  architectures: z.array(z.string().regex(/^[a-z0-9_]{1,16}$/)).max(8).optional(),
  instance_store: z.object({
    devices: z.number().int().positive(),
    gb_per_device: z.number().positive(),
    /** ssd or hdd, where DescribeInstanceTypes says. */
    media: z.enum(['ssd', 'hdd']).optional(),
    /**
     * AWS's 4 KiB random IOPS over all its devices: from AWS's instance store page, which
     * DescribeInstanceTypes does not give; absent, instance store on this type has no entitlement.
     */
    random_read_iops_4k: z.number().positive().optional(),
    write_iops_4k: z.number().positive().optional(),
    ...datedFields,
  }).strict().optional(),
}).strict();

/** A type's platform alone: what a fleet checks before it plans on it (src/fleet/instance-platform.ts). */
export const InstancePlatform = z.object({
  type: z.string().regex(/^[a-z][a-z0-9-]*\.[a-z0-9]+$/),
  hypervisor: z.enum(['nitro', 'xen']).optional(),
  nvme_support: z.enum(['unsupported', 'supported', 'required']).optional(),
  ebs_optimized_support: z.enum(['unsupported', 'supported', 'default']).optional(),
  architectures: z.array(z.string().regex(/^[a-z0-9_]{1,16}$/)).max(8).optional(),
}).strict();

export const InstanceCatalog = z.object({
  provider: z.literal('aws'),
  service: z.literal('ec2'),
  as_of: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  /** Where the limits were read (`volbench catalog refresh --instances`), and how far they are trusted. */
  source: sourceText.optional(),
  confidence: z.enum(['H', 'M', 'L']).optional(),
  instances: z.array(InstanceType).min(1),
  /**
   * Types DescribeInstanceTypes gives without EBS-optimized limits (t2, the first generations):
   * no entitlement can be had on them, but a fleet planned on one is refused by its platform,
   * which is kept here.
   */
  platform_only: z.array(InstancePlatform).optional(),
}).strict();

export type InstanceTypeInfo = z.infer<typeof InstanceType>;
export type InstancePlatformInfo = z.infer<typeof InstancePlatform>;

/**
 * EC2 on-demand prices (catalog/aws-ec2-prices.json), USD per instance-hour, Linux, by region
 * and instance type: a file of their own, dated and sourced, apart from the instance limits.
 */
export const InstancePriceCatalog = z.object({
  provider: z.literal('aws'),
  service: z.literal('ec2-on-demand'),
  ...datedFields,
  /** What a figure is: USD per instance-hour, Linux, on-demand. */
  unit: z.literal('USD per hour'),
  regions: z.record(z.string().regex(REGION_NAME), z.record(z.string().regex(/^[a-z][a-z0-9-]*\.[a-z0-9]+$/), z.number().positive())),
}).strict();

export type InstancePriceCatalogData = z.infer<typeof InstancePriceCatalog>;
export type Confidence = 'H' | 'M' | 'L';
