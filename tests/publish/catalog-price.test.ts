/**
 * The report's pricer: a result's volume priced from the catalog, whatever its provider, in the
 * result's region or the provider's default one; a volume it cannot place stays unpriced.
 */
import { describe, expect, it } from 'vitest';

import { parseVolume } from '../../src/cloud/volume-text.js';
import { priceVolume } from '../../src/cloud/volume-price.js';
import { catalogPricer } from '../../src/publish/catalog-price.js';
import { requires } from '../helpers/requires.js';

requires();

describe('catalogPricer', () => {
  const price = catalogPricer();

  it('prices an EBS volume in us-east-1 when the result names no region (gp3 500 GiB, 6000 IOPS, 250 MiB/s: $60.00)', () => {
    expect(price({ provider: 'aws', volume_type: 'gp3', size_gib: 500, iops: 6000, throughput_mibps: 250 })?.usd_per_month).toBe(60);
  });

  it('prices GCP and Azure disks in their own default regions, as the catalog does', () => {
    const gcp = price({ provider: 'gcp', volume_type: 'pd-ssd', size_gib: 200 });
    expect(gcp?.usd_per_month).toBe(priceVolume(parseVolume('pd-ssd:200g'), 'us-central1').total);
    expect(gcp?.usd_per_month).toBeGreaterThan(0);
    const azure = price({ provider: 'azure', volume_type: 'premium-ssd', size_gib: 100 });
    expect(azure?.usd_per_month).toBe(priceVolume(parseVolume('premium-ssd:100g'), 'eastus').total);
  });

  it('leaves unpriced a type of another provider than the result names, an unknown type or region, or no size', () => {
    expect(price({ provider: 'aws', volume_type: 'pd-ssd', size_gib: 200 })).toBeNull();
    expect(price({ provider: 'aws', volume_type: 'gp9', size_gib: 200 })).toBeNull();
    expect(price({ provider: 'aws', volume_type: 'gp3', size_gib: 200 }, 'mars-north-1')).toBeNull();
    expect(price({ provider: 'aws', volume_type: 'gp3' })).toBeNull();
  });
});
