/**
 * The EBS statistics page an emulated volume publishes (NVMe log page 0xD0, the way a Nitro
 * volume answers it), for the test seam VOLBENCH_EMULATED_NVME_DIR (src/device/emulated-nvme.ts):
 * every tick, the device's counters become the page, written whole (by rename) as
 * DIR/MAJ:MIN.page, with the emulation's scale beside it as DIR/MAJ:MIN.emulation.json.
 *
 * The exceeded times come from observed demand, never from the throttle's verdict: time counts
 * against a limit while I/Os wait to reach the device (on average over the last 3 ticks, at least
 * half an I/O) and the rate the device delivers over that queue's ticks (up to 5) sits at the
 * limit (at least 85% of it). A queue is judged once it has lasted 5 ticks and then counts from
 * its start, so a job's pacing catching up after a stall, which waits briefly, does not count.
 * A job held below its limit by its own depth or rate leaves nothing waiting, or delivers less:
 * it reads 0.
 *
 * Where the I/Os wait: a device's own in-flight count (/sys/dev/block/MAJ:MIN/stat) shows only
 * what it was handed. The kernel's block throttle holds bios before the device sees them, so
 * there the device shows nothing in flight (measured: 0 at QD16 against a limit); with the
 * throttle's group given, what arrived at the throttle (blkio.throttle.io_serviced counts a bio
 * as it arrives, held or not) less what the device completed is what is outstanding, and that
 * less the device's mean in-flight (its weighted time, time_in_queue) is what waits. Without a
 * group, a device that keeps more than one I/O in flight on average counts as queued.
 *
 * Latency: the device's time per I/O over the tick (its read and write ticks) plus the time the
 * backlog spent waiting before it, shared over the tick's I/Os, binned at that mean.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { EMPTY_PAGE, encodeEbsLogPage, EBS_MAGIC, INSTANCE_STORE_MAGIC, type PageBin, type PageFields } from '../helpers/ebs-log-page.js';

/** Read + write together, per second; a limit left out is none. */
export interface EbsRateLimit {
  iops?: number;
  bps?: number;
}

export interface EmulatedEbsLimits {
  /** The volume's provisioned (or current burst) IOPS and throughput. */
  volume?: EbsRateLimit;
  /** The instance's EBS IOPS and throughput. */
  instance?: EbsRateLimit;
}

/** What a BlkioGroup (tests/harness/blkio.ts) says of a device: bios and bytes that arrived, per direction. */
export interface ArrivalCounters {
  /** Makes the throttle count the device (it counts nothing on one no rule has named), or throws naming it. */
  count(majMin: string): void;
  counters(majMin: string): { read: { bios: number; bytes: number }; write: { bios: number; bytes: number } };
}

export interface EmulatedEbsStatsOptions {
  /** The device: "7:3". */
  majMin: string;
  limits: EmulatedEbsLimits;
  /** Where the page goes: the directory VOLBENCH_EMULATED_NVME_DIR names. */
  dir: string;
  /** The emulation's scale, published for the result's volbench.cloud.emulation. */
  scale?: { rate: number; time: number };
  /** The throttle's group, whose counters show the I/Os it holds (see above). */
  group?: ArrivalCounters;
  page?: 'ebs' | 'instance-store';
  tickMs?: number;
}

interface Sample {
  atMs: number;
  /** Completed by the device: ios (merged bios included), bytes, ms of device time, per direction. */
  done: { read: { ios: number; bytes: number; ms: number }; write: { ios: number; bytes: number; ms: number } };
  inFlight: number;
  /** ms of I/O in flight at the device, weighted by how many (its time_in_queue). */
  queueMs: number;
  /** Arrived at the throttle, read + write (bios); null without a group. */
  arrived: number | null;
}

/** A delivered rate within this share of a limit sits at it. */
const AT_LIMIT = 0.85;
/** Ticks the delivered rate is judged over (the kernel's throttle works in 100 ms slices). */
const RATE_WINDOW_TICKS = 5;
/** I/Os held before the device, on average over the last ticks, that count as a queue. */
const QUEUED = 0.5;
/** Ticks the queue's level is judged over. */
const LEVEL_TICKS = 3;
/** Ticks a queue must last before it is judged. */
const MIN_QUEUE_TICKS = 5;
/** Ticks with nothing moving after which nothing is held. */
const IDLE_TICKS = 5;

function deviceSample(majMin: string, group: ArrivalCounters | undefined): Sample {
  const f = readFileSync(`/sys/dev/block/${majMin}/stat`, 'utf8').trim().split(/\s+/).map(Number);
  const arrived = group ? group.counters(majMin) : null;
  return {
    atMs: performance.now(),
    done: {
      read: { ios: f[0] + f[1], bytes: f[2] * 512, ms: f[3] },
      write: { ios: f[4] + f[5], bytes: f[6] * 512, ms: f[7] },
    },
    inFlight: f[8],
    queueMs: f[10],
    arrived: arrived ? arrived.read.bios + arrived.write.bios : null,
  };
}

