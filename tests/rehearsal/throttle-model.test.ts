/**
 * The emulated volume's model as numbers: buckets drain at burst − refill and the limits fall to
 * the baseline at bucket / (burst − baseline) seconds, times the time factor; rates follow the
 * rate factor; a combined rate is split between directions by use; bytes the kernel charges
 * twice (split bios) are allowed for; HDD small I/Os count whole. The catalog adapter gives the
 * models the catalog states (gp2's credits, st1's throughput bucket, the instance's 30 minutes).
 */
import { describe, expect, it } from 'vitest';

import { scaleSpec, secondsFromFull, ThrottleModel, type KernelLimits, type ThrottleSpec, type Usage } from '../harness/throttle-model.js';
import { scaledEntitlement, specFromCatalog } from '../harness/catalog-spec.js';
import { entitlement, parseVolume } from '../../src/cloud/index.js';
import { requires } from '../helpers/requires.js';

requires();

const KiB = 1024;
const MiB = 1024 * KiB;
const TICK = 0.1;

/** What a workload that always wants more than the limit does in one tick: exactly the limit. */
function saturating(limits: KernelLimits, ioBytes: number, dir: 'read' | 'write' = 'read'): Usage {
  const idle = { bios: 0, chargedBytes: 0, trueBytes: 0 };
  const l = limits[dir];
  const byIops = l.iops ? l.iops * TICK : Infinity;
  const byBps = l.bps ? (l.bps * TICK) / ioBytes : Infinity;
  const bios = Math.min(byIops, byBps, 1e9);
  const used = { bios, chargedBytes: bios * ioBytes, trueBytes: bios * ioBytes };
  return dir === 'read' ? { read: used, write: idle } : { read: idle, write: used };
}

/** Runs the model saturated for `seconds`; answers the limits it set along the way. */
function drive(model: ThrottleModel, seconds: number, ioBytes: number): KernelLimits[] {
  const seen: KernelLimits[] = [];
  let limits = model.kernelLimits();
  for (let t = 0; t < seconds - 1e-9; t += TICK) {
    limits = model.step(TICK, saturating(limits, ioBytes));
    seen.push(limits);
  }
  return seen;
}

const gp2Like: ThrottleSpec = {
  limiters: [{ name: 'volume', baseline: { iops: 300 }, burst: { iops: 3000 }, countedIoBytes: 256 * KiB, bucket: { unit: 'ios', size: 5.4e6, refillPerS: 300 } }],
};

describe('scaleSpec', () => {
  it('rates follow the rate factor, buckets rate × time, so the cliff moves by the time factor alone', () => {
    const scaled = scaleSpec(gp2Like, { rate: 0.25, time: 0.01 });
    const v = scaled.limiters[0];
    expect(v.baseline.iops).toBeCloseTo(75);
    expect(v.burst!.iops).toBeCloseTo(750);
    expect(v.bucket!.size).toBeCloseTo(13_500);
    expect(v.bucket!.refillPerS).toBeCloseTo(75);
    expect(secondsFromFull(gp2Like.limiters[0])).toBeCloseTo(2000);
    expect(secondsFromFull(v)).toBeCloseTo(20);
  });

  it('a seconds bucket (the instance\'s window) scales by time only', () => {
    const inst = scaleSpec({ limiters: [{ name: 'instance', baseline: { iops: 3600 }, burst: { iops: 40000 }, bucket: { unit: 'seconds', size: 1800, refillPerS: 1800 / 86400 } }] }, { rate: 0.5, time: 0.01 });
    expect(inst.limiters[0].bucket!.size).toBeCloseTo(18);
    expect(inst.limiters[0].bucket!.refillPerS).toBeCloseTo(1800 / 86400);
    expect(inst.limiters[0].burst!.iops).toBeCloseTo(20000);
  });

  it('refuses a scale that is not positive and a spec without limiters, naming the field', () => {
    expect(() => scaleSpec(gp2Like, { rate: 0, time: 1 })).toThrow(/scale/);
    expect(() => new ThrottleModel({ limiters: [] })).toThrow(/spec.limiters/);
    expect(() => new ThrottleModel({ limiters: [{ name: 'v', baseline: { iops: -1 } }] })).toThrow(/spec.limiters\[0\].baseline.iops/);
    expect(() => new ThrottleModel({ limiters: [{ name: 'v', baseline: { iops: 1 }, bucket: { unit: 'ios', size: 1, refillPerS: 1 } }] })).toThrow(/needs burst/);
  });
});

