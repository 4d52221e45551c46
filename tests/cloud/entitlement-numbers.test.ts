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
      expect(e.entitled.iops).toBe(now);
      expect(e.burst).toMatchObject({ level: 3000, baseline, unit: 'IOPS' });
      expect(at(text, 4 * KiB, { burstBalance: 0 }).entitled).toMatchObject({ iops: baseline, bound_by: 'burst-credits' });
      expect(at(text, MiB, { sequential: true }).entitled.mibps).toBe(mibps);
    });
  }
  it('gp2 100 GiB lasts 2,000 s from a full bucket', () => {
    expect(at('gp2:100g', 4 * KiB).burst?.seconds_from_full).toBe(2000);
  });
  it('gp2 1,000 GiB: 3,000 IOPS with no burst, 250 MiB/s', () => {
    const e = at('gp2:1000g', 4 * KiB);
    expect(e.entitled.iops).toBe(3000);
    expect(e.burst).toBeUndefined();
    expect(at('gp2:1000g', MiB, { sequential: true }).entitled.mibps).toBe(250);
  });
});

describe('gp3: 64 TiB, 80,000 IOPS and 2,000 MiB/s, within 500 IOPS per GiB and 0.25 MiB/s per IOPS', () => {
  it('accepts 1,000 GiB with 80,000 IOPS and 2,000 MiB/s, and delivers them', () => {
    const v = parseVolume('gp3:1000g:iops=80000:throughput=2000');
    expect(entitlement(v, { bs: 4 * KiB }).entitled.iops).toBe(80000);
    expect(entitlement(v, { bs: MiB, sequential: true }).entitled.mibps).toBe(2000);
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
    expect(e).toMatchObject({ entitled: { iops: 6000, bound_by: 'volume-iops' }, counted_per_io: 1 });
    expect(e.entitled_merged).toEqual({ iops: 64000, mibps: 250, bound_by: 'volume-throughput' });
    // Random I/O never merges: both bounds are one.
    const r = at('gp3:500g:iops=6000:throughput=250', 4 * KiB);
    expect(r.entitled_merged).toEqual(r.entitled);
  });
});

describe('io1: 256 KiB per IOPS up to 500 MiB/s to 32,000 IOPS, then 16 KiB per IOPS to 1,000 MiB/s', () => {
  const cases: Array<[number, number]> = [[16000, 500], [32000, 500], [48000, 750], [64000, 1000]];
  for (const [iops, mibps] of cases) {
    it(`${iops} IOPS at 1 MiB reads: ${mibps} MiB/s`, () => {
      const e = at(`io1:1280g:iops=${iops}`, MiB, { sequential: true });
      expect(e.entitled.mibps).toBe(mibps);
      expect(e.entitled.bound_by).toBe('volume-throughput');
    });
  }
  it('a small io1 stays under 256 KiB per IOPS: 1,000 IOPS is 250 MiB/s', () => {
    expect(at('io1:100g:iops=1000', MiB, { sequential: true }).entitled.mibps).toBe(250);
  });
});

describe('st1 and sc1: baseline and burst per TiB, a small I/O charged as a whole 1 MiB', () => {
  const cases: Array<[string, number, number]> = [
    ['st1:1024g', 40, 250], ['st1:2048g', 80, 500], ['st1:12800g', 500, 500],
    ['sc1:1024g', 12, 80], ['sc1:2048g', 24, 160],
  ];
  for (const [text, base, burst] of cases) {
    it(`${text}: ${base} / ${burst} MiB/s`, () => {
      expect(at(text, MiB, { sequential: true }).entitled.mibps).toBe(burst);
      expect(at(text, MiB, { sequential: true, burstBalance: 0 }).entitled.mibps).toBe(base);
    });
  }
  it('st1 2 TiB, 16 KiB random reads: 80 IOPS with an empty bucket, 500 with a full one', () => {
    expect(at('st1:2048g', 16 * KiB, { burstBalance: 0 }).entitled).toMatchObject({ iops: 80, bound_by: 'burst-credits' });
    expect(at('st1:2048g', 16 * KiB).entitled.iops).toBe(500);
  });
  it('16 KiB sequential reads on st1: charged whole unmerged, by their bytes merged', () => {
    const e = at('st1:2048g', 16 * KiB, { sequential: true, burstBalance: 0 });
    expect(e.entitled.iops).toBe(80);
    expect(e.entitled_merged.iops).toBe(80 * 64);
  });
});

