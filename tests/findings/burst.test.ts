/**
 * The burst analysis on series made to a plan: a step down found with its levels, time and
 * credits (the step inside a second included); a flat, noisy, sliding, recovering or rising
 * series has none. With the volume known: gp2 100 GiB running dry after 2,000 s is its 5.4 M
 * credit bucket, a partly drained bucket and another limit are told apart, a short run says it
 * measured the burst and how long to run, and st1's burst is read in MiB/s.
 */
import { describe, expect, it } from 'vitest';

import { existsSync } from 'node:fs';
import { afterAll } from 'vitest';

import { analyseBurst, parseVolume, runJobs } from '../../src/index.js';
import { volbench } from '../helpers/cli.js';
import { ScratchDir, volbenchError } from '../helpers/run-fixtures.js';
import { findCliff, type RatePoint } from '../../src/findings/cliff.js';
import type { FioResult } from '../../src/fio-output/index.js';
import { requires } from '../helpers/requires.js';

const needs = requires('child', 'tmpfs', 'serial');

/** A deterministic noise in [-1, 1) (a small LCG), so a failure can be replayed. */
function noise(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  };
}

/** Points of one second each whose rate is `rate(i)` (the i-th second). */
function points(n: number, rate: (i: number) => number): RatePoint[] {
  return Array.from({ length: n }, (_, i) => ({ endS: i + 1, durS: 1, rate: rate(i) }));
}

/** A step from `before` to `after` at `atS` seconds, with ± `jitter` relative noise. */
function step(n: number, before: number, after: number, atS: number, jitter = 0, seed = 1): (i: number) => number {
  const r = noise(seed);
  return (i) => {
    const share = Math.min(1, Math.max(0, atS - i));
    return (share * before + (1 - share) * after) * (1 + jitter * r());
  };
}

/** A one-job document whose series is `rates` (IOPS at `bs`), as a run on `volume` would give. */
function doc(rates: number[], opts: { bs?: number; rw?: string; volume?: { type: string; size_gib: number } } = {}): FioResult {
  const bs = opts.bs ?? 4096;
  const series = rates.map((iops, i) => ({
    t_ms: (i + 1) * 1000, dur_ms: 1000, read: { iops, bw_bytes: iops * bs, clat_mean_ns: 1e5, clat_p99_ns: 2e5 },
  }));
  const ios = Math.round(rates.reduce((a, b) => a + b, 0));
  return {
    jobs: [{ jobname: 'j', 'job options': { rw: opts.rw ?? 'randread' }, read: { total_ios: ios, io_bytes: ios * bs } }],
    volbench: {
      jobs: [{ jobname: 'j', series }],
      ...(opts.volume ? { cloud: { provider: 'aws', volume: opts.volume } } : {}),
    },
  } as unknown as FioResult;
}

describe('findCliff', () => {
  it('finds a noisy step with its levels, the time inside the second, and the work above the level after', () => {
    const cliff = findCliff(points(40, step(40, 1000, 300, 20.4, 0.05)))!;
    expect(cliff).not.toBeNull();
    expect([20, 21]).toContain(cliff.split);
    expect(cliff.before).toBeGreaterThan(950);
    expect(cliff.before).toBeLessThan(1050);
    expect(cliff.after).toBeGreaterThan(285);
    expect(cliff.after).toBeLessThan(315);
    expect(cliff.atS).toBeGreaterThan(19.4);
    expect(cliff.atS).toBeLessThan(21.4);
    expect(cliff.credits).toBeGreaterThan(0.9 * 700 * 20.4);
    expect(cliff.credits).toBeLessThan(1.1 * 700 * 20.4);
  });

  it('finds a short one: four seconds each side', () => {
    const cliff = findCliff(points(8, step(8, 1000, 250, 4, 0.03)))!;
    expect(cliff.split).toBe(4);
    expect(cliff.atS).toBeCloseTo(4, 0);
  });

  it('finds none in a flat, a noisy, a sliding, a recovering or a rising series', () => {
    const r = noise(7);
    const cases: Array<[string, (i: number) => number]> = [
      ['flat', () => 1000],
      ['noisy (±30%)', () => 1000 * (1 + 0.3 * r())],
      ['sliding from 1,000 to 100', (i) => 1000 - 15 * i],
      ['a dip of five seconds that recovers', (i) => (i >= 20 && i < 25 ? 200 : 1000)],
      ['rising', step(60, 300, 1000, 30)],
      ['dropping by a fifth', step(60, 1000, 800, 30)],
      ['one low second at the end', (i) => (i === 59 ? 10 : 1000)],
    ];
    for (const [name, rate] of cases) expect(findCliff(points(60, rate)), name).toBeNull();
  });

  it('needs three points each side', () => {
    expect(findCliff(points(5, step(5, 1000, 100, 2)))).toBeNull();
    expect(findCliff(points(6, step(6, 1000, 100, 3)))).not.toBeNull();
  });
});

