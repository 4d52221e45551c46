/**
 * The GCP and Azure catalog files and instance store: each file valid, dated and sourced from its
 * provider's pages; the documented figures (pd-balanced 100 GiB: 3,000 + 6 per GiB = 3,600 IOPS,
 * 140 + 0.28 per GiB = 168 MiB/s; Premium SSD 100 GiB is a P10 of 128 GiB, 500 IOPS and
 * 100 MB/s; Premium SSD v2 includes 3,000 IOPS and 125 MB/s; instance store is its instance's);
 * prices at the documented rates; and a size or IOPS a type does not allow refused naming the
 * limit and its source.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import {
  entitlement, gbToGiB, loadCatalog, loadInstances, parseCatalog, parseVolume, priceVolume, regionPrice, volumeType,
} from '../../src/cloud/index.js';
import { requires } from '../helpers/requires.js';
import { thrownVolbenchError } from '../helpers/run-fixtures.js';

requires();

const KiB = 1024;
const MiB = 1024 * KiB;
const TODAY = new Date().toISOString().slice(0, 10);

const refusal = thrownVolbenchError;

const catalogFile = (name: string) => readFileSync(join(import.meta.dirname, '..', '..', 'catalog', name), 'utf8');

describe('the GCP, Azure and instance store files', () => {
  const hosts: Record<string, RegExp> = {
    'gcp-pd.json': /^https:\/\/cloud\.google\.com\//,
    'azure-disk.json': /^https:\/\/(learn\.microsoft\.com|azure\.microsoft\.com)\//,
    'aws-instance-store.json': /^https:\/\/(docs\.aws\.amazon\.com|aws\.amazon\.com)\//,
  };
  for (const [file, host] of Object.entries(hosts)) {
    it(`${file} passes the schema; every limit and price is sourced from the provider and dated no later than today`, () => {
      const c = parseCatalog(catalogFile(file), file);
      for (const t of c.types) {
        const parts = [t.size_gib, t.iops, t.throughput_mibps, ...(t.burst ? [t.burst] : []), ...(t.delivery ? [t.delivery] : []), ...Object.values(t.prices)];
        for (const part of parts) {
          expect(part.source, `${t.type}`).toMatch(host);
          expect(part.as_of <= TODAY, `${t.type} as_of ${part.as_of}`).toBe(true);
          expect(part.confidence, `${t.type}`).toMatch(/^[HML]$/);
        }
        expect(t.prices[c.default_region], t.type).toBeDefined();
      }
    });
  }

  it('knows the seven GCP types in us-central1 and the four Azure types in eastus', () => {
    const byProvider = (p: string) => loadCatalog().filter((c) => c.provider === p).flatMap((c) => c.types.map((t) => t.type));
    expect(byProvider('gcp')).toEqual(['pd-standard', 'pd-balanced', 'pd-ssd', 'pd-extreme', 'hyperdisk-balanced', 'hyperdisk-throughput', 'hyperdisk-extreme']);
    expect(byProvider('azure')).toEqual(['premium-ssd-v2', 'premium-ssd', 'standard-ssd', 'ultra-disk']);
    expect(volumeType('pd-ssd').default_region).toBe('us-central1');
    expect(volumeType('premium-ssd').default_region).toBe('eastus');
  });

  it('refuses a tier without its price, tiers out of order, and a type not priced in the default region, naming where', () => {
    const doc = JSON.parse(catalogFile('azure-disk.json'));
    const premium = doc.types.findIndex((t: { type: string }) => t.type === 'premium-ssd');
    const noPrice = structuredClone(doc);
    delete noPrice.types[premium].prices.eastus.tier_month.P10;
    expect(() => parseCatalog(JSON.stringify(noPrice), 'bad.json')).toThrow(`bad.json: types.${premium}.prices.eastus.tier_month.P10: every tier needs its price`);
    const swapped = structuredClone(doc);
    const tiers = swapped.types[premium].tiers;
    [tiers[0], tiers[1]] = [tiers[1], tiers[0]];
    expect(() => parseCatalog(JSON.stringify(swapped), 'bad.json')).toThrow(/tiers go smallest first/);
    const elsewhere = structuredClone(doc);
    elsewhere.default_region = 'westeurope';
    expect(() => parseCatalog(JSON.stringify(elsewhere), 'bad.json')).toThrow(/prices.westeurope: every type is priced in the default region/);
  });
});

describe('GCP Persistent Disk: a baseline plus so much per GiB', () => {
  it('pd-balanced 100 GiB: 3,000 + 6 × 100 = 3,600 IOPS; 140 + 0.28 × 100 = 168 MiB/s', () => {
    const v = parseVolume('pd-balanced:size=100g');
    expect(entitlement(v, { bs: 4 * KiB }).entitled).toMatchObject({ iops: 3600, bound_by: 'volume-iops' });
    expect(entitlement(v, { bs: MiB, sequential: true }).entitled).toMatchObject({ mibps: 168, bound_by: 'volume-throughput' });
  });

  it('pd-ssd 500 GiB: 30 IOPS per GiB (15,000) on its 6,000 baseline is 21,000; 240 + 0.48 × 500 = 480 MiB/s; 5 TiB reaches the 100,000 cap', () => {
    const v = parseVolume('pd-ssd:size=500g');
    expect(entitlement(v, { bs: 4 * KiB }).entitled.iops).toBe(6000 + 30 * 500);
    expect(entitlement(v, { bs: MiB, sequential: true }).entitled.mibps).toBe(480);
    expect(entitlement(parseVolume('pd-ssd:size=5t'), { bs: 4 * KiB }).entitled.iops).toBe(100000);
  });

  it('pd-standard 1 TiB: 0.75 read and 1.5 write IOPS per GiB; a mix shares them', () => {
    const v = parseVolume('pd-standard:size=1t');
    expect(entitlement(v, { bs: 4 * KiB, direction: 'read' }).entitled.iops).toBe(768);
    expect(entitlement(v, { bs: 4 * KiB, direction: 'write' }).entitled.iops).toBe(1536);
    expect(entitlement(v, { bs: 4 * KiB, direction: 'mixed' }).entitled.iops).toBe(1024);
  });

  it("prices at GCP's per-GiB rates: 200 GiB standard $8.00 and SSD $34.00 (GCP's own example), pd-balanced 100 GiB $10.00", () => {
    expect(priceVolume(parseVolume('pd-standard:size=200g'), 'us-central1').total).toBe(8);
    expect(priceVolume(parseVolume('pd-ssd:size=200g'), 'us-central1').total).toBe(34);
    expect(priceVolume(parseVolume('pd-balanced:size=100g'), 'us-central1').total).toBe(10);
    // pd-extreme bills every provisioned IOPS.
    const x = priceVolume(parseVolume('pd-extreme:size=500g:iops=10000'), 'us-central1');
    const rate = regionPrice('pd-extreme', 'us-central1')!;
    expect(x.storage).toBeCloseTo(500 * rate.storage_gb_month, 2);
    expect(x.iops).toBeCloseTo(10000 * rate.iops_month!, 2);
  });
});

describe('GCP Hyperdisk: provisioned performance', () => {
  it('hyperdisk-balanced includes 3,000 IOPS and 140 MiB/s; only what is above them is billed', () => {
    const v = parseVolume('hyperdisk-balanced:size=100g');
    expect(entitlement(v, { bs: 4 * KiB }).entitled.iops).toBe(3000);
    expect(entitlement(v, { bs: MiB, sequential: true }).entitled.mibps).toBe(140);
    const rate = regionPrice('hyperdisk-balanced', 'us-central1')!;
    expect(priceVolume(v, 'us-central1')).toMatchObject({ iops: 0, throughput: 0 });
    const p = priceVolume(parseVolume('hyperdisk-balanced:size=100g:iops=10000:throughput=500'), 'us-central1');
    expect(p.iops).toBeCloseTo(7000 * rate.iops_month!, 2);
    expect(p.throughput).toBeCloseTo(360 * rate.throughput_mibps_month!, 2);
  });

  it('hyperdisk-balanced: at most 500 IOPS per GiB and IOPS/4 MiB/s; at least IOPS/256 MiB/s', () => {
    expect(refusal(() => parseVolume('hyperdisk-balanced:size=10g:iops=6000')).message).toMatch(/at most 500 IOPS per GiB \(5000 for 10 GiB\) \(https:\/\/cloud\.google\.com\//);
    expect(refusal(() => parseVolume('hyperdisk-balanced:size=100g:iops=3000:throughput=1000')).message).toMatch(/at most 0.25 MiB\/s per provisioned IOPS \(750 for 3000 IOPS\)/);
    expect(refusal(() => parseVolume('hyperdisk-balanced:size=1t:iops=160000:throughput=200')).message).toMatch(/at least 0.004 MiB\/s per provisioned IOPS \(625 for 160000 IOPS\)/);
    // Without a throughput, the least the IOPS allow.
    expect(entitlement(parseVolume('hyperdisk-balanced:size=1t:iops=160000'), { bs: MiB, sequential: true }).entitled.mibps).toBe(625);
  });

  it('hyperdisk-throughput: 10–90 MiB/s per TiB, each MiB/s with 4 IOPS', () => {
    expect(refusal(() => parseVolume('hyperdisk-throughput:size=4t:throughput=30')).message).toMatch(/at least 10 MiB\/s per TiB \(40 for 4096 GiB\)/);
    expect(refusal(() => parseVolume('hyperdisk-throughput:size=4t:throughput=400')).message).toMatch(/at most 90 MiB\/s per TiB \(360 for 4096 GiB\)/);
    expect(refusal(() => parseVolume('hyperdisk-throughput:size=4t')).message).toMatch(/needs provisioned throughput/);
    expect(refusal(() => parseVolume('hyperdisk-throughput:size=4t:iops=800:throughput=200')).message).toMatch(/has no provisioned IOPS/);
    expect(entitlement(parseVolume('hyperdisk-throughput:size=4t:throughput=200'), { bs: 4 * KiB }).entitled.iops).toBe(800);
  });

  it('hyperdisk-extreme: 2–1,200 IOPS per GiB provisioned; 250 MiB/s with every 1,000 IOPS, up to 5,000', () => {
    expect(refusal(() => parseVolume('hyperdisk-extreme:size=100g:iops=150000')).message).toMatch(/at most 1200 IOPS per GiB \(120000 for 100 GiB\)/);
    expect(refusal(() => parseVolume('hyperdisk-extreme:size=1t:iops=1000')).message).toMatch(/at least 2 IOPS per GiB \(2048 for 1024 GiB\)/);
    expect(entitlement(parseVolume('hyperdisk-extreme:size=100g:iops=8000'), { bs: MiB, sequential: true }).entitled.mibps).toBe(2000);
    expect(entitlement(parseVolume('hyperdisk-extreme:size=100g:iops=100000'), { bs: MiB, sequential: true }).entitled.mibps).toBe(5000);
  });
});

describe('Azure: fixed size tiers and provisioned disks', () => {
  it('premium-ssd 100 GiB is a P10 (128 GiB): 500 IOPS and 100 MB/s, bursting to 3,500 IOPS and 170 MB/s for 30 minutes', () => {
    const v = parseVolume('premium-ssd:size=100g');
    const empty = entitlement(v, { bs: 4 * KiB, burstBalance: 0 });
    expect(empty.entitled).toMatchObject({ iops: 500, bound_by: 'burst-credits' });
    expect(entitlement(v, { bs: MiB, sequential: true, burstBalance: 0 }).entitled.mibps).toBe(100);
    const full = entitlement(v, { bs: 4 * KiB });
    expect(full.entitled.iops).toBe(3500);
    expect(full.burst).toEqual({ level: 3500, baseline: 500, unit: 'IOPS', seconds_from_full: 1800, seconds_at_job_rate: 1800 });
    expect(entitlement(v, { bs: MiB, sequential: true }).entitled.mibps).toBe(170);
  });

  it('bills a disk as the smallest tier that holds it, as Azure does', () => {
    expect(priceVolume(parseVolume('premium-ssd:size=100g'), 'eastus')).toMatchObject({ tier: 'P10', storage: 19.71, total: 19.71 });
    expect(priceVolume(parseVolume('premium-ssd:size=128g'), 'eastus').tier).toBe('P10');
    expect(priceVolume(parseVolume('premium-ssd:size=129g'), 'eastus').tier).toBe('P15');
    expect(priceVolume(parseVolume('premium-ssd:size=512g'), 'eastus')).toMatchObject({ tier: 'P20', total: 73.22 });
    expect(priceVolume(parseVolume('standard-ssd:size=512g'), 'eastus')).toMatchObject({ tier: 'E20', total: 38.4 });
    // P30 and up do not burst on credits.
    const p30 = entitlement(parseVolume('premium-ssd:size=600g'), { bs: 4 * KiB });
    expect(p30.entitled).toMatchObject({ iops: 5000 });
    expect(p30.burst).toBeUndefined();
    expect(refusal(() => parseVolume('premium-ssd:size=40000g')).message).toMatch(/premium-ssd volumes are 4–32767 GiB, not 40000 \(https:\/\/learn\.microsoft\.com\//);
    expect(refusal(() => parseVolume('premium-ssd:size=100g:iops=1000')).field).toBe('--volume.iops');
  });

  it('premium-ssd-v2 includes 3,000 IOPS and 125 MB/s; at most 500 IOPS per GiB above that, and 80,000', () => {
    const v = parseVolume('premium-ssd-v2:size=100g');
    expect(v).toEqual({ type: 'premium-ssd-v2', sizeGiB: 100 });
    expect(entitlement(v, { bs: 4 * KiB }).entitled.iops).toBe(3000);
    expect(entitlement(v, { bs: MiB, sequential: true }).entitled.mibps).toBe(125);
    expect(priceVolume(v, 'eastus')).toMatchObject({ iops: 0, throughput: 0 });
    const cap = refusal(() => parseVolume('premium-ssd-v2:size=10g:iops=6000'));
    expect(cap.message).toMatch(/at most 500 IOPS per GiB \(5000 for 10 GiB\) \(https:\/\/learn\.microsoft\.com\//);
    expect(cap.field).toBe('--volume.iops');
    expect(entitlement(parseVolume('premium-ssd-v2:size=10g:iops=5000'), { bs: 4 * KiB }).entitled.iops).toBe(5000);
    // What is included comes at any size.
    expect(entitlement(parseVolume('premium-ssd-v2:size=2g:iops=3000'), { bs: 4 * KiB }).entitled.iops).toBe(3000);
    expect(refusal(() => parseVolume('premium-ssd-v2:size=1t:iops=100000')).message).toMatch(/at most 80000 IOPS/);
  });

  it('ultra-disk needs both IOPS and throughput, and prices every unit of them', () => {
    expect(refusal(() => parseVolume('ultra-disk:size=1t')).message).toMatch(/needs provisioned IOPS/);
    expect(refusal(() => parseVolume('ultra-disk:size=1t:iops=20000')).message).toMatch(/needs provisioned throughput/);
    const p = priceVolume(parseVolume('ultra-disk:size=1t:iops=20000:throughput=500'), 'eastus');
    const rate = regionPrice('ultra-disk', 'eastus')!;
    expect(p.iops).toBeCloseTo(20000 * rate.iops_month!, 2);
    expect(p.throughput).toBeCloseTo(500 * rate.throughput_mibps_month!, 2);
  });

  it('names the closest type and region it knows', () => {
    expect(refusal(() => parseVolume('premium-sdd:size=100g')).message).toMatch(/did you mean 'premium-ssd'/);
    expect(refusal(() => priceVolume(parseVolume('premium-ssd:size=100g'), 'eastus2')).message).toMatch(/did you mean 'eastus'/);
    expect(refusal(() => priceVolume(parseVolume('pd-ssd:size=100g'), 'us-centrl1')).message).toMatch(/did you mean 'us-central1'/);
  });

  it('an EC2 instance type does not bound a GCP or Azure disk', () => {
    const e = refusal(() => entitlement(parseVolume('pd-ssd:size=100g'), { bs: 4 * KiB, instance: 'm6i.large' }));
    expect(e.field).toBe('instance');
    expect(e.message).toMatch(/m6i.large is an EC2 instance type and pd-ssd a gcp volume/);
  });
});

describe('instance store', () => {
  it('i4i.xlarge: its one device reads 62,500 and writes 50,000 4 KiB IOPS, above the instance\'s 40,000 EBS IOPS, at no price', () => {
    const v = parseVolume('instance-store');
    expect(v).toEqual({ type: 'instance-store', sizeGiB: 0 });
    const read = entitlement(v, { bs: 4 * KiB, instance: 'i4i.xlarge', direction: 'read' });
    expect(read).toMatchObject({ entitled: { iops: 62500, bound_by: 'volume-iops' }, counted_io_kib: 4 });
    expect(entitlement(v, { bs: 4 * KiB, instance: 'i4i.xlarge', direction: 'write' }).entitled.iops).toBe(50000);
    expect(entitlement(v, { bs: 4 * KiB, instance: 'i4i.xlarge', direction: 'mixed' }).entitled.iops).toBeCloseTo(2 / (1 / 62500 + 1 / 50000), 1);
    expect(priceVolume(v, 'us-east-1').total).toBe(0);
  });

  it('is per device: i3en.24xlarge states 2,000,000 read IOPS over 8 devices, 250,000 each', () => {
    expect(entitlement(parseVolume('instance-store'), { bs: 4 * KiB, instance: 'i3en.24xlarge' }).entitled.iops).toBe(250000);
  });

  it('needs an instance type that has instance store, naming the field', () => {
    const none = refusal(() => entitlement(parseVolume('instance-store'), { bs: 4 * KiB }));
    expect(none.field).toBe('instance');
    expect(none.message).toMatch(/the instance type's: say which instance type/);
    const m6i = refusal(() => entitlement(parseVolume('instance-store'), { bs: 4 * KiB, instance: 'm6i.large' }));
    expect(m6i.field).toBe('instance');
    expect(m6i.message).toMatch(/m6i.large has no instance store/);
    // i4i.xlarge's device is 937 GB, 872 GiB.
    const big = refusal(() => entitlement(parseVolume('instance-store:size=900g'), { bs: 4 * KiB, instance: 'i4i.xlarge' }));
    expect(big.message).toMatch(/937 GB \(872 GiB\), not 900 GiB \(https:\/\/docs\.aws\.amazon\.com\//);
  });

  it('the instance data has the i3, i4i and i3en families, i3en.large to i3en.24xlarge, each with its devices', () => {
    const all = loadInstances();
    for (const size of ['large', 'xlarge', '2xlarge', '3xlarge', '6xlarge', '12xlarge', '24xlarge']) {
      expect(all.find((i) => i.type === `i3en.${size}`)?.instance_store, `i3en.${size}`).toBeDefined();
    }
    // The sizes whose instance store IOPS AWS's page states (DescribeInstanceTypes gives none).
    const stored = all.filter((i) => /^i(3|4i|3en)\./.test(i.type) && i.instance_store?.random_read_iops_4k !== undefined);
    expect(stored.length).toBe(6 + 9 + 7);
    for (const i of stored) {
      const s = i.instance_store as { source: string; devices: number; gb_per_device: number; random_read_iops_4k: number; write_iops_4k: number };
      expect(s.source).toMatch(/^https:\/\/docs\.aws\.amazon\.com\//);
      expect(s.write_iops_4k).toBeLessThanOrEqual(s.random_read_iops_4k);
      // The catalog's envelope holds every device.
      expect(gbToGiB(s.gb_per_device)).toBeLessThanOrEqual(volumeType('instance-store').size_gib.max);
      expect(s.random_read_iops_4k / s.devices).toBeLessThanOrEqual(volumeType('instance-store').iops.max);
    }
    // Within a family a device of the same size does the same, whatever the instance size.
    const perDevice = (t: string) => {
      const s = all.find((i) => i.type === t)!.instance_store!;
      return s.random_read_iops_4k! / s.devices;
    };
    expect(perDevice('i4i.32xlarge')).toBe(perDevice('i4i.4xlarge'));
    expect(perDevice('i3.16xlarge')).toBe(perDevice('i3.2xlarge'));
    expect(perDevice('i3en.24xlarge')).toBe(perDevice('i3en.3xlarge'));
  });
});
