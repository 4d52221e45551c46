/**
 * EBS prices from the AWS Price List Query API (GetProducts, service AmazonEC2), as the
 * catalog's per-region price entries: storage per GB-month (product family Storage), provisioned
 * IOPS per IOPS-month and I/O requests (System Operation; io2's three tiers are three usage
 * types), provisioned throughput (Provisioned Throughput, priced per GiBps-month: /1024 for
 * MiB/s). The API answers from us-east-1 whatever region is priced.
 *
 * The parser takes the PriceList documents as the API returns them (JSON text, format aws_v1)
 * and is separate from the call, so it can be checked on documents of the published shape.
 */
import { awsCall } from './aws-call.js';
import { awsClient, checkAwsRegion } from './aws-clients.js';
import { volumeType } from './catalog.js';
import { catalogTypes, type PricesFileData } from './price-source.js';
import type { RegionPriceInfo } from './schema.js';

/** The Price List Query API's endpoint, and the region its client is made in. */
export const PRICE_LIST_SOURCE = 'https://api.pricing.us-east-1.amazonaws.com/';
export const PRICE_LIST_REGION = 'us-east-1';

/** io2's IOPS tiers (AWS's EBS pricing): up to 32,000, 32,001–64,000, above. */
const IO2_TIER_LIMITS = [32000, 64000, null] as const;

interface Dimension { unit: string; usd: number; begin: number }

