/**
 * The EBS catalog: every entry valid and dated, and its math against AWS's own worked examples
 * (gp2 100 GiB: 300 baseline, 3,000 burst, 2,000 s from a full bucket; st1 2 TiB: 80 MiB/s base,
 * 500 MiB/s burst; gp3 500 GiB with 6,000 IOPS and 250 MiB/s in us-east-1: $40 + $15 + $5).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { CATALOG_FILES, entitlement, loadCatalog, parseCatalog, parseVolume, priceVolume } from '../../src/cloud/index.js';
import { errorOf } from '../helpers/errors.js';
import { VolbenchError } from '../../src/errors.js';
import { requires } from '../helpers/requires.js';

requires();

const KiB = 1024;
const MiB = 1024 * KiB;

describe('the shipped catalog', () => {
  it('loads and passes its schema; every price and limit has a source and a date, and only a page read is H', () => {
    const catalogs = loadCatalog();
    expect(catalogs.map((c) => `${c.provider}/${c.service}`)).toEqual(['aws/ebs', 'aws/ec2-instance-store', 'gcp/compute-engine-disks', 'azure/managed-disks']);
    const types = catalogs[0].types.map((t) => t.type);
    expect(types).toEqual(['gp3', 'gp2', 'io1', 'io2', 'st1', 'sc1', 'standard']);
    for (const t of catalogs[0].types) {
      for (const part of [t.size_gib, t.iops, t.throughput_mibps, ...Object.values(t.prices)]) {
        // A source that is not a page read (a talk, a memory) is never given H.
        if (!/^https:\/\//.test(part.source)) expect(part.confidence, `${t.type}: ${part.source}`).toMatch(/^[ML]$/);
        expect(part.as_of).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      }
      expect(Object.keys(t.prices)).toEqual(expect.arrayContaining(['us-east-1', 'us-west-2', 'eu-west-1', 'ap-southeast-1']));
    }
  });

  it('refuses an entry without its source, naming where', () => {
    const text = readFileSync(join(import.meta.dirname, '..', '..', 'catalog', CATALOG_FILES[0]), 'utf8');
    const doc = JSON.parse(text);
    delete doc.types[0].iops.source;
    expect(() => parseCatalog(JSON.stringify(doc), 'bad.json')).toThrow(/bad.json: types.0.iops.source/);
  });
});

describe('prices', () => {
  it('gp3 500 GiB, 6,000 IOPS, 250 MiB/s in us-east-1: $40 + $15 + $5 = $60.00 a month', () => {
    const p = priceVolume(parseVolume('gp3:size=500g:iops=6000:throughput=250'), 'us-east-1');
    expect([p.storage, p.iops, p.throughput, p.total]).toEqual([40, 15, 5, 60]);
    expect(p.as_of).toMatch(/^\d{4}-/);
  });

  it('io2 prices its IOPS in tiers (≤ 32,000; ≤ 64,000; above)', () => {
    const p = priceVolume(parseVolume('io2:size=200g:iops=80000'), 'us-east-1');
    expect(p.storage).toBe(25);
    expect(p.iops).toBeCloseTo(32000 * 0.065 + 32000 * 0.0455 + 16000 * 0.03185, 2);
  });

  it('names the closest region it knows', () => {
    expect(() => priceVolume(parseVolume('gp3:size=100g'), 'us-east-7')).toThrow(/did you mean 'us-east-1'/);
  });
});

describe('entitlement', () => {
  it('gp2 100 GiB: 300 IOPS baseline, 3,000 burst, 2,000 s of burst from a full bucket', () => {
    const full = entitlement(parseVolume('gp2:size=100g'), { bs: 4 * KiB });
    expect(full.entitled.iops).toBe(3000);
    expect(full.burst).toEqual({ level: 3000, baseline: 300, unit: 'IOPS', seconds_from_full: 2000, seconds_at_job_rate: 2000 });
    const empty = entitlement(parseVolume('gp2:size=100g'), { bs: 4 * KiB, burstBalance: 0 });
    expect(empty.entitled.iops).toBe(300);
    expect(empty.entitled.bound_by).toBe('burst-credits');
  });

  it('st1 2 TiB: 80 MiB/s base, 500 MiB/s burst, 1 MiB I/Os', () => {
    const burst = entitlement(parseVolume('st1:size=2t'), { bs: MiB, sequential: true });
    expect(burst.entitled.mibps).toBe(500);
    expect(burst.burst).toMatchObject({ level: 500, baseline: 80, unit: 'MiB/s' });
    expect(entitlement(parseVolume('st1:size=2t'), { bs: MiB, sequential: true, burstBalance: 0 }).entitled.mibps).toBe(80);
  });

  it('counts I/Os the provider\'s way: a 1 MiB read on gp3 is four 256 KiB I/Os', () => {
    const e = entitlement(parseVolume('gp3:size=500g:iops=16000:throughput=1000'), { bs: MiB });
    expect(e.counted_per_io).toBe(4);
    // 16,000 counted IOPS / 4 = 4,000 MiB/s worth, so throughput (1,000 MiB/s) binds.
    expect(e.entitled.bound_by).toBe('volume-throughput');
    expect(e.entitled.mibps).toBe(1000);
    const small = entitlement(parseVolume('gp3:size=500g:iops=6000:throughput=250'), { bs: 4 * KiB });
    expect(small).toMatchObject({ entitled: { iops: 6000, bound_by: 'volume-iops' }, counted_per_io: 1 });
  });

  it('io2 at its ratio: 500 IOPS per GiB on a 100 GiB volume is 50,000', () => {
    expect(entitlement(parseVolume('io2:size=100g:iops=50000'), { bs: 16 * KiB }).entitled.iops).toBe(50000);
  });
});

describe('bad volumes', () => {
  // One grammar, one set of codes: the text, the type, the type's limits (each with its source).
  const cases: Array<[string, RegExp, string, string]> = [
    ['gp3:10g:iops=20000', /gp3: at most 500 IOPS per GiB \(5000 for 10 GiB\) \(An AWS re:Invent 2025 talk/, '--volume.iops', 'EVOLUME_LIMIT'],
    ['gp4:10g', /unknown volume type 'gp4'; did you mean 'gp3'/, '--volume.type', 'EVOLUME_TYPE'],
    ['st1:100g', /st1 volumes are 125–16384 GiB, not 100/, '--volume.size', 'EVOLUME_LIMIT'],
    ['gp3:100g:iops=16000:throughput=2001', /at most 2000 MiB\/s/, '--volume.throughput', 'EVOLUME_LIMIT'],
    ['gp3:100g:iops=3000:throughput=800', /at most 0.25 MiB\/s per provisioned IOPS/, '--volume.throughput', 'EVOLUME_LIMIT'],
    ['gp2:100g:iops=500', /gp2 has no provisioned IOPS/, '--volume.iops', 'EVOLUME_LIMIT'],
    ['io2:100g', /io2 needs provisioned IOPS/, '--volume.iops', 'EVOLUME_LIMIT'],
    ['gp3', /gp3 needs a size/, '--volume.size', 'EVOLUME_SYNTAX'],
    ['gp3:100g:speed=9', /unknown setting 'speed'/, '--volume', 'EVOLUME_SYNTAX'],
    ['gp3:100g:500g', /size is given twice/, '--volume.size', 'EVOLUME_SYNTAX'],
    ['gp3:1500m', /whole GiB/, '--volume.size', 'EVOLUME_SYNTAX'],
    ['gp3:100g:suite=aws-ssd', /suite= names the suite a fleet member runs/, '--volume.suite', 'EVOLUME_SYNTAX'],
    ['gp3:100g,io2:100g', /names one volume/, '--volume', 'EVOLUME_SYNTAX'],
  ];
  for (const [text, message, field, code] of cases) {
    it(`refuses ${text} with ${code}, naming ${field}`, () => {
      const err = errorOf(() => parseVolume(text));
      expect(err.code).toBe(code);
      expect(err.message).toMatch(message);
      expect(err.field).toBe(field);
    });
  }

  it('takes the old --volume form, TYPE:size=S,key=V, and says how to write it now', () => {
    const notes: string[] = [];
    const v = parseVolume('gp3:size=500g,iops=6000,throughput=250', { onOldForm: (n) => notes.push(n) });
    expect(v.text).toBe('gp3:500g:iops=6000:throughput=250');
    expect(notes).toEqual(['--volume gp3:size=500g,iops=6000,throughput=250: TYPE:size=S,key=V is the old form; write gp3:500g:iops=6000:throughput=250']);
    expect(parseVolume('gp3:500g:iops=6000:throughput=250', { onOldForm: (n) => notes.push(n) }).text).toBe(v.text);
    expect(notes).toHaveLength(1);
  });
});

describe('instances', () => {
  it('has the EBS limits of at least 30 instance types, each with its source', async () => {
    const { loadInstances } = await import('../../src/cloud/index.js');
    const all = loadInstances();
    expect(all.length).toBeGreaterThanOrEqual(30);
    for (const family of ['m5', 'm6i', 'm7i', 'm7g', 'c6i', 'c7g', 'r6i', 'r7i', 'i3', 'i4i', 't3']) {
      expect(all.some((i) => i.type.startsWith(`${family}.`)), family).toBe(true);
    }
    for (const i of all) {
      expect(i.ebs.baseline_mbps).toBeLessThanOrEqual(i.ebs.max_mbps);
      // A page read, or the API's data named, never above M when not AWS's own.
      if (!/^https:\/\//.test(i.ebs.source)) expect(i.ebs.source.startsWith('AWS EC2 DescribeInstanceTypes') || i.ebs.confidence === 'M', i.type).toBe(true);
      expect(Boolean(i.ebs.burst)).toBe(i.ebs.baseline_mbps < i.ebs.max_mbps || i.ebs.baseline_iops < i.ebs.max_iops);
    }
  });

  it('an instance\'s EBS limits bind when they are lower than the volume\'s', () => {
    const fast = parseVolume('gp3:size=500g:iops=16000:throughput=1000');
    // m6i.large bursts to 10 Gbps (1,250 MB/s), above the volume's 1,000 MiB/s...
    expect(entitlement(fast, { bs: MiB, instance: 'm6i.large' }).entitled.bound_by).toBe('volume-throughput');
    // ...but its baseline is 650 Mbps: 81.25 MB/s, 77.5 one-MiB I/Os a second.
    // Its daily burst spent, its baseline binds: named instance-burst.
    const base = entitlement(fast, { bs: MiB, instance: 'm6i.large', instanceBurst: false });
    expect(base.entitled.bound_by).toBe('instance-burst');
    expect(base.entitled.iops).toBeCloseTo(81.25e6 / MiB, 1);
    expect(entitlement(fast, { bs: 4 * KiB, instance: 'm6i.large', instanceBurst: false }).entitled).toMatchObject({ iops: 3600, bound_by: 'instance-burst' });
    // m5.4xlarge does not burst: its limits are instance-iops and instance-bandwidth.
    expect(entitlement(parseVolume('io2:size=500g:iops=64000'), { bs: 4 * KiB, instance: 'm5.4xlarge', instanceBurst: false }).entitled.bound_by).toBe('instance-iops');
  });

  it('names the closest instance type it knows', () => {
    expect(() => entitlement(parseVolume('gp3:size=100g'), { bs: 4096, instance: 'm6i.lage' })).toThrow(/did you mean 'm6i.large'/);
  });
});
