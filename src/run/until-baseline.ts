/**
 * `--until-baseline`: a run on a volume that bursts goes on until it has measured the baseline.
 * Its jobs run time_based for as long as the catalog says a full bucket lasts at the burst level
 * (plus a margin, within the caller's --max-runtime), and the run stops once its series shows the
 * cliff and enough of the level after it to call that level the baseline.
 */
import { entitlement, type Volume } from '../cloud/index.js';
import { untilBaselineRuntimeSec } from '../findings/burst.js';
import { VolbenchError } from '../errors.js';
import type { ParsedSpec } from '../jobspec/types.js';
import { stagesOf } from '../plan/stages.js';
import type { RunProgress } from './progress.js';
import { findCliff, MIN_SIDE, type RatePoint } from '../findings/cliff.js';

export interface UntilBaseline {
  /** The volume the run measures: the catalog's burst model says how long to run. */
  volume: Volume;
}

/**
 * The level after the cliff is measured this long before the run stops: a tenth of the time
 * before it, and never under a few points, so the baseline is a level, not one second.
 */
const AFTER_SHARE = 0.1;
const MIN_AFTER_POINTS = MIN_SIDE + 2;
const MiB = 1024 * 1024;
const FIELD = '--until-baseline';

function refuse(message: string, accepted: string): never {
  throw new VolbenchError('EINVALID_ARGS', message, { field: FIELD, accepted });
}

/** The burst model's unit and run length for `volume`, refused when the volume does not burst. */
export function baselineRun(volume: Volume | undefined): { unit: 'IOPS' | 'MiB/s'; secondsFromFull: number; runtimeSec: number } {
  if (!volume) refuse(`${FIELD} needs --volume: the catalog's burst model of the volume says how long to run`, 'e.g. --volume gp2:100g');
  const burst = volume.catalog.burst ? entitlement(volume, { bs: 4096 }).burst : undefined;
  if (!burst) refuse(`${FIELD}: ${volume.type} ${volume.sizeGiB} GiB does not burst (the catalog): it runs at its baseline from the start`, 'a volume that bursts: gp2 under 1 TiB, st1, sc1');
  return { unit: burst.unit, secondsFromFull: burst.seconds_from_full, runtimeSec: untilBaselineRuntimeSec(burst.seconds_from_full) };
}

/**
 * The spec whose jobs run time_based until a full bucket has drained, within `maxRuntimeSec`
 * (the run's --max-runtime) when given. One stage only: jobs that run together drain one bucket,
 * and stopping at the cliff stops them all.
 */
export function untilBaselineSpec(spec: ParsedSpec, until: Partial<UntilBaseline>, maxRuntimeSec?: number): ParsedSpec {
  const { runtimeSec } = baselineRun(until.volume);
  const options = spec.jobs.map((j) => j.options);
  if (stagesOf(options).length > 1) refuse(`${FIELD} runs one stage: a stonewall job would start after the cliff stopped the run`, 'jobs without stonewall');
  const beforeSec = Math.max(...options.map((o) => (o.startdelay_ns + o.ramp_time_ns) / 1e9));
  let seconds = runtimeSec;
  if (maxRuntimeSec !== undefined) seconds = Math.min(seconds, Math.floor(maxRuntimeSec - beforeSec));
  if (seconds < 1) refuse(`${FIELD}: startdelay and ramp_time leave no runtime within --max-runtime ${maxRuntimeSec}s`, 'a longer --max-runtime');
  const timeOptions = new Set(['runtime', 'timeout', 'time_based']);
  return {
    ...spec,
    jobs: spec.jobs.map((job) => ({
      ...job,
      ownOptions: [...job.ownOptions.filter(([name]) => !timeOptions.has(name)), ['time_based', '1'], ['runtime', `${seconds}s`]],
      options: { ...job.options, time_based: true, runtime_ns: seconds * 1e9 },
    })),
  };
}

/**
 * Watches a run's progress for the cliff: the instances' last one-second intervals summed into
 * the run's series, as the report will sum them, and findCliff over it each second.
 */
export class CliffWatch {
  private readonly byIndex = new Map<number, { durS: number; rate: Map<string, number> }>();
  private readonly latest = new Map<string, number>();
  /** When the cliff was seen with enough after it: seconds into the series, and the cliff's time. */
  seen: { atS: number; cliffAtS: number } | null = null;

  constructor(private readonly unit: 'IOPS' | 'MiB/s') {}

  /** Takes one progress report; true once the run has shown its cliff and the level after it. */
  feed(progress: RunProgress): boolean {
    if (this.seen) return true;
    for (const p of progress.instances) {
      const last = p.last;
      if (p.phase !== 'running' || !last || last.durMs <= 0) continue;
      const key = `${p.jobName}\0${p.instance}`;
      const index = Math.max(0, Math.round(last.tMs / 1000) - 1);
      let sum = 0;
      for (const d of last.dirs) sum += this.unit === 'IOPS' ? d.ios : d.bytes / MiB;
      const slot = this.byIndex.get(index) ?? { durS: last.durMs / 1000, rate: new Map<string, number>() };
      slot.rate.set(key, (sum * 1000) / last.durMs);
      this.byIndex.set(index, slot);
      this.latest.set(key, Math.max(this.latest.get(key) ?? -1, index));
    }
    if (this.latest.size === 0) return false;
    // Only seconds every instance has reported: a sum short of an instance would look like a drop.
    const upTo = Math.min(...this.latest.values());
    const points: RatePoint[] = [];
    for (let i = 0; i <= upTo; i++) {
      const slot = this.byIndex.get(i);
      if (!slot) continue;
      let rate = 0;
      for (const r of slot.rate.values()) rate += r;
      points.push({ endS: i + 1, durS: slot.durS, rate });
    }
    const cliff = findCliff(points);
    if (!cliff) return false;
    const after = points.length - cliff.split;
    if (after < Math.max(MIN_AFTER_POINTS, Math.ceil(AFTER_SHARE * cliff.split))) return false;
    this.seen = { atS: points[points.length - 1].endS, cliffAtS: cliff.atS };
    return true;
  }
}
