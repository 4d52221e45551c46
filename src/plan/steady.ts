/**
 * Which instances judge steady state together. fio judges each job on its own, or with
 * group_reporting the whole reporting group on its summed samples, and stops the whole group
 * when it holds; so fio refuses a reporting group whose jobs' steady-state options differ.
 */
import { contradiction } from '../jobspec/fail.js';
import { steadyStateText } from '../jobspec/steadystate.js';
import type { JobOptions } from '../jobspec/types.js';

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

