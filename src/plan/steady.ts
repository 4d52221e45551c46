/**
 * Which instances judge steady state together. fio judges each job on its own, or with
 * group_reporting the whole reporting group on its summed samples, and stops the whole group
 * when it holds; so fio refuses a reporting group whose jobs' steady-state options differ.
 */
import { VolbenchError } from '../errors.js';
import { contradiction } from '../jobspec/fail.js';
import { steadyStateText } from '../jobspec/steadystate.js';
import type { JobOptions, ParsedSpec, SteadyStateCriterion } from '../jobspec/types.js';
import { parseTimeNs } from '../jobspec/units.js';

function settings(o: JobOptions): string {
  if (o.steadystate_duration_ns === 0) return 'off';
  return `${steadyStateText(o.steadystate)} ${o.steadystate_duration_ns} ${o.steadystate_ramp_time_ns}`;
}

export class SteadyGroups {
  private next = 1;
  private readonly byGroup = new Map<number, { settings: string; key: number; field: string }>();

  /** The group number of each of the job's instances (0: no check), after checking it agrees with its group. */
  keysFor(index: number, groupid: number, o: JobOptions): number[] {
    const field = `jobs[${index}]`;
    const mine = settings(o);
    let seen = this.byGroup.get(groupid);
    if (!seen) {
      seen = { settings: mine, key: 0, field };
      this.byGroup.set(groupid, seen);
    } else if (seen.settings !== mine) {
      throw contradiction(`${field}.steadystate`,
        `its steady-state options differ from those of ${seen.field}, in the same reporting group`,
        'the same steadystate, steadystate_duration and steadystate_ramp_time in every job of a reporting group ' +
        '(as fio), or a stonewall or new_group between them');
    }
    if (o.steadystate_duration_ns === 0) return Array<number>(o.numjobs).fill(0);
    if (!o.group_reporting) return Array.from({ length: o.numjobs }, () => this.next++);
    if (seen.key === 0) seen.key = this.next++;
    return Array<number>(o.numjobs).fill(seen.key);
  }
}

/** `--until-steady`'s criterion when the job names none: fio's own documented example. */
export const UNTIL_STEADY_CRITERION: SteadyStateCriterion = { metric: 'iops', slope: true, limit: 0.1, percent: true };
/**
 * Its window when the job names none: 30 s, or half the longest run when that is shorter, but
 * never under 2 s (a slope needs two samples; over one it is always 0).
 */
export const UNTIL_STEADY_WINDOW_SEC = 30;
const UNTIL_STEADY_MIN_WINDOW_SEC = 2;

/**
 * `--until-steady MAX` (untilSteadySec): every job becomes time-based with MAX as its runtime
 * and ends earlier once its steady-state criterion holds. The job's own steadystate,
 * steadystate_duration and steadystate_ramp_time win where it gives them; otherwise
 * iops_slope:0.1% over a window of min(30 s, MAX/2), at least 2 s. Returns a new spec.
 */
export function untilSteady(spec: ParsedSpec, maxSec: number): ParsedSpec {
  const windowSec = Math.max(UNTIL_STEADY_MIN_WINDOW_SEC, Math.min(UNTIL_STEADY_WINDOW_SEC, Math.floor(maxSec / 2)));
  return {
    ...spec,
    jobs: spec.jobs.map((job) => {
      const given = (name: string): boolean => job.fields?.[name] !== undefined;
      const o = job.options;
      return {
        ...job,
        options: {
          ...o,
          time_based: true,
          runtime_ns: maxSec * 1e9,
          steadystate: given('steadystate') ? o.steadystate : UNTIL_STEADY_CRITERION,
          steadystate_duration_ns: given('steadystate_duration') && o.steadystate_duration_ns > 0
            ? o.steadystate_duration_ns : windowSec * 1e9,
        },
      };
    }),
  };
}

export const UNTIL_STEADY_ACCEPTED = 'a time of 1s or more, e.g. 600 or 10m (a bare number is in seconds)';

/** `--until-steady` as typed: whole seconds, at least one. */
export function parseUntilSteadySec(text: string, field: string): number {
  const ns = parseTimeNs(text, { defaultUnit: 's', field });
  if (ns < 1e9) throw new VolbenchError('EINVALID_ARGS', `${field} must be at least 1s, got '${text}'`, { field, accepted: UNTIL_STEADY_ACCEPTED });
  return Math.floor(ns / 1e9);
}
