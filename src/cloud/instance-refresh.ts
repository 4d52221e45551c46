/**
 * `volbench catalog refresh --instances`: EC2 instance types' EBS limits (baseline and maximum
 * bandwidth and IOPS), their platform (hypervisor, NVMe and EBS-optimized support: io1/io2 above
 * 32,000 IOPS need Nitro, and only NVMe volumes answer the statistics page), architectures and
 * instance store from EC2 DescribeInstanceTypes, as the
 * limits file (catalog/aws-ec2-instances.json) dated and sourced. Instance store IOPS are not in
 * that API: a type the file already has keeps them, with their own source. Prices are another
 * file's (aws-ec2-prices.json) and are not touched.
 */
import { VolbenchError } from '../errors.js';
import { awsCall } from './aws-call.js';
import { awsClient, checkAwsRegion, customEndpoint } from './aws-clients.js';
import { InstanceCatalog, type Confidence, type InstancePlatformInfo, type InstanceTypeInfo } from './schema.js';
import type { z } from 'zod';

type InstanceCatalogData = z.infer<typeof InstanceCatalog>;

/** The fields of one DescribeInstanceTypes entry that the limits file reads. */
export interface DescribedType {
  InstanceType?: string;
  Hypervisor?: string;
  EbsInfo?: {
    NvmeSupport?: string;
    EbsOptimizedSupport?: string;
    EbsOptimizedInfo?: {
      BaselineBandwidthInMbps?: number; MaximumBandwidthInMbps?: number; BaselineIops?: number; MaximumIops?: number;
    };
  };
  ProcessorInfo?: { SupportedArchitectures?: string[] };
  InstanceStorageInfo?: { Disks?: Array<{ Count?: number; SizeInGB?: number; Type?: string }> };
}

export interface InstanceRefreshOptions {
  profile?: string;
  /** Where the data came from, when not AWS's own API (an emulator's copy of it). */
  source?: string;
  /** The data's date; default today. */
  asOf: string;
}

/** Smaller sizes reach their EBS maximum for 30 minutes at least once a day (AWS's `*` sizes). */
const BURST_MINUTES_PER_DAY = 30;
/** Pages of 100: AWS has about 1,000 types, so 50 pages bound a misbehaving endpoint. */
const MAX_PAGES = 50;

/** Every instance type the region offers, as DescribeInstanceTypes gives them. */
export async function describeInstanceTypes(region: string, opts: { profile?: string } = {}): Promise<DescribedType[]> {
  checkAwsRegion(region, '--region');
  const { DescribeInstanceTypesCommand, EC2Client } = await import('@aws-sdk/client-ec2');
  const client = awsClient(EC2Client, { region, profile: opts.profile });
  const out: DescribedType[] = [];
  try {
    let next: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const res = await awsCall('ec2:DescribeInstanceTypes', () => client.send(new DescribeInstanceTypesCommand({ MaxResults: 100, NextToken: next })));
      out.push(...((res.InstanceTypes ?? []) as DescribedType[]));
      next = res.NextToken;
      if (!next) break;
    }
  } finally {
    client.destroy();
  }
  return out;
}

const TYPE_NAME = /^[a-z][a-z0-9-]*\.[a-z0-9]+$/;
const HYPERVISORS = ['nitro', 'xen'] as const;
const NVME = ['unsupported', 'supported', 'required'] as const;
const EBS_OPTIMIZED = ['unsupported', 'supported', 'default'] as const;

/** `v` when it is one of `known`: an API's enum read into the file's, anything else left out. */
function oneOf<T extends string>(v: unknown, known: readonly T[]): T | undefined {
  return typeof v === 'string' && (known as readonly string[]).includes(v) ? (v as T) : undefined;
}
const positive = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n > 0;

/** The source a refresh names: the API's region, or the stand-in's own words. */
export function refreshSource(region: string, given: string | undefined): { source: string; confidence: Confidence } {
  if (given !== undefined) return { source: given, confidence: 'M' };
  // An emulator's copy of AWS's data is a secondary source.
  if (customEndpoint({}, 'ec2')) return { source: `AWS DescribeInstanceTypes (${region}) as served by ${process.env.AWS_ENDPOINT_URL_EC2 ?? process.env.AWS_ENDPOINT_URL}`, confidence: 'M' };
  return { source: `AWS EC2 DescribeInstanceTypes, ${region}`, confidence: 'H' };
}

