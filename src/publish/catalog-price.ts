/**
 * Prices the volume a result names from the catalog (catalog/aws-*.json), for results that do
 * not carry a price of their own. A volume the catalog does not know, or cannot price in the
 * region, stays unpriced: the report leaves its cost columns empty rather than failing.
 */
import { priceVolume } from '../cloud/price.js';
import { VolbenchError } from '../errors.js';
import type { PriceVolume } from './cloud-fields.js';

/** Where a result that does not say its region is priced. */
export const DEFAULT_PRICE_REGION = 'us-east-1';

export function catalogPricer(defaultRegion: string = DEFAULT_PRICE_REGION): PriceVolume {
  return (volume, region) => {
    if ((volume.provider ?? 'aws') !== 'aws' || !volume.volume_type || volume.size_gib === undefined) return null;
    try {
      const p = priceVolume(
        { type: volume.volume_type, sizeGiB: volume.size_gib, iops: volume.iops, throughputMiBps: volume.throughput_mibps },
        region ?? defaultRegion,
      );
      return { usd_per_month: p.total, as_of: p.as_of };
    } catch (err) {
      if (err instanceof VolbenchError) return null;
      throw err;
    }
  };
}