/** Bins of the page: [0, 16) µs, then powers of two up to 2^35 µs. */
function emptyBins(): PageBin[] {
  return Array.from({ length: 32 }, (_, i) => ({ lower_us: i === 0 ? 0 : 2 ** (i + 3), upper_us: 2 ** (i + 4), count: 0 }));
}

function addToBins(bins: PageBin[], latencyUs: number, count: number): void {
  if (count <= 0) return;
  const bin = bins.find((b) => latencyUs < b.upper_us) ?? bins[bins.length - 1];
  bin.count += count;
}

export class EmulatedEbsStats {
  private limits: EmulatedEbsLimits;
  private readonly tickMs: number;
  private timer: NodeJS.Timeout | undefined;
  private first: Sample | undefined;
  private last: Sample | undefined;
  /** The samples since the end of the tick the current queue began in (the rate's window). */
  private queued: Sample[] = [];
  /** µs of the current queue not yet judged. */
  private pendingUs = 0;
  private idleTicks = 0;
  /** Arrivals counted before this publisher started, or that the device does not count: the backlog's zero. */
  private arrivedOffset = 0;
  private outstandingBefore = 0;
  /** The last ticks' time, the device's weighted time and the outstanding I/Os' time, for the queue's level. */
  private levels: Array<{ dtMs: number; deviceMs: number; outstandingMs: number }> = [];
  private readonly fields: PageFields;

  constructor(private readonly options: EmulatedEbsStatsOptions) {
    this.limits = options.limits;
    this.tickMs = options.tickMs ?? 100;
    this.fields = {
      ...EMPTY_PAGE,
      magic: (options.page ?? 'ebs') === 'ebs' ? EBS_MAGIC : INSTANCE_STORE_MAGIC,
      hist_io_sizes: [...EMPTY_PAGE.hist_io_sizes],
      read_io_latency_histogram: emptyBins(),
      write_io_latency_histogram: emptyBins(),
    };
  }

  private get pagePath(): string {
    return join(this.options.dir, `${this.options.majMin}.page`);
  }

  private get scalePath(): string {
    return join(this.options.dir, `${this.options.majMin}.emulation.json`);
  }

  /** Counts from now (the volume's attach) and publishes every tick until stop(). */
  start(): this {
    // A fresh loop device's arrivals would read 0 without it, and every I/O would look completed.
    this.options.group?.count(this.options.majMin);
    this.first = deviceSample(this.options.majMin, this.options.group);
    this.last = this.first;
    this.queued = [];
    this.arrivedOffset = (this.first.arrived ?? 0) - total(this.first).ios;
    if (this.options.scale) writeWhole(this.scalePath, `${JSON.stringify(this.options.scale)}\n`);
    this.publish();
    this.timer = setInterval(() => this.tick(), this.tickMs);
    return this;
  }

  /** The limits from now on (a bucket emptied, a burst began). */
  setLimits(limits: EmulatedEbsLimits): void {
    this.limits = limits;
  }

  /** Takes a last tick, stops, and removes the page (the volume is detached). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    if (this.first) this.tick();
    rmSync(this.pagePath, { force: true });
    rmSync(this.scalePath, { force: true });
  }

  /** The page's fields as last published. */
  page(): PageFields {
    return structuredClone(this.fields);
  }

  /**
   * I/Os arrived at the throttle less those the device completed; null without a group. Below 0
   * where the device counted more than the throttle did (a bio split after it): nothing is held.
   */
  private arrivedNotDone(now: Sample): number | null {
    return now.arrived === null ? null : now.arrived - this.arrivedOffset - total(now).ios;
  }

