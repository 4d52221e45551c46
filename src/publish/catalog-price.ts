/**
 * Prices the volume a result names from the catalog (catalog/*.json: AWS, GCP, Azure), for
 * results that do not carry a price of their own. A volume the catalog does not know, or cannot price in the
 * region, stays unpriced: the report leaves its cost columns empty rather than failing.
 */
import { volumeType } from '../cloud/catalog.js';
import { priceVolume } from '../cloud/price.js';
import { VolbenchError } from '../errors.js';
import type { PriceVolume } from './cloud-fields.js';

/** Where an AWS result that does not say its region is priced; other providers' use their catalog's default region. */
export const DEFAULT_PRICE_REGION = 'us-east-1';

export function catalogPricer(defaultRegion: string = DEFAULT_PRICE_REGION): PriceVolume {
  return (volume, region) => {
    if (!volume.volume_type || volume.size_gib === undefined) return null;
    try {
      const type = volumeType(volume.volume_type);
      // A type of another provider than the result names is not this volume.
      if (type.provider !== (volume.provider ?? 'aws')) return null;
      const p = priceVolume(
        { type: volume.volume_type, sizeGiB: volume.size_gib, iops: volume.iops, throughputMiBps: volume.throughput_mibps },
        region ?? (type.provider === 'aws' ? defaultRegion : type.default_region),
      );
      return { usd_per_month: p.total, as_of: p.as_of, region: p.region };
    } catch (err) {
      if (err instanceof VolbenchError) return null;
      throw err;
    }
  };
}
