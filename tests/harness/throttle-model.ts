// The performance model of an emulated volume as plain numbers, and its state over time: which
// limits hold now (a bucket's burst, or its baseline once empty), how fast buckets drain and refill.
// Pure: no clock, no files. volume-throttle.ts feeds it the kernel's counters each tick and writes
// the limits it answers into the blkio cgroup; tests feed it numbers.
//
// A spec is a list of limiters that all apply (the volume's, the instance's); each has baseline
// rates, and may have burst rates with a bucket:
//
//   { limiters: [
//       { name: 'volume', baseline: { iops: 300 }, burst: { iops: 3000 }, countedIoBytes: 262144,
//         bucket: { unit: 'ios', size: 5.4e6, refillPerS: 300 } },
//       { name: 'instance', baseline: { iops: 3600, bps: 81.25e6 }, burst: { iops: 40000, bps: 1.25e9 },
//         bucket: { unit: 'seconds', size: 1800, refillPerS: 1800 / 86400 } } ] }
//
// Rates are read + write together, as AWS states them; the kernel limits each direction apart, so
// the model splits a rate between them by what each used over the last second (all of it to each
// when only one is in use). Units of a bucket: 'ios' counts I/Os of up to countedIoBytes (a larger
// one counts bytes / countedIoBytes), 'bytes' counts bytes (with smallIoCountsWhole, every I/O up to
// countedIoBytes as a whole one, as HDD types count), 'seconds' counts time spent above the baseline
// (the instance's daily 30 minutes).
//
// Scale: `rate` multiplies every rate, bucket sizes of I/Os and bytes, and refills; `time`
// multiplies bucket sizes (and a seconds bucket's refill period), so a bucket drains in `time`
// times its real duration: bucket / (burst - baseline) seconds, scaled.

/** Rates read + write together, as AWS states them. */
export interface Rates { iops?: number; bps?: number }
export interface Bucket {
  unit: 'ios' | 'bytes' | 'seconds';
  size: number;
  refillPerS: number;
  /** 0-1 of a full bucket at the start (default 1). */
  initial?: number;
}
export interface LimiterSpec {
  name: string;
  baseline: Rates;
  burst?: Rates;
  bucket?: Bucket;
  countedIoBytes?: number;
  smallIoCountsWhole?: boolean;
}
export interface ThrottleSpec { limiters: LimiterSpec[] }
export interface Scale { rate: number; time: number }
export type Direction = 'read' | 'write';
export interface DirectionUsage { bios: number; chargedBytes: number; trueBytes: number }
export interface Usage { read: DirectionUsage; write: DirectionUsage }
export interface DirectionLimits { iops: number; bps: number }
/** What the kernel is told per direction; 0 for none. */
export interface KernelLimits { read: DirectionLimits; write: DirectionLimits }
export type Phase = 'burst' | 'baseline';
export interface PhaseEvent { t: number; limiter: string; phase: Phase; balance: number }
export interface ModelState {
  t: number;
  limiters: { name: string; phase: Phase; balance: number; size: number | null }[];
  events: PhaseEvent[];
}
interface LimiterState { spec: LimiterSpec; balance: number; phase: Phase }
type Split = Record<Direction, number>;
const DIRECTIONS: readonly Direction[] = ['read', 'write'];

/** Bios smaller than this fraction of the counted size are taken as whole I/Os (HDD rule). */
const SMALL_IO_FRACTION = 1 / 4;
/** A rate above its baseline by more than this counts as burst use of a seconds bucket. */
const ABOVE_BASELINE = 1.02;
/** Ticks that judge the shares of a combined rate: about a second at the default tick. */
const SHARE_TICKS = 10;
/** Ticks that judge byte inflation: about two seconds, so that what is in flight weighs little. */
const WINDOW_TICKS = 20;
/** Below this ratio of charged to true bytes, the difference is I/O in flight, not double charging. */
const MIN_INFLATION = 1.3;

/** The spec with the scale's factors applied (a new object); what the kernel will be held to. */
export function scaleSpec(spec: ThrottleSpec, scale: Partial<Scale> = { rate: 1, time: 1 }): ThrottleSpec {
  const rate = scale.rate ?? 1;
  const time = scale.time ?? 1;
  if (!(rate > 0) || !(time > 0)) throw new RangeError(`scale: rate and time must be positive numbers, not ${JSON.stringify(scale)}`);
  const rates = (r: Rates): Rates => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v * rate]));
  return {
    limiters: spec.limiters.map((l) => ({
      ...l,
      baseline: rates(l.baseline),
      ...(l.burst ? { burst: rates(l.burst) } : {}),
      ...(l.bucket ? {
        bucket: l.bucket.unit === 'seconds'
          ? { ...l.bucket, size: l.bucket.size * time, refillPerS: l.bucket.refillPerS }
          : { ...l.bucket, size: l.bucket.size * rate * time, refillPerS: l.bucket.refillPerS * rate },
      } : {}),
    })),
  };
}

