/**
 * Which directions a job's workload issues I/O in, from its options alone: the one rule the
 * planner (what to open for writing, what to check), the report (which series to keep) and
 * the gates (which direction an assertion may default to) share.
 */
import type { JobOptions, PerDirection } from './types.js';

/** [read, write, trim]: a mixed workload's share of 0% or 100% leaves a direction unused. */
export function directionsUsed(o: Pick<JobOptions, 'rw' | 'rwmixread'>): PerDirection<boolean> {
  switch (o.rw) {
    case 'read':
    case 'randread':
      return [true, false, false];
    case 'write':
    case 'randwrite':
      return [false, true, false];
    case 'trim':
    case 'randtrim':
      return [false, false, true];
    default:
      return [o.rwmixread > 0, o.rwmixread < 100, false];
  }
}
