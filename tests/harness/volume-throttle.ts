// Holds one emulated volume to its model: every tick, what the group did on the device (the
// throttle's own counters, and the device's true bytes) goes into the ThrottleModel, and the
// limits it answers go into the group's blkio throttle. Ticks are measured on the monotonic
// clock, so a late timer drains a bucket by the time that really passed.
//
// With `ebsStats`, the volume also publishes the EBS statistics page a Nitro volume would answer
// (emulated-ebs-stats.ts), told the limits of the model's current phases (the volume's and the
// instance's, scaled as the kernel holds them) whenever a bucket empties or refills. Those are
// AWS's limits as the page knows them, in true bytes and I/Os: not the kernel's per-direction
// split, nor its allowance for bytes it charges twice.
import { deviceStat, type BlkioGroup, type Counters, type DeviceStat } from './blkio.js';
import { EmulatedEbsStats, type EmulatedEbsLimits } from './emulated-ebs-stats.js';
import { scaleSpec, ThrottleModel, type KernelLimits, type ModelState, type Scale, type ThrottleSpec, type Usage } from './throttle-model.js';

export interface VolumeThrottleOptions {
  group: BlkioGroup;
  majMin: string;
  spec: ThrottleSpec;
  scale?: Scale;
  tickMs?: number;
  /** Publish the volume's EBS statistics page in `dir` (the directory VOLBENCH_EMULATED_NVME_DIR names). */
  ebsStats?: { dir: string };
}
export interface ThrottleState extends ModelState {
  scale: Scale;
  kernel: KernelLimits;
  totals: Usage;
  elapsedS: number;
  ticks: number;
}
/** One reading of the group's counters and the device's, on the monotonic clock. */
interface Sample { at: number; cg: Counters; dev: DeviceStat }

const delta = (now: Sample, before: Sample): Usage => ({
  read: { bios: now.cg.read.bios - before.cg.read.bios, chargedBytes: now.cg.read.bytes - before.cg.read.bytes, trueBytes: now.dev.read.bytes - before.dev.read.bytes },
  write: { bios: now.cg.write.bios - before.cg.write.bios, chargedBytes: now.cg.write.bytes - before.cg.write.bytes, trueBytes: now.dev.write.bytes - before.dev.write.bytes },
});

/** Limits that differ by more than 2% in any field (or where one is 0: none). */
function moved(before: KernelLimits | undefined, after: KernelLimits): boolean {
  if (!before) return true;
  for (const dir of ['read', 'write'] as const) {
    for (const key of ['iops', 'bps'] as const) {
      const a = before[dir][key];
      const b = after[dir][key];
      if ((a === 0) !== (b === 0) || Math.abs(a - b) > 0.02 * Math.max(a, b)) return true;
    }
  }
  return false;
}

export class VolumeThrottle {
  readonly group: BlkioGroup;
  readonly majMin: string;
  readonly scale: Scale;
  readonly scaledSpec: ThrottleSpec;
  readonly model: ThrottleModel;
  readonly tickMs: number;
  private timer: NodeJS.Timeout | undefined;
  private ticks: number;
  private last: Sample | undefined;
  private first: Sample | undefined;
  private applied: KernelLimits | undefined;
  private readonly ebsDir: string | undefined;
  private ebs: EmulatedEbsStats | undefined;
  private ebsLimits: string | undefined;

  /**
   * group: a BlkioGroup; majMin: the device ("7:3"); spec: the model in AWS's numbers; scale:
   * { rate, time }; tickMs: how often limits follow the model (default 100).
   */
  constructor({ group, majMin, spec, scale = { rate: 1, time: 1 }, tickMs = 100, ebsStats }: VolumeThrottleOptions) {
    this.group = group;
    this.majMin = majMin;
    this.scale = scale;
    this.scaledSpec = scaleSpec(spec, scale);
    this.model = new ThrottleModel(this.scaledSpec);
    this.tickMs = tickMs;
    this.timer = undefined;
    this.ticks = 0;
    this.ebsDir = ebsStats?.dir;
  }

  /** The limits of the model's current phases as the statistics page names them (limiters `volume` and `instance`). */
  pageLimits(): EmulatedEbsLimits {
    const out: EmulatedEbsLimits = {};
    for (const { name, rates } of this.model.rates()) if (name === 'volume' || name === 'instance') out[name] = rates;
    return out;
  }

  sample(): Sample {
    return { at: performance.now(), cg: this.group.counters(this.majMin), dev: deviceStat(this.majMin) };
  }

  /** Sets the model's first limits and follows it every tick until stop(). */
  start(): this {
    this.group.count(this.majMin);
    this.last = this.sample();
    this.first = this.last;
    this.applied = this.model.kernelLimits();
    this.group.setLimits(this.majMin, this.applied);
    this.timer = setInterval(() => this.tick(), this.tickMs);
    this.timer.unref();
    if (this.ebsDir) {
      const limits = this.pageLimits();
      this.ebsLimits = JSON.stringify(limits);
      this.ebs = new EmulatedEbsStats({ majMin: this.majMin, limits, dir: this.ebsDir, scale: this.scale, group: this.group, tickMs: this.tickMs }).start();
    }
    return this;
  }

  /** One step: what was done since the last, into the model; its limits into the kernel. */
  tick(): void {
    const last = this.last!;
    const now = this.sample();
    const dtS = (now.at - last.at) / 1000;
    if (dtS <= 0) return;
    const limits = this.model.step(dtS, delta(now, last));
    this.last = now;
    this.ticks += 1;
    this.followPhases();
    // Each write of a limit starts the kernel's throttle slice anew: write only what moved.
    if (moved(this.applied, limits)) {
      this.group.setLimits(this.majMin, limits);
      this.applied = limits;
    }
  }

  /** The page's limits follow the model's phases: a bucket that empties lowers them, one that refills raises them. */
  private followPhases(): void {
    if (!this.ebs) return;
    const limits = this.pageLimits();
    const text = JSON.stringify(limits);
    if (text === this.ebsLimits) return;
    this.ebsLimits = text;
    this.ebs.setLimits(limits);
  }

  /** The statistics page as last published, when the volume publishes one. */
  ebsPage(): ReturnType<EmulatedEbsStats['page']> | undefined {
    return this.ebs?.page();
  }

  /** Stops following the model, removes the statistics page and lifts the device's limits. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.ebs?.stop();
    this.ebs = undefined;
    this.group.setLimits(this.majMin, { read: { iops: 0, bps: 0 }, write: { iops: 0, bps: 0 } });
  }

  /** The model's state, the kernel's limits as it reads them back, and totals since start(). */
  state(): ThrottleState {
    const now = this.sample();
    return {
      ...this.model.state(),
      scale: this.scale,
      kernel: this.group.limits(this.majMin),
      totals: delta(now, this.first ?? now),
      elapsedS: this.first ? (now.at - this.first.at) / 1000 : 0,
      ticks: this.ticks,
    };
  }
}