/** Seconds a full bucket lasts at its burst rate against its refill (what the cliff's time is). */
export function secondsFromFull(limiter: LimiterSpec): number {
  const b = limiter.bucket;
  if (!b || !limiter.burst) return Infinity;
  if (b.unit === 'seconds') return b.size / Math.max(1e-12, 1 - b.refillPerS);
  const use = b.unit === 'ios' ? limiter.burst.iops : limiter.burst.bps;
  const net = (use ?? Infinity) - b.refillPerS;
  return net > 0 ? b.size / net : Infinity;
}

function checkSpec(spec: ThrottleSpec): void {
  if (!spec || !Array.isArray(spec.limiters) || spec.limiters.length === 0) throw new TypeError('spec.limiters: a non-empty array of limiters');
  for (const [i, l] of spec.limiters.entries()) {
    const at = `spec.limiters[${i}]`;
    if (typeof l.name !== 'string' || !l.name) throw new TypeError(`${at}.name: a non-empty string`);
    for (const key of ['baseline', 'burst'] as const) {
      for (const [k, v] of Object.entries(l[key] ?? {})) {
        if (!['iops', 'bps'].includes(k) || !(v > 0)) throw new TypeError(`${at}.${key}.${k}: iops or bps, a positive number`);
      }
    }
    if (!l.baseline) throw new TypeError(`${at}.baseline: { iops?, bps? }`);
    if (l.bucket && !l.burst) throw new TypeError(`${at}: a bucket needs burst rates`);
    if (l.bucket && (!['ios', 'bytes', 'seconds'].includes(l.bucket.unit) || !(l.bucket.size > 0) || !(l.bucket.refillPerS >= 0))) {
      throw new TypeError(`${at}.bucket: { unit: ios|bytes|seconds, size > 0, refillPerS >= 0, initial? 0-1 }`);
    }
    if (l.countedIoBytes !== undefined && !(l.countedIoBytes > 0)) throw new TypeError(`${at}.countedIoBytes: a positive number of bytes`);
  }
}

const sum = (rows: Usage[], dir: Direction, key: keyof DirectionUsage) => rows.reduce((n, r) => n + r[dir][key], 0);

/**
 * The model's state. step(dtS, usage) takes what was done in the last dtS seconds, per
 * direction { bios, chargedBytes, trueBytes } (bios and charged bytes as the cgroup counts them,
 * true bytes as the device does), and answers the kernel limits for the next tick:
 * { read: { iops, bps }, write: { iops, bps } }, 0 for none.
 */
export class ThrottleModel {
  readonly spec: ThrottleSpec;
  t: number;
  events: PhaseEvent[];
  window: Usage[];
  limiters: LimiterState[];

  constructor(spec: ThrottleSpec) {
    checkSpec(spec);
    this.spec = spec;
    this.t = 0;
    this.events = [];
    this.window = [];
    this.limiters = spec.limiters.map((l) => ({
      spec: l,
      balance: l.bucket ? l.bucket.size * (l.bucket.initial ?? 1) : Infinity,
      phase: l.burst ? 'burst' : 'baseline',
    }));
  }

  /** Units of a bucket used by one tick's usage in one direction. */
  static unitsUsed(limiter: LimiterSpec, u: Pick<DirectionUsage, 'bios' | 'trueBytes'>, dtS: number): number {
    const c = limiter.countedIoBytes;
    switch (limiter.bucket!.unit) {
      case 'ios':
        return c ? Math.max(u.bios, u.trueBytes / c) : u.bios;
      case 'bytes':
        return limiter.smallIoCountsWhole && c && u.bios > 0 && u.trueBytes / u.bios < c * SMALL_IO_FRACTION ? u.bios * c : u.trueBytes;
      default: {
        const b = limiter.baseline;
        const above = (b.iops !== undefined && u.bios / dtS > b.iops * ABOVE_BASELINE) || (b.bps !== undefined && u.trueBytes / dtS > b.bps * ABOVE_BASELINE);
        return above ? dtS : 0;
      }
    }
  }