describe('analyseBurst', () => {
  it('writes the cliff under volbench.jobs[].analysis.burst, in IOPS without a volume', () => {
    const out = analyseBurst(doc(points(20, step(20, 1000, 300, 10)).map((p) => p.rate)));
    const b = out.volbench.jobs[0].analysis!.burst!;
    expect(b).toMatchObject({ points: 20, unit: 'IOPS', cliff: true, cliff_at_s: 10, level_before: 1000, level_after: 300, credits: 7000 });
    expect(b.never_left_burst).toBeUndefined();
    expect(b.message).toBe('cliff at 10.0 s: 1,000 IOPS → 300 IOPS, 7,000 IOPS·s above the level after');
  });

  it('leaves a flat run without a cliff, and a short one without an analysis', () => {
    const flat = analyseBurst(doc(Array(20).fill(1000))).volbench.jobs[0].analysis!.burst!;
    expect(flat).toMatchObject({ cliff: false, level: 1000 });
    expect(flat.cliff_at_s).toBeUndefined();
    expect(analyseBurst(doc([1000, 1000, 1000])).volbench.jobs[0].analysis).toBeUndefined();
  });

  it('matches gp2 100 GiB running dry after 2,000 s to its 5.4 M credit bucket', () => {
    // 3,000 IOPS until the bucket (5.4 M) is empty at 2,000 s net of the 300 IOPS refill.
    const rates = points(2300, step(2300, 3000, 300, 2000, 0.02, 3)).map((p) => p.rate);
    const b = analyseBurst(doc(rates, { bs: 16384, volume: { type: 'gp2', size_gib: 100 } })).volbench.jobs[0].analysis!.burst!;
    expect(b.cliff).toBe(true);
    expect(b.never_left_burst).toBe(false);
    expect(b.cliff_at_s).toBeGreaterThan(1990);
    expect(b.cliff_at_s).toBeLessThan(2010);
    expect(b.catalog).toMatchObject({ volume: 'gp2 100 GiB', unit: 'IOPS', level: 3000, baseline: 300, bucket: 5400000, matches: true });
    expect(b.message).toMatch(/^gp2 100 GiB: bucket empty after 2,0\d\d s, matches 5\.4 M credits \(5\.\d M measured above 300 IOPS\)$/);
  });

  it('tells a bucket that was not full, and another limit, from a full bucket', () => {
    const partly = analyseBurst(doc(points(900, step(900, 3000, 300, 600)).map((p) => p.rate), { volume: { type: 'gp2', size_gib: 100 } }));
    const p = partly.volbench.jobs[0].analysis!.burst!;
    expect(p.catalog!.matches).toBe(false);
    expect(p.message).toMatch(/at 1\.6 M credits, under a full bucket's 5\.4 M: it did not start full/);
    const other = analyseBurst(doc(points(60, step(60, 3000, 1000, 30)).map((p) => p.rate), { volume: { type: 'gp2', size_gib: 100 } }));
    expect(other.volbench.jobs[0].analysis!.burst!.message).toMatch(/: another limit$/);
  });

  it('says a short run on gp2 measured the burst, and how long to run', () => {
    const b = analyseBurst(doc(Array(60).fill(3000), { volume: { type: 'gp2', size_gib: 100 } })).volbench.jobs[0].analysis!.burst!;
    expect(b).toMatchObject({ cliff: false, never_left_burst: true, level: 3000 });
    expect(b.catalog!.seconds_needed).toBe(2000);
    expect(b.message).toBe('this measured the burst; baseline is 300 IOPS; run at least 2,000 s or pass --until-baseline');
    // A few seconds are enough to say so.
    expect(analyseBurst(doc([3000, 3000], { volume: { type: 'gp2', size_gib: 100 } })).volbench.jobs[0].analysis!.burst!.never_left_burst).toBe(true);
    // At the baseline, the credits did not bind.
    const low = analyseBurst(doc(Array(60).fill(280), { volume: { type: 'gp2', size_gib: 100 } })).volbench.jobs[0].analysis!.burst!;
    expect(low.never_left_burst).toBe(false);
    expect(low.message).toMatch(/at or under the baseline \(300 IOPS\)/);
  });

  it('reads st1 in MiB/s and a volume that does not burst without the catalog', () => {
    // st1 500 GiB: 19.53 MiB/s base, 122.07 MiB/s burst; 1 MiB reads.
    const st1 = analyseBurst(doc(Array(30).fill(122), { bs: MiB, rw: 'read', volume: { type: 'st1', size_gib: 500 } })).volbench.jobs[0].analysis!.burst!;
    expect(st1.unit).toBe('MiB/s');
    expect(st1.level).toBe(122);
    expect(st1.never_left_burst).toBe(true);
    expect(st1.catalog!.baseline).toBeCloseTo(19.53, 2);
    const gp3 = analyseBurst(doc(points(20, step(20, 3000, 300, 10)).map((p) => p.rate), { volume: { type: 'gp3', size_gib: 100 } }));
    const b = gp3.volbench.jobs[0].analysis!.burst!;
    expect(b.cliff).toBe(true);
    expect(b.catalog).toBeUndefined();
    expect(b.never_left_burst).toBeUndefined();
  });
});

const MiB = 1024 * 1024;

describe('--until-baseline', () => {
  const scratch = new ScratchDir('burst');
  afterAll(() => scratch.remove());

  it('refuses a run without a volume that bursts, or of more than one stage, before any I/O', async () => {
    const file = scratch.path('never.bin');
    const spec = { jobs: [{ name: 'b', filename: file, size: '1m', rw: 'randread' }] };
    const cases: Array<[Parameters<typeof runJobs>, RegExp]> = [
      [[spec, { untilBaseline: { volume: parseVolume('gp3:size=100g') } }], /gp3 100 GiB does not burst/],
      [[spec, { untilBaseline: { volume: parseVolume('gp2:size=2000g') } }], /gp2 2000 GiB does not burst/],
      [[{ jobs: [spec.jobs[0], { ...spec.jobs[0], name: 'c', stonewall: 1 }] }, { untilBaseline: { volume: parseVolume('gp2:size=100g') } }], /runs one stage/],
      [[{ jobs: [{ ...spec.jobs[0], ramp_time: '20s' }] }, { untilBaseline: { volume: parseVolume('gp2:size=100g') }, limits: { maxRuntimeSec: 10 } }], /no runtime within --max-runtime 10s/],
    ];
    for (const [args, message] of cases) {
      const err = await volbenchError(runJobs(...args));
      expect(err.field, String(message)).toBe('--until-baseline');
      expect(err.message).toMatch(message);
    }
    expect(existsSync(file)).toBe(false);
  }, 20_000);

  it('is refused by volbench run without --volume, naming the flag', async () => {
    const out = await volbench(['run', '--name=x', `--filename=${scratch.path('x.bin')}`, '--size=1m', '--until-baseline']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('--until-baseline needs --volume');
    expect(existsSync(scratch.path('x.bin'))).toBe(false);
  }, 20_000);

  it('runs from volbench run and prints the finding in the normal text', async () => {
    const out = await volbench(['run', '--name=g', `--filename=${scratch.path('g.bin')}`, '--size=1m', '--rw=randread', '--ioengine=psync',
      // Paced: unpaced on tmpfs, a fast machine drains gp2's whole bucket within the 2 s.
      '--rate_iops=500', '--volume', 'gp2:size=100g', '--until-baseline', '--max-runtime', '2']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/\n {2}burst {8}: this measured the burst; baseline is 300 IOPS; run at least [\d,]+ s/);
  }, 20_000);

  it('runs a job on gp2 for as long as its bucket lasts, within --max-runtime', async () => {
    // No cliff on a file: the run goes to its --max-runtime, 2 s, and says it measured the burst.
    const file = scratch.path('short.bin');
    const result = await runJobs({ jobs: [{ name: 'b', filename: file, size: '1m', rw: 'randread', ioengine: 'psync', rate_iops: 500 }] },
      { untilBaseline: { volume: parseVolume('gp2:size=100g') }, limits: { maxRuntimeSec: 2 } });
    expect(result.jobs[0]['job options']).toMatchObject({ time_based: '1', runtime: '2s' });
    expect(result.jobs[0].job_runtime).toBeGreaterThanOrEqual(1900);
    const burst = result.volbench.jobs[0].analysis!.burst!;
    expect(burst.cliff).toBe(false);
    // 500 IOPS on gp2 100 GiB: the rate is over the 300 IOPS baseline, so it measured the burst.
    expect(burst.never_left_burst).toBe(true);
    // At 500 IOPS a full bucket lasts 27,000 s, longer than --until-baseline runs (2,560 s); the
    // rate measured is a hair off the paced 500 on a busy machine, and the time with it.
    const m = /^this measured the burst; baseline is 300 IOPS; run at least ([\d,]+) s, or raise the I\/Os in flight towards 3,000 IOPS to drain it sooner$/.exec(burst.message ?? '');
    expect(m, burst.message).not.toBeNull();
    expect(Number(m![1].replace(/,/g, ''))).toBeGreaterThan(27_000 * 0.97);
    expect(Number(m![1].replace(/,/g, ''))).toBeLessThan(27_000 * 1.03);
  }, 20_000);
});

describe('analyseBurst on documents from elsewhere', () => {
  it('returns fio\'s own JSON as it is, and skips what is not a series', () => {
    const fio = { jobs: [{ jobname: 'x' }] } as unknown as FioResult;
    expect(analyseBurst(fio)).toBe(fio);
    const odd = { volbench: { jobs: [null, { series: 'no' }, { series: [null, { t_ms: 'a', dur_ms: 1000, read: { iops: '5' } }] }], cloud: { volume: { type: 'nope', size_gib: 1 } } } } as unknown as FioResult;
    const out = analyseBurst(odd);
    expect(out.volbench.jobs).toEqual([null, { series: 'no' }, { series: [null, { t_ms: 'a', dur_ms: 1000, read: { iops: '5' } }] }]);
  });
});

describe("the instance's daily burst: a cliff to its EBS baseline is named instance-burst", () => {
  /** A document run on `instance`, as `volbench run --volume ... --instance ...` writes it. */
  function onInstance(rates: number[], instance: string, volume: { type: string; size_gib: number; iops?: number; throughput_mibps?: number }, bs = MiB): FioResult {
    const d = doc(rates, { bs, rw: 'read', volume: { type: volume.type, size_gib: volume.size_gib } });
    (d.volbench as { cloud: unknown }).cloud = { provider: 'aws', instance_type: instance, volume };
    return d;
  }

  it('st1 2 TiB on m6i.large: 500 MiB/s for 1,800 s, then 77.5 MiB/s (81.25 MB/s) is the instance, not the bucket', () => {
    // Before: this was told "another limit" against st1's bucket. 650 Mbps = 81.25 MB/s = 77.49 MiB/s.
    const rates = [...Array(1800).fill(500), ...Array(300).fill(77.49)];
    const b = analyseBurst(onInstance(rates, 'm6i.large', { type: 'st1', size_gib: 2048 })).volbench.jobs[0].analysis!.burst!;
    expect(b.cliff).toBe(true);
    expect(b.cause).toBe('instance-burst');
    expect(b.cliff_at_s).toBeCloseTo(1800, -1);
    expect(b.message).toMatch(/^instance-burst: m6i.large's EBS burst ended after 1,800 s: 500 MiB\/s → 77\.5 MiB\/s, its baseline \(77\.5 MiB\/s\)/);
  });

  it('gp3 16,000 IOPS on m6i.large at 4 KiB: 16,000 → 3,600 IOPS is instance-burst', () => {
    const rates = [...Array(60).fill(16000), ...Array(60).fill(3600)];
    const d = onInstance(rates, 'm6i.large', { type: 'gp3', size_gib: 500, iops: 16000, throughput_mibps: 125 }, 4096);
    (d.jobs[0] as { 'job options': Record<string, string> })['job options'].rw = 'randread';
    const b = analyseBurst(d).volbench.jobs[0].analysis!.burst!;
    expect(b.cause).toBe('instance-burst');
  });

  it('a cliff to another level, or without the instance, is not named so', () => {
    const rates = [...Array(60).fill(500), ...Array(60).fill(200)];
    expect(analyseBurst(onInstance(rates, 'm6i.large', { type: 'st1', size_gib: 2048 })).volbench.jobs[0].analysis!.burst!.cause).toBeUndefined();
    const to77 = [...Array(60).fill(500), ...Array(60).fill(77.49)];
    const d = doc(to77, { bs: MiB, rw: 'read', volume: { type: 'st1', size_gib: 2048 } });
    expect(analyseBurst(d).volbench.jobs[0].analysis!.burst!.cause).toBeUndefined();
  });
});