interface Product {
  family: string;
  type: string;
  /** The usage type without its region prefix (USE2-, APS1-, ...): EBS:VolumeP-IOPS.io2.tier2. */
  usage: string;
  region?: string;
  dims: Dimension[];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** One PriceList entry (a JSON string, or the parsed object), or undefined when it is not an EBS price. */
export function readProduct(entry: unknown): Product | undefined {
  const doc = typeof entry === 'string' ? (JSON.parse(entry) as unknown) : entry;
  if (!isObject(doc) || !isObject(doc.product) || !isObject(doc.product.attributes)) return undefined;
  const attrs = doc.product.attributes as Record<string, unknown>;
  const family = doc.product.productFamily;
  const type = attrs.volumeApiName;
  const usage = typeof attrs.usagetype === 'string' ? attrs.usagetype.replace(/^[A-Z0-9]+-(?=EBS:)/, '') : '';
  if (typeof family !== 'string' || typeof type !== 'string' || !usage.startsWith('EBS:')) return undefined;
  const dims: Dimension[] = [];
  const onDemand = isObject(doc.terms) && isObject(doc.terms.OnDemand) ? doc.terms.OnDemand : {};
  for (const term of Object.values(onDemand)) {
    if (!isObject(term) || !isObject(term.priceDimensions)) continue;
    for (const d of Object.values(term.priceDimensions)) {
      if (!isObject(d) || !isObject(d.pricePerUnit) || typeof d.unit !== 'string') continue;
      const usd = Number(d.pricePerUnit.USD);
      if (!Number.isFinite(usd) || usd < 0) continue;
      dims.push({ unit: d.unit, usd, begin: Number(d.beginRange ?? 0) || 0 });
    }
  }
  return { family, type, usage, ...(typeof attrs.regionCode === 'string' ? { region: attrs.regionCode } : {}), dims };
}

/** The first dimension's price in one of `units`, from 0 on (the Price List's one-tier products). */
function priceIn(p: Product, units: string[]): number | undefined {
  return p.dims.find((d) => units.includes(d.unit) && d.begin === 0)?.usd;
}

const round = (n: number) => Math.round(n * 1e10) / 1e10;

export interface ParsedPrices {
  /** Each type's complete price entry (without source and date). */
  prices: Record<string, Omit<RegionPriceInfo, 'source' | 'as_of' | 'confidence'>>;
  /** Types left out, and why (a price the type needs was not in the list). */
  missing: Record<string, string>;
}

/**
 * The EBS prices of one region from GetProducts' PriceList entries. A type comes out only when
 * every component it is billed for was found: a provisioned-IOPS type without its IOPS price
 * would be priced as if IOPS were free.
 */
export function parsePriceList(entries: readonly unknown[], region: string, types: readonly string[] = catalogTypes()): ParsedPrices {
  const found: Record<string, { storage?: number; iops?: number; tiers: (number | undefined)[]; tp?: number; perIo?: number }> = {};
  for (const entry of entries) {
    const p = readProduct(entry);
    if (!p || (p.region !== undefined && p.region !== region) || !types.includes(p.type)) continue;
    const f = (found[p.type] ??= { tiers: [] });
    if (p.family === 'Storage' && p.usage.startsWith('EBS:VolumeUsage')) {
      f.storage = priceIn(p, ['GB-Mo', 'GB-month']) ?? f.storage;
    } else if (p.family === 'System Operation' && p.usage.startsWith('EBS:VolumeP-IOPS')) {
      const usd = priceIn(p, ['IOPS-Mo', 'IOPS-month']);
      const tier = /\.tier([23])$/.exec(p.usage);
      if (p.type === 'io2') f.tiers[tier ? Number(tier[1]) - 1 : 0] = usd;
      else f.iops = usd ?? f.iops;
    } else if (p.family === 'System Operation' && p.usage.startsWith('EBS:VolumeIOUsage')) {
      const usd = priceIn(p, ['IOs']);
      if (usd !== undefined) f.perIo = usd;
    } else if (p.family === 'Provisioned Throughput' && p.usage.startsWith('EBS:VolumeP-Throughput')) {
      const gib = priceIn(p, ['GiBps-mo', 'GiBps-Mo']);
      const mib = priceIn(p, ['MiBps-Mo', 'MiBps-mo']);
      f.tp = mib ?? (gib !== undefined ? gib / 1024 : f.tp);
    }
  }
  const out: ParsedPrices = { prices: {}, missing: {} };
  for (const type of types) {
    const f = found[type];
    const t = volumeType(type);
    const lacks: string[] = [];
    if (f?.storage === undefined) lacks.push('storage (Storage, GB-Mo)');
    const tiered = type === 'io2';
    if (t.iops.provisioned && !tiered && f?.iops === undefined) lacks.push('provisioned IOPS (System Operation, IOPS-Mo)');
    if (tiered && IO2_TIER_LIMITS.some((_, i) => f?.tiers[i] === undefined)) lacks.push('io2\'s three IOPS tiers (System Operation, IOPS-Mo)');
    if (t.throughput_mibps.provisioned && f?.tp === undefined) lacks.push('provisioned throughput (Provisioned Throughput, GiBps-mo)');
    if (lacks.length > 0 || !f) {
      out.missing[type] = `no ${lacks.join(', ')} price for ${type} in ${region}`;
      continue;
    }
    out.prices[type] = {
      storage_gb_month: round(f.storage!),
      ...(t.iops.provisioned && !tiered ? { iops_month: round(f.iops!) } : {}),
      ...(tiered ? { iops_month_tiers: IO2_TIER_LIMITS.map((up_to, i) => ({ up_to, usd: round(f.tiers[i]!) })) } : {}),
      ...(t.throughput_mibps.provisioned ? { throughput_mibps_month: round(f.tp!) } : {}),
      ...(f.perIo !== undefined ? { per_million_requests: round(f.perIo * 1e6) } : {}),
    };
  }
  return out;
}

/** Today as YYYY-MM-DD (UTC). */
export function today(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/**
 * Adds a region's parsed prices to a prices file (a new one, or `base` with that region's
 * entries replaced), dated `asOf`.
 */
export function pricesFileWith(base: PricesFileData | undefined, region: string, parsed: ParsedPrices, asOf: string): PricesFileData {
  const prices: PricesFileData['prices'] = structuredClone(base?.prices ?? {});
  for (const [type, p] of Object.entries(parsed.prices)) {
    prices[type] = { ...prices[type], [region]: { ...p, source: PRICE_LIST_SOURCE, as_of: asOf, confidence: 'H' } };
  }
  return { provider: 'aws', service: 'ebs', as_of: asOf, source: PRICE_LIST_SOURCE, prices };
}

/** GetProducts' product families an EBS type is billed under. */
export function familiesOf(type: string): string[] {
  const t = volumeType(type);
  return ['Storage', ...(t.iops.provisioned || type === 'standard' ? ['System Operation'] : []), ...(t.throughput_mibps.provisioned ? ['Provisioned Throughput'] : [])];
}

export interface RefreshOptions {
  /** A shared-config profile; the default credential chain otherwise. */
  profile?: string;
  types?: readonly string[];
}

/**
 * Reads a region's EBS prices from the Price List API: one GetProducts query per type and
 * product family (filtered by volumeApiName and regionCode), every page. Credentials come from
 * the default chain; failures are ECLOUD naming pricing:GetProducts.
 */
export async function fetchPriceList(region: string, opts: RefreshOptions = {}): Promise<unknown[]> {
  checkAwsRegion(region, '--region');
  const { GetProductsCommand, PricingClient } = await import('@aws-sdk/client-pricing');
  const client = awsClient(PricingClient, { region: PRICE_LIST_REGION, profile: opts.profile });
  const entries: unknown[] = [];
  try {
    for (const type of opts.types ?? catalogTypes()) {
      for (const family of familiesOf(type)) {
        let next: string | undefined;
        // Bounded: a region's EBS products per type and family fit in one page or two.
        for (let page = 0; page < 20; page++) {
          const out = await awsCall('pricing:GetProducts', () => client.send(new GetProductsCommand({
            ServiceCode: 'AmazonEC2', FormatVersion: 'aws_v1', MaxResults: 100, NextToken: next,
            Filters: [
              { Type: 'TERM_MATCH', Field: 'productFamily', Value: family },
              { Type: 'TERM_MATCH', Field: 'volumeApiName', Value: type },
              { Type: 'TERM_MATCH', Field: 'regionCode', Value: region },
            ],
          })));
          for (const e of out.PriceList ?? []) entries.push(typeof e === 'string' ? e : String(e));
          next = out.NextToken;
          if (!next) break;
        }
      }
    }
  } finally {
    client.destroy();
  }
  return entries;
}