  drain(state: LimiterState, usage: Usage, dtS: number): void {
    const l = state.spec;
    if (!l.bucket) return;
    let used: number;
    if (l.bucket.unit === 'seconds') {
      const both = { bios: usage.read.bios + usage.write.bios, trueBytes: usage.read.trueBytes + usage.write.trueBytes };
      used = ThrottleModel.unitsUsed(l, both, dtS);
    } else {
      used = ThrottleModel.unitsUsed(l, usage.read, dtS) + ThrottleModel.unitsUsed(l, usage.write, dtS);
    }
    state.balance = Math.min(l.bucket.size, state.balance + l.bucket.refillPerS * dtS - used);
    const before = state.phase;
    // Back to burst only once a tick's worth of burst is in the bucket, so the phase does not flap.
    const tickOfBurst = l.bucket.unit === 'seconds' ? dtS : ((l.bucket.unit === 'ios' ? l.burst!.iops : l.burst!.bps) ?? 0) * dtS;
    if (state.balance <= 0) state.phase = 'baseline';
    else if (state.phase === 'baseline' && state.balance >= tickOfBurst) state.phase = 'burst';
    if (state.phase !== before) this.events.push({ t: this.t, limiter: l.name, phase: state.phase, balance: state.balance });
  }

  step(dtS: number, usage: Usage): KernelLimits {
    this.t += dtS;
    for (const s of this.limiters) this.drain(s, usage, dtS);
    this.window.push(usage);
    if (this.window.length > WINDOW_TICKS) this.window.shift();
    return this.kernelLimits();
  }

  /** Shares of a combined rate per direction, and byte inflation (charged / true) per direction. */
  observed() {
    const w = this.window;
    const recent = w.slice(-SHARE_TICKS);
    const share = (key: 'bios' | 'trueBytes'): Split => {
      const r = sum(recent, 'read', key);
      const wr = sum(recent, 'write', key);
      if (r === 0 || wr === 0) return { read: 1, write: 1 };
      // In steps of 5%: each new limit restarts the kernel's slice, so small wobbles are not written.
      const read = Math.min(0.95, Math.max(0.05, Math.round((r / (r + wr)) * 20) / 20));
      return { read, write: 1 - read };
    };
    // The throttle charges a bio's bytes when it passes, the device counts them when done: over a
    // short window what is in flight looks like inflation. Only a full window (two seconds) well
    // above 1 is taken (a split bio charged twice shows 1.35-1.8 here), in steps of 0.05.
    const inflation = (dir: Direction) => {
      const t = sum(w, dir, 'trueBytes');
      if (w.length < WINDOW_TICKS || t === 0) return 1;
      const ratio = sum(w, dir, 'chargedBytes') / t;
      return ratio < MIN_INFLATION ? 1 : Math.min(4, Math.round(ratio * 20) / 20);
    };
    const avgBio = (dir: Direction) => {
      const b = sum(recent, dir, 'bios');
      return b > 0 ? sum(recent, dir, 'trueBytes') / b : Infinity;
    };
    return { iopsShare: share('bios'), bpsShare: share('trueBytes'), inflation: { read: inflation('read'), write: inflation('write') }, avgBio: { read: avgBio('read'), write: avgBio('write') } };
  }

  /** The limits of the current phases, the tightest per field, split per direction. */
  kernelLimits(): KernelLimits {
    const o = this.observed();
    const out = { read: { iops: Infinity, bps: Infinity }, write: { iops: Infinity, bps: Infinity } };
    for (const s of this.limiters) {
      const rates = (s.phase === 'burst' ? s.spec.burst : s.spec.baseline)!;
      for (const dir of DIRECTIONS) {
        if (rates.iops !== undefined) out[dir].iops = Math.min(out[dir].iops, rates.iops * o.iopsShare[dir]);
        if (rates.bps !== undefined) {
          const trueBps = rates.bps * o.bpsShare[dir];
          out[dir].bps = Math.min(out[dir].bps, trueBps * o.inflation[dir]);
          const c = s.spec.countedIoBytes;
          // HDD: small I/Os each count a whole counted I/O against the throughput.
          if (s.spec.smallIoCountsWhole && c && o.avgBio[dir] < c * SMALL_IO_FRACTION) out[dir].iops = Math.min(out[dir].iops, trueBps / c);
        }
      }
    }
    const finite = (v: number) => (Number.isFinite(v) ? Math.max(1, Math.round(v)) : 0);
    return { read: { iops: finite(out.read.iops), bps: finite(out.read.bps) }, write: { iops: finite(out.write.iops), bps: finite(out.write.bps) } };
  }

  /** Each limiter's rates in its current phase (its burst while the bucket lasts, else its baseline), read + write together. */
  rates(): { name: string; rates: Rates }[] {
    return this.limiters.map((s) => ({ name: s.spec.name, rates: { ...(s.phase === 'burst' ? s.spec.burst! : s.spec.baseline) } }));
  }

  /** Where each limiter stands now. */
  state(): ModelState {
    return {
      t: this.t,
      limiters: this.limiters.map((s) => ({ name: s.spec.name, phase: s.phase, balance: s.balance, size: s.spec.bucket?.size ?? null })),
      events: [...this.events],
    };
  }
}
