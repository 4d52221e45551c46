/**
 * Checks between options that need no target. Checks that need one (alignment to the device,
 * size against the device) belong to the plan stage.
 */
import type { JobOptions } from './types.js';
import { contradiction, unsupported } from './fail.js';

/** What one section set, by fio option name, parsed. */
export type SectionValues = Map<string, { value: unknown; field: string }>;

/**
 * fio lets the later of rwmixread/rwmixwrite (and of direct/buffered) win silently when one
 * section gives both; volbench refuses a pair that disagrees, since one of them is a mistake.
 * Across sections the job's own option overrides [global]'s, as usual.
 */
export function checkSection(values: SectionValues): void {
  const pairs: Array<[string, string, string]> = [
    ['rwmixread', 'rwmixwrite', 'rwmixread and rwmixwrite that add up to 100, or only one of them'],
    ['direct', 'buffered', 'direct and buffered that agree (buffered=1 is direct=0), or only one of them'],
  ];
  for (const [a, b, accepted] of pairs) {
    const first = values.get(a);
    const second = values.get(b);
    if (first && second && first.value !== second.value) {
      throw contradiction(second.field, `${b} contradicts ${a} given in the same section`, accepted);
    }
  }
}

/** Checks on a job's merged options. `scope` is the job's spec path (`jobs[1]`). */
export function checkJob(options: JobOptions, scope: string): void {
  const any = (v: readonly number[]) => v.some((x) => x > 0);
  if (any(options.rate) && any(options.rate_iops)) {
    // init.c fixup_options refuses this too.
    throw contradiction(`${scope}.rate_iops`, 'rate and rate_iops are mutually exclusive', 'either rate or rate_iops');
  }
  if (options.iopsavgtime !== options.bwavgtime) {
    // The engine samples bandwidth and IOPS over one window; a second one is not there yet.
    throw unsupported(`${scope}.iopsavgtime`, `iopsavgtime=${options.iopsavgtime} differs from bwavgtime=${options.bwavgtime}, which volbench does not support yet`,
      'iopsavgtime equal to bwavgtime (both 500 by default)');
  }
}
