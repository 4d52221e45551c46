/**
 * What things cost, in one place: a volume a month and an instance an hour (each a DatedPrice:
 * USD with its source, date and confidence), which region's prices stand in for a region that
 * has none, a fleet's cost for its hours, and a volume's price per unit of performance.
 *
 * Both EC2 and EBS bill by the second (60 s minimum): a monthly price is prorated over
 * HOURS_PER_MONTH hours.
 */
import { VolbenchError } from '../errors.js';
import { catalogProviders, loadCatalog, loadInstancePrices } from './catalog.js';
import { priceVolume } from './volume-price.js';
import { priceRegions } from './price-source.js';
import type { Confidence } from './schema.js';
import type { Volume } from './volume.js';

/** The month a monthly price is prorated over: 730 hours (AWS's basis, 8,760 / 12). */
export const HOURS_PER_MONTH = 730;

/** A price with where it comes from and when it was read. */
export interface DatedPrice {
  usd: number;
  source: string;
  as_of: string;
  confidence?: Confidence;
  /** Set when the price is another region's, used for want of this one's. */
  region_used?: string;
}

/** The region whose prices a provider's volumes take when none is named: the catalog's default. */
export function defaultPriceRegion(provider: string): string {
  const found = loadCatalog().find((c) => c.provider === provider);
  if (!found) throw new VolbenchError('EINVALID_VALUE', `no provider '${provider}' in the catalog`, { field: 'provider', accepted: catalogProviders().join(', ') });
  return found.default_region;
}

/**
 * The one rule for a region without prices: the region asked for where it is priced; else,
 * with `fallback`, the provider's default region, named in `region_used`; else none.
 */
export function pricedRegion(known: readonly string[], asked: string, fallbackRegion: string, fallback: boolean): { region: string; used?: string } | undefined {
  if (known.includes(asked)) return { region: asked };
  if (fallback && known.includes(fallbackRegion)) return { region: fallbackRegion, used: fallbackRegion };
  return undefined;
}

export interface PriceOptions {
  /** Use the provider's default region's price where `region` has none (and say so). Default false. */
  fallback?: boolean;
}

/** A volume's monthly price in `region` (default: its provider's), or undefined where none is known. */
export function volumeMonthly(v: Volume, region?: string, opts: PriceOptions = {}): DatedPrice | undefined {
  const home = v.catalog.default_region;
  const where = pricedRegion(priceRegions(v.type), region ?? home, home, opts.fallback ?? false);
  if (!where) return undefined;
  let p;
  try {
    p = priceVolume(v, where.region);
  } catch (err) {
    // A region the prices have, without this volume's size tier (Azure): unpriced, not an error.
    if (err instanceof VolbenchError) return undefined;
    throw err;
  }
  return { usd: p.total, source: p.source, as_of: p.as_of, ...(p.confidence ? { confidence: p.confidence } : {}), ...(where.used ? { region_used: where.used } : {}) };
}

/** An EC2 instance type's on-demand price an hour in `region`, else the default region's (named), else undefined. */
export function instanceHourly(type: string, region: string): DatedPrice | undefined {
  const file = loadInstancePrices();
  const known = Object.keys(file.regions).filter((r) => Object.hasOwn(file.regions[r], type));
  const where = pricedRegion(known, region, defaultPriceRegion('aws'), true);
  if (!where) return undefined;
  return {
    usd: file.regions[where.region][type], source: file.source, as_of: file.as_of,
    ...(file.confidence ? { confidence: file.confidence } : {}), ...(where.used ? { region_used: where.used } : {}),
  };
}

/**
 * A public IPv4 address an hour, in use or idle: AWS bills every one since 2024-02-01. A fleet
 * member in a subnet that gives public addresses has one (its instance's).
 */
export const PUBLIC_IPV4_HOURLY: DatedPrice = { usd: 0.005, source: 'https://aws.amazon.com/vpc/pricing/', as_of: '2024-02-01', confidence: 'M' };

/** What each member pays besides its instance and its data volume: its root volume (a month) and its public address (an hour). */
export interface MemberOverhead {
  rootVolumeMonthly?: DatedPrice;
  publicIpv4Hourly?: DatedPrice;
}

/**
 * What a fleet costs an hour: one instance per volume, each volume's monthly price prorated,
 * and each member's overhead (root volume prorated, public address). `complete` is false where a
 * price is unknown (that part counts as nothing in `usd`).
 */