describe('a bucket under a saturating workload', () => {
  it('gp2 at rate 0.25, time 0.01: 750 IOPS until 20 s, then 75', () => {
    const model = new ThrottleModel(scaleSpec(gp2Like, { rate: 0.25, time: 0.01 }));
    const seen = drive(model, 30, 16 * KiB);
    const [cliff] = model.state().events;
    expect(cliff).toMatchObject({ limiter: 'volume', phase: 'baseline' });
    expect(cliff.t).toBeGreaterThan(20 - TICK - 1e-6);
    expect(cliff.t).toBeLessThan(20 + TICK + 1e-6);
    expect(seen[0].read.iops).toBe(750);
    expect(seen.at(-1)!.read.iops).toBe(75);
    // Only the phase changed: no flapping at the baseline, where use equals the refill.
    expect(model.state().events).toHaveLength(1);
  });

  it('refills when the load stops and bursts again', () => {
    const model = new ThrottleModel(scaleSpec(gp2Like, { rate: 0.25, time: 0.01 }));
    drive(model, 21, 16 * KiB);
    const idle = { read: { bios: 0, chargedBytes: 0, trueBytes: 0 }, write: { bios: 0, chargedBytes: 0, trueBytes: 0 } };
    let limits = model.kernelLimits();
    for (let i = 0; i < 20; i++) limits = model.step(TICK, idle);
    expect(limits.read.iops).toBe(750);
    expect(model.state().events.map((e) => e.phase)).toEqual(['baseline', 'burst']);
  });

  it('I/Os larger than the counted size drain it by their bytes', () => {
    const model = new ThrottleModel(scaleSpec({ limiters: [{ ...gp2Like.limiters[0], burst: { iops: 3000, bps: 1e12 } }] }, { rate: 0.25, time: 0.01 }));
    // 1 MiB I/Os count four 256 KiB ones: the 13,500-credit bucket lasts a quarter as many I/Os.
    const usage = { read: { bios: 75, chargedBytes: 75 * MiB, trueBytes: 75 * MiB }, write: { bios: 0, chargedBytes: 0, trueBytes: 0 } };
    model.step(1, usage);
    expect(model.state().limiters[0].balance).toBeCloseTo(13_500 - 300 + 75);
  });

  it('st1\'s throughput bucket: every small I/O counts a whole MiB, large ones their bytes', () => {
    const st1 = scaleSpec({ limiters: [{ name: 'volume', baseline: { bps: 80 * MiB }, burst: { bps: 500 * MiB }, countedIoBytes: MiB, smallIoCountsWhole: true, bucket: { unit: 'bytes', size: 2 * 1024 * 1024 * MiB, refillPerS: 80 * MiB } }] }, { rate: 1, time: 1 });
    const small = new ThrottleModel(st1);
    const limits = small.step(1, { read: { bios: 100, chargedBytes: 100 * 16 * KiB, trueBytes: 100 * 16 * KiB }, write: { bios: 0, chargedBytes: 0, trueBytes: 0 } });
    expect(small.state().limiters[0].balance).toBeCloseTo(2 * 1024 * 1024 * MiB - 100 * MiB + 80 * MiB);
    // While the bucket lasts, 16 KiB reads are held to 500 of them a second (500 MiB/s counted whole).
    expect(limits.read.iops).toBe(500);
    const large = new ThrottleModel(st1);
    const big = large.step(1, { read: { bios: 200, chargedBytes: 200 * 512 * KiB, trueBytes: 200 * 512 * KiB }, write: { bios: 0, chargedBytes: 0, trueBytes: 0 } });
    expect(big.read.iops).toBe(0);
    expect(big.read.bps).toBe(500 * MiB);
  });

  it('the instance\'s 30 minutes, at time 0.001: 1.8 s at its maximum, then its baseline', () => {
    const model = new ThrottleModel(scaleSpec({ limiters: [{ name: 'instance', baseline: { iops: 3600 }, burst: { iops: 40000 }, bucket: { unit: 'seconds', size: 1800, refillPerS: 1800 / 86400 } }] }, { rate: 0.1, time: 0.001 }));
    drive(model, 3, 16 * KiB);
    const [cliff] = model.state().events;
    expect(cliff).toMatchObject({ limiter: 'instance', phase: 'baseline' });
    expect(cliff.t).toBeGreaterThan(1.8 - TICK - 1e-6);
    expect(cliff.t).toBeLessThan(1.8 / (1 - 1800 / 86400) + TICK + 1e-6);
    expect(model.kernelLimits().read.iops).toBe(360);
  });

  it('each limiter\'s rates are its phase\'s, read and write together (what the statistics page names)', () => {
    const spec: ThrottleSpec = { limiters: [gp2Like.limiters[0], { name: 'instance', baseline: { iops: 3600, bps: 81.25e6 } }] };
    const model = new ThrottleModel(scaleSpec(spec, { rate: 0.25, time: 0.0001 }));
    expect(model.rates()).toEqual([{ name: 'volume', rates: { iops: 750 } }, { name: 'instance', rates: { iops: 900, bps: 20312500 } }]);
    drive(model, 3, 16 * KiB);
    expect(model.state().limiters[0].phase).toBe('baseline');
    expect(model.rates()[0]).toEqual({ name: 'volume', rates: { iops: 75 } });
  });
});

