/**
 * The shipped catalog (catalog/*.json at the package root), validated once on first use.
 */
import { readFileSync } from 'node:fs';

import { VolbenchError } from '../errors.js';
import { closestName } from '../jobspec/suggest.js';
import {
  InstanceCatalog, InstancePriceCatalog, ProviderCatalog, type InstancePlatformInfo, type InstancePriceCatalogData, type InstanceTypeInfo, type ProviderCatalogData, type VolumeTypeInfo,
} from './schema.js';
import type { z } from 'zod';

export const CATALOG_FILES = ['aws-ebs.json', 'aws-instance-store.json', 'gcp-pd.json', 'azure-disk.json'] as const;

let cached: ProviderCatalogData[] | undefined;

/** Parses and checks one catalog file's text; a bad entry names its path in the file. */
export function parseCatalog(text: string, file: string): ProviderCatalogData {
  const parsed = ProviderCatalog.safeParse(JSON.parse(text));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new VolbenchError('EINVALID_SPEC', `catalog ${file}: ${issue.path.join('.')}: ${issue.message}`, { field: issue.path.join('.'), path: file });
  }
  return parsed.data;
}

export function loadCatalog(): ProviderCatalogData[] {
  cached ??= CATALOG_FILES.map((name) => {
    const url = new URL(`../../catalog/${name}`, import.meta.url);
    return parseCatalog(readFileSync(url, 'utf8'), name);
  });
  return cached;
}

export type CatalogVolumeType = VolumeTypeInfo & { provider: string; default_region: string };

/** The providers the catalog has files for (aws, gcp, azure). */
export function catalogProviders(): string[] {
  return [...new Set(loadCatalog().map((c) => c.provider))];
}

/** Checks a provider name (--provider, the route's path), naming the closest known one. */
export function checkProvider(name: string, field: string): string {
  const known = catalogProviders();
  if (known.includes(name)) return name;
  const near = closestName(name, known);
  throw new VolbenchError('EINVALID_VALUE', `no provider '${name}' in the catalog${near ? `; did you mean '${near}'?` : ''}`, { field, accepted: known.join(', ') });
}

/** A volume type by name (gp3, pd-ssd, premium-ssd, ...), or an error naming the closest known one. */
export function volumeType(name: string): CatalogVolumeType {
  const all = loadCatalog().flatMap((c) => c.types.map((t) => ({ ...t, provider: c.provider, default_region: c.default_region })));
  const found = all.find((t) => t.type === name);
  if (found) return found;
  const near = closestName(name, all.map((t) => t.type));
  throw new VolbenchError('EVOLUME_TYPE', `unknown volume type '${name}'${near ? `; did you mean '${near}'?` : ''}`, {
    field: 'volume.type', accepted: all.map((t) => t.type).join(', '),
  });
}

/** One catalog file of the package, checked against its schema; a bad entry names its path. */
function readCatalogFile<S extends z.ZodType>(name: string, schema: S): z.infer<S> {
  const text = readFileSync(new URL(`../../catalog/${name}`, import.meta.url), 'utf8');
  const parsed = schema.safeParse(JSON.parse(text));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new VolbenchError('EINVALID_SPEC', `catalog ${name}: ${issue.path.join('.')}: ${issue.message}`, { field: issue.path.join('.'), path: name });
  }
  return parsed.data;
}

let instanceCatalog: z.infer<typeof InstanceCatalog> | undefined;

/** EC2 instance types' EBS limits (catalog/aws-ec2-instances.json). */
export function loadInstances(): InstanceTypeInfo[] {
  instanceCatalog ??= readCatalogFile('aws-ec2-instances.json', InstanceCatalog);
  return instanceCatalog.instances;
}

/** Every type whose platform the catalog knows: those with EBS limits, and those without (t2, ...). */
export function instancePlatforms(): InstancePlatformInfo[] {
  const limited = loadInstances().map((i) => ({
    type: i.type, ...(i.hypervisor ? { hypervisor: i.hypervisor } : {}), ...(i.ebs.nvme_support ? { nvme_support: i.ebs.nvme_support } : {}),
    ...(i.ebs.ebs_optimized_support ? { ebs_optimized_support: i.ebs.ebs_optimized_support } : {}), ...(i.architectures ? { architectures: i.architectures } : {}),
  }));
  return [...limited, ...(instanceCatalog!.platform_only ?? [])];
}

/** When each AWS catalog file was read: what a result names so a later comparison knows its model. */
export interface CatalogDates {
  volumes: string;
  instances: string;
  instance_prices: string;
}

export function awsCatalogDates(): CatalogDates {
  loadInstances();
  const ebs = loadCatalog().find((c) => c.provider === 'aws' && c.types.some((t) => t.type === 'gp3'));
  return { volumes: ebs?.as_of ?? 'unknown', instances: instanceCatalog!.as_of, instance_prices: loadInstancePrices().as_of };
}

let instancePrices: InstancePriceCatalogData | undefined;

/** EC2 on-demand prices by region and instance type (catalog/aws-ec2-prices.json), dated and sourced. */
export function loadInstancePrices(): InstancePriceCatalogData {
  instancePrices ??= readCatalogFile('aws-ec2-prices.json', InstancePriceCatalog);
  return instancePrices;
}

/** An instance type by name, or an error naming the closest known one. */
export function instanceType(name: string): InstanceTypeInfo {
  const all = loadInstances();
  const found = all.find((i) => i.type === name);
  if (found) return found;
  const near = closestName(name, all.map((i) => i.type));
  throw new VolbenchError('EINVALID_VALUE', `unknown instance type '${name}'${near ? `; did you mean '${near}'?` : ''}`, {
    field: 'instance', accepted: `one of the ${all.length} types in the catalog`,
  });
}
