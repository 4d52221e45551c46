/**
 * The EBS figures a storage engineer checks, at the instance's burst (no instanceBurst: false)
 * and with full credits unless said: gp2's bucket and bands, gp3's 2025 limits (64 TiB, 80,000
 * IOPS, 2,000 MiB/s), io1's throughput in two bands, st1/sc1 charging a small I/O as a whole
 * 1 MiB, `entitled` (no merging) beside `entitled_merged`, and m6i.large after its 30 minutes.
 * Before this, gp3 refused 80,000 IOPS, io1 gave 1,000 MiB/s at 16,000 IOPS, st1 gave a 16 KiB
 * random read 500 IOPS with an empty bucket, and gp3 6000/250 at 4 KiB sequential writes 64,000.
 */
import { describe, expect, it } from 'vitest';

import { entitlement, parseVolume } from '../../src/cloud/index.js';
import { errorOf } from '../helpers/errors.js';
import { requires } from '../helpers/requires.js';

requires();

const KiB = 1024;
const MiB = 1024 * KiB;
const at = (text: string, bs: number, extra: Parameters<typeof entitlement>[1] extends infer Q ? Partial<Q> : never = {}) =>
  entitlement(parseVolume(text), { bs, ...extra });

describe('gp2: 3 IOPS per GiB, a 3,000 IOPS burst under 1 TiB, 128 MiB/s to 170 GiB and 250 from 334', () => {
  const cases: Array<[string, number, number, number]> = [
    // volume, baseline IOPS, IOPS now (full bucket), MiB/s at 1 MiB reads
    ['gp2:100g', 300, 3000, 128],
    ['gp2:170g', 510, 3000, 128],
    ['gp2:334g', 1002, 3000, 250],
  ];
  for (const [text, baseline, now, mibps] of cases) {
    it(`${text}: ${baseline} / ${now} IOPS, ${mibps} MiB/s`, () => {
      const e = at(text, 4 * KiB);
      expect(e.iops).toBe(now);
      expect(e.burst).toMatchObject({ level: 3000, baseline, unit: 'IOPS' });
      expect(at(text, 4 * KiB, { burstBalance: 0 })).toMatchObject({ iops: baseline, bound_by: 'burst-credits' });
      expect(at(text, MiB, { sequential: true }).throughputMiBps).toBe(mibps);
    });
  }
  it('gp2 100 GiB lasts 2,000 s from a full bucket', () => {
    expect(at('gp2:100g', 4 * KiB).burst?.seconds_from_full).toBe(2000);
  });
  it('gp2 1,000 GiB: 3,000 IOPS with no burst, 250 MiB/s', () => {
    const e = at('gp2:1000g', 4 * KiB);
    expect(e.iops).toBe(3000);
    expect(e.burst).toBeUndefined();
    expect(at('gp2:1000g', MiB, { sequential: true }).throughputMiBps).toBe(250);
  });
});

describe('gp3: 64 TiB, 80,000 IOPS and 2,000 MiB/s, within 500 IOPS per GiB and 0.25 MiB/s per IOPS', () => {
  it('accepts 1,000 GiB with 80,000 IOPS and 2,000 MiB/s, and delivers them', () => {
    const v = parseVolume('gp3:1000g:iops=80000:throughput=2000');
    expect(entitlement(v, { bs: 4 * KiB }).iops).toBe(80000);
    expect(entitlement(v, { bs: MiB, sequential: true }).throughputMiBps).toBe(2000);
    expect(parseVolume('gp3:65536g').sizeGiB).toBe(65536);
  });
  it('refuses 80,000 IOPS below 160 GiB (500 per GiB)', () => {
    expect(parseVolume('gp3:160g:iops=80000').iops).toBe(80000);
    const err = errorOf(() => parseVolume('gp3:159g:iops=80000'));
    expect(err.code).toBe('EVOLUME_LIMIT');
    expect(err.message).toMatch(/500 IOPS per GiB \(79500 for 159 GiB\)/);
  });
  it('refuses 2,000 MiB/s below 8,000 IOPS (0.25 MiB/s per IOPS)', () => {
    expect(parseVolume('gp3:1000g:iops=8000:throughput=2000').throughputMiBps).toBe(2000);
    const err = errorOf(() => parseVolume('gp3:1000g:iops=7999:throughput=2000'));
    expect(err.code).toBe('EVOLUME_LIMIT');
    expect(err.message).toMatch(/0.25 MiB\/s per provisioned IOPS/);
  });
  it('refuses what is past the new limits', () => {
    expect(errorOf(() => parseVolume('gp3:1000g:iops=80001')).message).toMatch(/at most 80000 IOPS/);
    expect(errorOf(() => parseVolume('gp3:65537g')).message).toMatch(/1–65536 GiB/);
  });
  it('6,000 IOPS / 250 MiB/s at 4 KiB sequential writes: 6,000 entitled, 64,000 merged', () => {
    const e = at('gp3:500g:iops=6000:throughput=250', 4 * KiB, { sequential: true, direction: 'write' });
    expect(e).toMatchObject({ iops: 6000, bound_by: 'volume-iops', counted_per_io: 1 });
    expect(e.merged).toMatchObject({ iops: 64000, throughputMiBps: 250, bound_by: 'volume-throughput', counted_per_io: 1 / 64 });
    // Random I/O never merges: both bounds are one.
    const r = at('gp3:500g:iops=6000:throughput=250', 4 * KiB);
    expect(r.merged.iops).toBe(r.iops);
  });
});