  tick(): void {
    const now = deviceSample(this.options.majMin, this.options.group);
    const prev = this.last!;
    const dtMs = now.atMs - prev.atMs;
    if (dtMs <= 0) return;
    const raw = this.arrivedNotDone(now);
    // Arrivals and completions drift apart where the two count differently, either way (a flush
    // is a write bio to the throttle, not an I/O to the device; I/O that did not pass the group's
    // throttle is one the device counts alone). Nothing arrived, completed or in flight for
    // IDLE_TICKS: nothing can be held (any limit above 2 IOPS dispatches within them), so the
    // count is set back in step, whichever way it drifted: a deficit left standing would hide
    // the next queue as surely as a surplus would invent one.
    const idle = now.arrived === prev.arrived && total(now).ios === total(prev).ios && now.inFlight === 0;
    this.idleTicks = idle ? this.idleTicks + 1 : 0;
    if (raw !== null && raw !== 0 && this.idleTicks >= IDLE_TICKS) this.arrivedOffset += raw;
    const outstanding = raw === null ? null : Math.max(0, this.idleTicks >= IDLE_TICKS ? 0 : raw);
    // The device's mean in-flight, from its weighted time (the time of the I/Os it completed),
    // and the mean outstanding, over the last few ticks: one tick's would follow the throttle's
    // bursts (all of them handed to the device, then none) and the completions' bunching.
    this.levels = [...this.levels, {
      dtMs,
      deviceMs: Math.max(0, now.queueMs - prev.queueMs),
      outstandingMs: outstanding === null ? 0 : ((this.outstandingBefore + outstanding) / 2) * dtMs,
    }].slice(-LEVEL_TICKS);
    const spanMs = this.levels.reduce((n, l) => n + l.dtMs, 0);
    const atDevice = this.levels.reduce((n, l) => n + l.deviceMs, 0) / spanMs;
    const waiting = outstanding === null
      ? Math.max(0, atDevice - 1)
      : Math.max(0, this.levels.reduce((n, l) => n + l.outstandingMs, 0) / spanMs - atDevice);
    this.last = now;
    this.addIo(prev, now, dtMs, waiting);
    this.judgeQueue(now, dtMs * 1000, waiting);
    this.fields.volume_queue_length = outstanding ?? now.inFlight;
    this.outstandingBefore = outstanding ?? 0;
    this.publish();
  }

  /** The tick's I/Os into the counters and histograms; `waiting`: I/Os held before the device, on average. */
  private addIo(prev: Sample, now: Sample, dtMs: number, waiting: number): void {
    const f = this.fields;
    const waitUs = waiting * dtMs * 1000;
    const ios = total(now).ios - total(prev).ios;
    for (const dir of ['read', 'write'] as const) {
      const n = now.done[dir].ios - prev.done[dir].ios;
      if (n <= 0) continue;
      // The device's time for the tick's I/Os, and the wait before it, shared by their number.
      const timeUs = (now.done[dir].ms - prev.done[dir].ms) * 1000 + (ios > 0 ? (waitUs * n) / ios : 0);
      f[`total_${dir}_ops`] += n;
      f[`total_${dir}_bytes`] += now.done[dir].bytes - prev.done[dir].bytes;
      f[`total_${dir}_time`] += Math.round(timeUs);
      addToBins(f[`${dir}_io_latency_histogram`], timeUs / n, n);
    }
  }

  /**
   * Counts the tick against each limit the delivered rate sits at while I/Os wait. A queue is
   * judged once it has lasted MIN_QUEUE_TICKS, over its ticks from the end of the one it began
   * in (that one, partly idle, would hold the rate down), and then counts from its start: a
   * burst of a job's pacing that waits a few ticks is not demand over a limit. Below every
   * limit, it is given until its window is full (the throttle's first slices run slow).
   */
  private judgeQueue(now: Sample, dtUs: number, waiting: number): void {
    if (waiting < QUEUED) {
      this.queued = [];
      this.pendingUs = 0;
      return;
    }
    this.queued = [...this.queued, now].slice(-(RATE_WINDOW_TICKS + 1));
    this.pendingUs += dtUs;
    if (this.queued.length < MIN_QUEUE_TICKS) return;
    const oldest = this.queued[0];
    const windowS = (now.atMs - oldest.atMs) / 1000;
    const rate = { iops: (total(now).ios - total(oldest).ios) / windowS, bps: (total(now).bytes - total(oldest).bytes) / windowS };
    const at = (limit: number | undefined, delivered: number) => limit !== undefined && limit > 0 && delivered >= AT_LIMIT * limit;
    const over = {
      ebs_volume_performance_exceeded_iops: at(this.limits.volume?.iops, rate.iops),
      ebs_volume_performance_exceeded_tp: at(this.limits.volume?.bps, rate.bps),
      ec2_instance_ebs_performance_exceeded_iops: at(this.limits.instance?.iops, rate.iops),
      ec2_instance_ebs_performance_exceeded_tp: at(this.limits.instance?.bps, rate.bps),
    };
    const entries = Object.entries(over) as Array<[keyof typeof over, boolean]>;
    // A young queue below every limit is not judged yet: its window still holds its start.
    if (!entries.some(([, yes]) => yes) && this.queued.length <= RATE_WINDOW_TICKS) return;
    for (const [field, yes] of entries) if (yes) this.fields[field] += Math.round(this.pendingUs);
    this.pendingUs = 0;
  }

  private publish(): void {
    writeWhole(this.pagePath, encodeEbsLogPage(this.fields));
  }
}

function total(s: Sample): { ios: number; bytes: number } {
  return { ios: s.done.read.ios + s.done.write.ios, bytes: s.done.read.bytes + s.done.write.bytes };
}

/** Written beside, then renamed over: a reader sees the old page or the new one, never half. */
function writeWhole(path: string, data: string | Buffer): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, data, { mode: 0o600 });
  renameSync(tmp, path);
}