export function fleetUsdPerHour(instance: DatedPrice | undefined, volumes: ReadonlyArray<DatedPrice | undefined>, overhead: MemberOverhead = {}): { usd: number; complete: boolean } {
  const perVolume = volumes.reduce((sum, v) => sum + (v?.usd ?? 0) / HOURS_PER_MONTH, 0);
  const perMember = (overhead.rootVolumeMonthly?.usd ?? 0) / HOURS_PER_MONTH + (overhead.publicIpv4Hourly?.usd ?? 0);
  return { usd: ((instance?.usd ?? 0) + perMember) * volumes.length + perVolume, complete: instance !== undefined && volumes.every((v) => v !== undefined) };
}

/** A fleet's cost for `hours`, in whole cents; undefined when a price is unknown. */
export function fleetUsd(instance: DatedPrice | undefined, volumes: ReadonlyArray<DatedPrice | undefined>, hours: number, overhead: MemberOverhead = {}): number | undefined {
  const rate = fleetUsdPerHour(instance, volumes, overhead);
  return rate.complete ? cents(rate.usd * hours) : undefined;
}

export const cents = (usd: number): number => Math.round(usd * 100) / 100;

/**
 * $ a month per 1,000 IOPS delivered; null without a price or a rate. A price of $0 (instance
 * store: its cost is the instance's) gives null too, or it would win every "lowest $" verdict.
 */
export function usdPer1000Iops(usdPerMonth: number | null | undefined, iops: number | null | undefined): number | null {
  return usdPerMonth == null || usdPerMonth <= 0 || !iops || iops <= 0 ? null : usdPerMonth / (iops / 1000);
}

/** $ a month per MiB/s delivered; null without a price (or a price of $0, as above) or a rate. */
export function usdPerMibps(usdPerMonth: number | null | undefined, mibps: number | null | undefined): number | null {
  return usdPerMonth == null || usdPerMonth <= 0 || !mibps || mibps <= 0 ? null : usdPerMonth / mibps;
}

/** What a cost per month covers: the volume alone, or the volume and its instance's share (`total`). */
export type CostScope = 'volume' | 'total';
export const COST_SCOPES: readonly CostScope[] = ['volume', 'total'];

/**
 * How long a month is when an hourly price is made monthly (or a monthly one hourly): AWS's
 * 730 hours, or the length of a named calendar month (672–744 hours).
 */
export interface CostBasis {
  kind: '730h' | 'calendar';
  hours_per_month: number;
  /** With calendar: the month, YYYY-MM (UTC). */
  month?: string;
}

/** The basis by name: `730h` (default), or `calendar` for the month of `at` (UTC). */
export function costBasis(kind: '730h' | 'calendar' = '730h', at: Date = new Date()): CostBasis {
  if (kind === '730h') return { kind, hours_per_month: HOURS_PER_MONTH };
  const y = at.getUTCFullYear();
  const m = at.getUTCMonth();
  const days = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return { kind, hours_per_month: days * 24, month: `${y}-${String(m + 1).padStart(2, '0')}` };
}

/** The basis as a line under a table: "730 h a month (AWS's basis)" or "the month's 744 h (2026-12)". */
export function basisText(b: CostBasis): string {
  return b.kind === '730h' ? `${b.hours_per_month} h a month (AWS's basis, 8,760 / 12)` : `the month's real length: ${b.hours_per_month} h (${b.month})`;
}

/** Checks --cost (volume|total), naming the field. */
export function checkCostScope(given: string | undefined, field = '--cost'): CostScope {
  if (given === undefined) return 'volume';
  if ((COST_SCOPES as readonly string[]).includes(given)) return given as CostScope;
  throw new VolbenchError('EINVALID_ARGS', `${field} takes volume or total, not '${given.slice(0, 32)}'`, { field, accepted: 'volume, total (adds the instance\'s share)' });
}

/** Checks --cost-basis (730h|calendar), naming the field. */
export function checkCostBasis(given: string | undefined, field = '--cost-basis'): CostBasis {
  if (given === undefined || given === '730h') return costBasis('730h');
  if (given === 'calendar') return costBasis('calendar');
  throw new VolbenchError('EINVALID_ARGS', `${field} takes 730h or calendar, not '${given.slice(0, 32)}'`, { field, accepted: '730h (AWS\'s average month), calendar (this month\'s real length)' });
}

/**
 * A month of the volume, or of the volume and one instance (`total`): the instance's hourly
 * price times the basis' hours. Undefined where a price it needs is unknown.
 */
export function monthlyCost(volume: DatedPrice | undefined, instance: DatedPrice | undefined, scope: CostScope, basis: CostBasis): number | undefined {
  if (!volume) return undefined;
  if (scope === 'volume') return volume.usd;
  return instance ? volume.usd + instance.usd * basis.hours_per_month : undefined;
}
