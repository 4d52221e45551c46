/**
 * Prices the volume a result names from the catalog (catalog/*.json: AWS, GCP, Azure), for
 * results that do not carry a price of their own, through the cost module. A volume the catalog
 * does not know, or cannot price in the region, stays unpriced: the report leaves its cost
 * columns empty rather than failing.
 */
import { defaultPriceRegion, volumeMonthly, volumeOf, volumeType } from '../cloud/index.js';
import { VolbenchError } from '../errors.js';
import type { PriceVolume } from './cloud-fields.js';

/** A pricer for reports: a result's region, else `defaultRegion` for AWS and each provider's default for the others. */
export function catalogPricer(defaultRegion: string = defaultPriceRegion('aws')): PriceVolume {
  return (fields, region) => {
    if (!fields.volume_type || fields.size_gib === undefined) return null;
    try {
      // A type of another provider than the result names is not this volume.
      if (volumeType(fields.volume_type).provider !== (fields.provider ?? 'aws')) return null;
      const volume = volumeOf({ type: fields.volume_type, sizeGiB: fields.size_gib, iops: fields.iops, throughputMiBps: fields.throughput_mibps });
      const priced = region ?? (volume.provider === 'aws' ? defaultRegion : volume.catalog.default_region);
      const p = volumeMonthly(volume, priced);
      return p ? { usd_per_month: p.usd, as_of: p.as_of, source: p.source, region: priced, ...(p.confidence ? { confidence: p.confidence } : {}) } : null;
    } catch (err) {
      if (err instanceof VolbenchError) return null;
      throw err;
    }
  };
}