/** One type's entry, or null when the API gives no EBS-optimized limits for it (it has none to bound). */
function entryOf(d: DescribedType, before: InstanceTypeInfo | undefined, dated: { source: string; as_of: string; confidence: Confidence }): InstanceTypeInfo | null {
  const name = d.InstanceType;
  const e = d.EbsInfo?.EbsOptimizedInfo;
  if (typeof name !== 'string' || !TYPE_NAME.test(name) || !e) return null;
  const { BaselineBandwidthInMbps: bMbps, MaximumBandwidthInMbps: mMbps, BaselineIops: bIops, MaximumIops: mIops } = e;
  if (!positive(bMbps) || !positive(mMbps) || !positive(bIops) || !positive(mIops)) return null;
  const bursts = bMbps < mMbps || bIops < mIops;
  const archs = (d.ProcessorInfo?.SupportedArchitectures ?? []).filter((a) => /^[a-z0-9_]{1,16}$/.test(a)).slice(0, 8);
  const disks = d.InstanceStorageInfo?.Disks ?? [];
  const disk = disks[0];
  let store: InstanceTypeInfo['instance_store'];
  if (disk && positive(disk.Count) && positive(disk.SizeInGB)) {
    const kept = before?.instance_store;
    // The IOPS are AWS's instance store page's: kept, with that page as the source.
    const iops = kept?.random_read_iops_4k !== undefined ? { random_read_iops_4k: kept.random_read_iops_4k, write_iops_4k: kept.write_iops_4k } : {};
    store = {
      devices: disks.reduce((n, x) => n + (positive(x.Count) ? x.Count : 0), 0),
      gb_per_device: disk.SizeInGB,
      ...(disk.Type === 'ssd' || disk.Type === 'hdd' ? { media: disk.Type } : {}),
      ...iops,
      ...(kept && 'random_read_iops_4k' in iops ? { source: kept.source, as_of: kept.as_of, ...(kept.confidence ? { confidence: kept.confidence } : {}) } : dated),
    };
  }
  const hypervisor = oneOf(d.Hypervisor, HYPERVISORS);
  const nvme = oneOf(d.EbsInfo?.NvmeSupport, NVME);
  const optimized = oneOf(d.EbsInfo?.EbsOptimizedSupport, EBS_OPTIMIZED);
  return {
    type: name,
    ...(hypervisor ? { hypervisor } : {}),
    ebs: {
      baseline_mbps: bMbps, max_mbps: mMbps, baseline_iops: bIops, max_iops: mIops,
      ...(bursts ? { burst: { minutes_per_day: BURST_MINUTES_PER_DAY } } : {}),
      ...(nvme ? { nvme_support: nvme } : {}),
      ...(optimized ? { ebs_optimized_support: optimized } : {}),
      ...dated,
    },
    ...(archs.length ? { architectures: archs } : {}),
    ...(store ? { instance_store: store } : {}),
  };
}

/** A type without EBS-optimized limits: its platform alone, so a fleet can refuse it by name. */
function platformOf(d: DescribedType): InstancePlatformInfo | null {
  const name = d.InstanceType;
  if (typeof name !== 'string' || !TYPE_NAME.test(name)) return null;
  const hypervisor = oneOf(d.Hypervisor, HYPERVISORS);
  const nvme = oneOf(d.EbsInfo?.NvmeSupport, NVME);
  const optimized = oneOf(d.EbsInfo?.EbsOptimizedSupport, EBS_OPTIMIZED);
  const archs = (d.ProcessorInfo?.SupportedArchitectures ?? []).filter((a) => /^[a-z0-9_]{1,16}$/.test(a)).slice(0, 8);
  if (!hypervisor && !nvme && !optimized) return null;
  return {
    type: name, ...(hypervisor ? { hypervisor } : {}), ...(nvme ? { nvme_support: nvme } : {}), ...(optimized ? { ebs_optimized_support: optimized } : {}),
    ...(archs.length ? { architectures: archs } : {}),
  };
}

export interface InstanceRefresh {
  file: InstanceCatalogData;
  /** Types the API gave without EBS-optimized limits (left out). */
  skipped: string[];
}

/** The limits file from DescribeInstanceTypes' entries, sorted by type; `base` lends instance store IOPS. */
export function instanceCatalogFrom(described: readonly DescribedType[], base: readonly InstanceTypeInfo[], dated: { source: string; as_of: string; confidence: Confidence }): InstanceRefresh {
  const before = new Map(base.map((i) => [i.type, i]));
  const instances: InstanceTypeInfo[] = [];
  const skipped: string[] = [];
  const platforms = new Map<string, InstancePlatformInfo>();
  const seen = new Set<string>();
  for (const d of described) {
    const entry = entryOf(d, before.get(d.InstanceType ?? ''), dated);
    if (!entry) {
      if (typeof d.InstanceType === 'string') skipped.push(d.InstanceType.slice(0, 40));
      const platform = platformOf(d);
      if (platform) platforms.set(platform.type, platform);
      continue;
    }
    if (seen.has(entry.type)) continue;
    seen.add(entry.type);
    instances.push(entry);
  }
  if (instances.length === 0) {
    throw new VolbenchError('ECLOUD', `ec2:DescribeInstanceTypes gave no instance type with EBS limits (${described.length} types)`, {
      field: '--region', accepted: 'a region that offers EC2 instance types',
    });
  }
  instances.sort((a, b) => a.type.localeCompare(b.type, 'en', { numeric: true }));
  const platformOnly = [...platforms.values()].sort((a, b) => a.type.localeCompare(b.type, 'en', { numeric: true }));
  const file = InstanceCatalog.parse({
    provider: 'aws', service: 'ec2', as_of: dated.as_of, source: dated.source, confidence: dated.confidence, instances,
    ...(platformOnly.length ? { platform_only: platformOnly } : {}),
  });
  return { file, skipped };
}