describe('what the kernel is told', () => {
  const flat: ThrottleSpec = { limiters: [{ name: 'volume', baseline: { iops: 1000, bps: 100 * MiB } }] };

  it('a combined rate goes whole to a direction used alone, and is split by use in a mix', () => {
    const model = new ThrottleModel(flat);
    const alone = model.step(TICK, saturating(model.kernelLimits(), 16 * KiB, 'write'));
    expect(alone.write.iops).toBe(1000);
    expect(alone.read.iops).toBe(1000);
    const mixed = new ThrottleModel(flat);
    const l = mixed.step(TICK, { read: { bios: 70, chargedBytes: 70 * 16 * KiB, trueBytes: 70 * 16 * KiB }, write: { bios: 30, chargedBytes: 30 * 16 * KiB, trueBytes: 30 * 16 * KiB } });
    expect(l.read.iops).toBe(700);
    expect(l.write.iops).toBe(300);
    expect(l.read.bps + l.write.bps).toBeCloseTo(100 * MiB, -2);
  });

  it('bytes the throttle charges twice (a split bio) raise the kernel\'s byte limit to match, once two seconds show it', () => {
    const model = new ThrottleModel(flat);
    const doubled = { read: { bios: 20, chargedBytes: 20 * MiB, trueBytes: 10 * MiB }, write: { bios: 0, chargedBytes: 0, trueBytes: 0 } };
    const seen = Array.from({ length: 20 }, () => model.step(TICK, doubled).read.bps);
    expect(seen.slice(0, 19)).toEqual(Array(19).fill(100 * MiB));
    expect(seen[19]).toBe(200 * MiB);
    // In flight at the start (charged, not yet done) is not inflation.
    const lagging = new ThrottleModel(flat);
    const inFlight = { read: { bios: 12, chargedBytes: 12 * MiB, trueBytes: 10 * MiB }, write: { bios: 0, chargedBytes: 0, trueBytes: 0 } };
    for (let i = 0; i < 30; i++) expect(lagging.step(TICK, inFlight).read.bps).toBe(100 * MiB);
  });

  it('the tightest limiter wins, field by field', () => {
    const model = new ThrottleModel({ limiters: [flat.limiters[0], { name: 'instance', baseline: { iops: 5000, bps: 50 * MiB } }] });
    expect(model.kernelLimits().read).toEqual({ iops: 1000, bps: 50 * MiB });
  });
});

describe('the catalog adapter', () => {
  it('gp2 100 GiB: 3,000 IOPS from a 5.4 M bucket refilled at 300 a second, 2,000 s from full', () => {
    const spec = specFromCatalog('gp2:size=100g');
    const v = spec.limiters[0];
    expect(v).toMatchObject({ baseline: { iops: 300 }, burst: { iops: 3000 }, bucket: { unit: 'ios', size: 5_400_000, refillPerS: 300 }, countedIoBytes: 256 * KiB });
    expect(secondsFromFull(v)).toBeCloseTo(2000);
    const e = entitlement(parseVolume('gp2:size=100g'), { bs: 16 * KiB });
    expect(e.burst!.seconds_from_full).toBeCloseTo(secondsFromFull(v), 0);
  });

  it('st1 2 TiB: 500 MiB/s from 2 TiB of credits, 80 MiB/s after, small I/O counted whole', () => {
    const v = specFromCatalog('st1:size=2t').limiters[0];
    expect(v).toMatchObject({ baseline: { bps: 80 * MiB }, burst: { bps: 500 * MiB }, smallIoCountsWhole: true, countedIoBytes: MiB });
    expect(v.bucket).toMatchObject({ unit: 'bytes', size: 2 * 1024 * 1024 * MiB, refillPerS: 80 * MiB });
  });

  it('gp3 and io2 as provisioned, behind m6i.large\'s EBS limits and its 30 minutes', () => {
    const spec = specFromCatalog('gp3:size=500g,iops=6000,throughput=250', 'm6i.large');
    expect(spec.limiters[0]).toMatchObject({ baseline: { iops: 6000, bps: 250 * MiB } });
    expect(spec.limiters[0].bucket).toBeUndefined();
    expect(spec.limiters[1]).toMatchObject({ name: 'instance', baseline: { iops: 3600, bps: 81.25e6 }, burst: { iops: 40000, bps: 1.25e9 }, bucket: { unit: 'seconds', size: 1800 } });
    expect(specFromCatalog('io2:size=500g,iops=16000').limiters[0].baseline.iops).toBe(16000);
  });

  it('scaledEntitlement scales rates by rate and the burst\'s duration by time', () => {
    const e = entitlement(parseVolume('gp2:size=100g'), { bs: 16 * KiB });
    const s = scaledEntitlement(e, { rate: 0.25, time: 0.01 });
    expect(s.entitled.iops).toBeCloseTo(e.entitled.iops * 0.25);
    expect(s.burst!.seconds_from_full).toBeCloseTo(e.burst!.seconds_from_full * 0.01);
  });
});
