/**
 * What a volume costs a month, by component (storage, provisioned IOPS, throughput), from the
 * catalog's dated prices for the region, or a prices file's (--prices, VOLBENCH_PRICES).
 */
import { VolbenchError } from '../errors.js';
import { closestName } from '../jobspec/suggest.js';
import { priceRegions, regionPrice } from './price-source.js';
import type { Volume } from './volume.js';

export interface VolumePrice {
  region: string;
  currency: 'USD';
  /** The size tier billed, for tiered types (Azure: P10 for 100 GiB). */
  tier?: string;
  storage: number;
  iops: number;
  throughput: number;
  total: number;
  source: string;
  as_of: string;
  confidence?: 'H' | 'M' | 'L';
}

const cents = (n: number) => Math.round(n * 100) / 100;

/** A volume's monthly price in `region`, by component. */
export function priceVolume(volume: Volume, region: string): VolumePrice {
  const t = volume.catalog;
  const p = regionPrice(t.type, region);
  if (!p) {
    const known = priceRegions(t.type);
    const near = closestName(region, known);
    throw new VolbenchError('EINVALID_VALUE', `no ${t.type} prices for region '${region}'${near ? `; did you mean '${near}'?` : ''}`, {
      field: 'region', accepted: known.join(', '),
    });
  }
  // A tiered disk is billed as the smallest tier that holds it; instance store comes with the instance.
  const tier = volume.tier;
  const storage = t.from_instance ? 0 : tier ? p.tier_month?.[tier.name] : volume.sizeGiB * p.storage_gb_month;
  if (storage === undefined) {
    throw new VolbenchError('EINVALID_VALUE', `no ${t.type} ${tier!.name} price for region '${region}'`, { field: 'region', accepted: priceRegions(t.type).join(', ') });
  }
  let iops = 0;
  const provisioned = volume.provisionedIops ?? 0;
  const billable = Math.max(0, provisioned - (t.iops.included ?? 0));
  if (p.iops_month_tiers) {
    let from = 0;
    for (const tier of p.iops_month_tiers) {
      const to = tier.up_to ?? Infinity;
      iops += Math.max(0, Math.min(billable, to) - from) * tier.usd;
      from = to;
      if (billable <= to) break;
    }
  } else if (p.iops_month !== undefined) {
    iops = billable * p.iops_month;
  }
  const tp = volume.provisionedThroughputMiBps ?? 0;
  const throughput = p.throughput_mibps_month !== undefined ? Math.max(0, tp - (t.throughput_mibps.included ?? 0)) * p.throughput_mibps_month : 0;
  return {
    region, currency: 'USD', ...(tier ? { tier: tier.name } : {}), storage: cents(storage), iops: cents(iops), throughput: cents(throughput),
    total: cents(storage + iops + throughput), source: p.source, as_of: p.as_of, ...(p.confidence ? { confidence: p.confidence } : {}),
  };
}