describe('io1: 256 KiB per IOPS up to 500 MiB/s to 32,000 IOPS, then 16 KiB per IOPS to 1,000 MiB/s', () => {
  const cases: Array<[number, number]> = [[16000, 500], [32000, 500], [48000, 750], [64000, 1000]];
  for (const [iops, mibps] of cases) {
    it(`${iops} IOPS at 1 MiB reads: ${mibps} MiB/s`, () => {
      const e = at(`io1:1280g:iops=${iops}`, MiB, { sequential: true });
      expect(e.throughputMiBps).toBe(mibps);
      expect(e.bound_by).toBe('volume-throughput');
    });
  }
  it('a small io1 stays under 256 KiB per IOPS: 1,000 IOPS is 250 MiB/s', () => {
    expect(at('io1:100g:iops=1000', MiB, { sequential: true }).throughputMiBps).toBe(250);
  });
});

describe('st1 and sc1: baseline and burst per TiB, a small I/O charged as a whole 1 MiB', () => {
  const cases: Array<[string, number, number]> = [
    ['st1:1024g', 40, 250], ['st1:2048g', 80, 500], ['st1:12800g', 500, 500],
    ['sc1:1024g', 12, 80], ['sc1:2048g', 24, 160],
  ];
  for (const [text, base, burst] of cases) {
    it(`${text}: ${base} / ${burst} MiB/s`, () => {
      expect(at(text, MiB, { sequential: true }).throughputMiBps).toBe(burst);
      expect(at(text, MiB, { sequential: true, burstBalance: 0 }).throughputMiBps).toBe(base);
    });
  }
  it('st1 2 TiB, 16 KiB random reads: 80 IOPS with an empty bucket, 500 with a full one', () => {
    expect(at('st1:2048g', 16 * KiB, { burstBalance: 0 })).toMatchObject({ iops: 80, bound_by: 'burst-credits' });
    expect(at('st1:2048g', 16 * KiB).iops).toBe(500);
  });
  it('16 KiB sequential reads on st1: charged whole unmerged, by their bytes merged', () => {
    const e = at('st1:2048g', 16 * KiB, { sequential: true, burstBalance: 0 });
    expect(e.iops).toBe(80);
    expect(e.merged.iops).toBe(80 * 64);
  });
});

describe("the instance's 30 minutes a day at its maximum", () => {
  it('m6i.large after its burst: 81.25 MB/s and 3,600 IOPS, bound by instance-burst', () => {
    const mb = at('gp3:1000g:iops=16000:throughput=1000', MiB, { sequential: true, instance: 'm6i.large', instanceBurst: false });
    expect(mb.bound_by).toBe('instance-burst');
    expect((mb.throughputMiBps * MiB) / 1e6).toBeCloseTo(81.25, 1);
    expect(at('gp3:1000g:iops=16000', 4 * KiB, { instance: 'm6i.large', instanceBurst: false })).toMatchObject({ iops: 3600, bound_by: 'instance-burst' });
  });
  it('by default a run starts at the burst and is told what follows after 1,800 s', () => {
    const e = at('st1:2048g', MiB, { sequential: true, instance: 'm6i.large' });
    expect(e).toMatchObject({ iops: 500, throughputMiBps: 500 });
    expect(e.instance_burst).toMatchObject({ seconds: 1800, bound_by: 'instance-burst' });
    expect((e.instance_burst!.throughputMiBps * MiB) / 1e6).toBeCloseTo(81.25, 1);
  });
  it('an instance whose limits do not bind says nothing of its burst', () => {
    expect(at('gp3:100g', 4 * KiB, { instance: 'm6i.large' }).instance_burst).toBeUndefined();
  });
});

/*
 * Broke: an empty bucket named `burst-credits` whatever bound (gp2 600 GiB at 256 KiB is held by
 * its 250 MiB/s with or without credits), and the merged bound held merged I/Os to the
 * instance's IOPS as if each were one of the job's (gp3 16,000/1,000 at 4 KiB sequential on
 * m6i.large: 40,000 "instance-iops" where 256,000 merged to 1,000 MiB/s is the volume's bound).
 * Expected: the bucket named only where it lowered the binding limit; the instance counts what
 * EBS counts.
 */
describe('what binds, named as it binds', () => {
  it('an empty bucket is named only where its baseline binds', () => {
    expect(at('gp2:600g', 256 * KiB, { burstBalance: 0 })).toMatchObject({ throughputMiBps: 250, bound_by: 'volume-throughput' });
    expect(at('gp2:600g', 4 * KiB, { burstBalance: 0 })).toMatchObject({ iops: 1800, bound_by: 'burst-credits' });
    expect(at('st1:2t', 16 * KiB, { burstBalance: 0 })).toMatchObject({ iops: 80, bound_by: 'burst-credits' });
  });
  it('merged I/O meets the instance in the units EBS counts', () => {
    const e = at('gp3:2000g:iops=16000:throughput=1000', 4 * KiB, { sequential: true, instance: 'm6i.large' });
    expect(e).toMatchObject({ iops: 16000, bound_by: 'volume-iops' });
    expect(e.merged).toMatchObject({ iops: 256000, throughputMiBps: 1000, bound_by: 'volume-throughput' });
  });
});