describe("the instance's 30 minutes a day at its maximum", () => {
  it('m6i.large after its burst: 81.25 MB/s and 3,600 IOPS, bound by instance-burst', () => {
    const mb = at('gp3:1000g:iops=16000:throughput=1000', MiB, { sequential: true, instance: 'm6i.large', instanceBurst: false });
    expect(mb.entitled.bound_by).toBe('instance-burst');
    expect((mb.entitled.mibps * MiB) / 1e6).toBeCloseTo(81.25, 1);
    expect(at('gp3:1000g:iops=16000', 4 * KiB, { instance: 'm6i.large', instanceBurst: false }).entitled).toMatchObject({ iops: 3600, bound_by: 'instance-burst' });
  });
  it('by default a run starts at the burst and is told what follows after 1,800 s', () => {
    const e = at('st1:2048g', MiB, { sequential: true, instance: 'm6i.large' });
    expect(e.entitled).toMatchObject({ iops: 500, mibps: 500 });
    expect(e.instance_burst).toMatchObject({ after_s: 1800, bound_by: 'instance-burst' });
    expect((e.instance_burst!.mibps * MiB) / 1e6).toBeCloseTo(81.25, 1);
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
    expect(at('gp2:600g', 256 * KiB, { burstBalance: 0 }).entitled).toMatchObject({ mibps: 250, bound_by: 'volume-throughput' });
    expect(at('gp2:600g', 4 * KiB, { burstBalance: 0 }).entitled).toMatchObject({ iops: 1800, bound_by: 'burst-credits' });
    expect(at('st1:2t', 16 * KiB, { burstBalance: 0 }).entitled).toMatchObject({ iops: 80, bound_by: 'burst-credits' });
  });
  it('merged I/O meets the instance in the units EBS counts', () => {
    const e = at('gp3:2000g:iops=16000:throughput=1000', 4 * KiB, { sequential: true, instance: 'm6i.large' });
    expect(e.entitled).toMatchObject({ iops: 16000, bound_by: 'volume-iops' });
    expect(e.entitled_merged).toEqual({ iops: 256000, mibps: 1000, bound_by: 'volume-throughput' });
  });
});

/*
 * Broke: io1/io2 delivered 64,000 IOPS to any instance (AWS: above 32,000 only on Nitro); st1 at
 * 1 MiB, where its 500 IOPS and its 500 MiB/s tie, was called volume-iops (an HDD is held by its
 * bytes); a gp2 bucket's life was given at the burst rate whatever the job's rate (gp2 200 GiB at
 * 256 KiB: 2,250 s where the job empties it in 13,500 s); an instance store mix was held to a
 * half-and-half mean whatever rwmixread said.
 */
describe("the platform, the tie, the bucket's life and the mix", () => {
  it('io2 64,000 IOPS on a Xen instance delivers 32,000; on Nitro all of it', () => {
    const xen = at('io2:500g:iops=64000', 4 * KiB, { instance: 'm4.16xlarge' });
    expect(xen.entitled).toMatchObject({ iops: 32000, bound_by: 'volume-iops' });
    // io1's throughput follows the IOPS it delivers: the first band, 500 MiB/s.
    expect(at('io1:1280g:iops=64000', MiB, { sequential: true, instance: 'm4.16xlarge' }).entitled.mibps).toBe(500);
    expect(at('io2:500g:iops=64000', 4 * KiB, { instance: 'm6i.32xlarge' }).entitled.iops).toBe(64000);
    // Without an instance nothing caps it: the volume alone.
    expect(at('io2:500g:iops=64000', 4 * KiB).entitled.iops).toBe(64000);
  });
  it('a tie on an HDD binds on throughput, on an SSD on IOPS', () => {
    expect(at('st1:2t', MiB, { sequential: true }).entitled).toMatchObject({ iops: 500, mibps: 500, bound_by: 'volume-throughput' });
    expect(at('gp3:500g:iops=4000:throughput=1000', 256 * KiB).entitled).toMatchObject({ iops: 4000, mibps: 1000, bound_by: 'volume-iops' });
  });
  it("a gp2 bucket lasts as long as the job's own rate drains it", () => {
    const e = at('gp2:200g', 256 * KiB);
    expect(e.entitled).toMatchObject({ iops: 1000, bound_by: 'volume-throughput' });
    expect(e.burst).toMatchObject({ seconds_from_full: 2250, seconds_at_job_rate: 13500 });
    // At or under the baseline nothing drains it.
    expect(at('gp2:200g', MiB, { sequential: true, burstBalance: 0 }).burst?.seconds_at_job_rate).toBeNull();
    // st1 2 TiB: 2 TiB of credits drained at 500 − 80 MiB/s.
    expect(at('st1:2t', MiB, { sequential: true }).burst).toMatchObject({ seconds_from_full: 4993, seconds_at_job_rate: 4993 });
  });
  it('instance store mixes follow rwmixread', () => {
    const mix = (rwmixread: number) => at('instance-store', 4 * KiB, { instance: 'i4i.xlarge', direction: 'mixed', rwmixread }).entitled.iops;
    // i4i.xlarge's one device: 62,500 reads, 50,000 writes; each I/O takes its direction's time.
    expect(mix(100)).toBe(62500);
    expect(mix(0)).toBe(50000);
    expect(mix(70)).toBeCloseTo(1 / (0.7 / 62500 + 0.3 / 50000), 1);
    expect(mix(50)).toBeCloseTo(2 / (1 / 62500 + 1 / 50000), 1);
  });
});
