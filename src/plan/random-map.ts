/**
 * fio's random map as it applies to one job: whether the engine keeps one (every block once per
 * pass), and the notes that say when it does not though the job did not ask for that. fio
 * turns the map off for blockalign (and says so on stderr).
 */
import { directionsUsed } from '../jobspec/directions.js';
import type { JobOptions } from '../jobspec/types.js';
import { blockSizes, isRandom } from './block-sizes.js';

/** fio's own words (init.c), printed when it turns the map off for blockalign. */
export const BLOCKALIGN_NOTE = 'Any use of blockalign= turns off randommap';

export interface RandomMap {
  /** What the engine is told: keep the map (it applies only to random directions). */
  on: boolean;
  /** Why a map the job did not turn off is off, in fio's words where fio has them. */
  notes: string[];
}

const smallest = (sizes: ReadonlyArray<{ bs: number }>): number => Math.min(...sizes.map((e) => e.bs));

export function randomMapFor(o: JobOptions): RandomMap {
  if (o.norandommap || !isRandom(o.rw)) return { on: !o.norandommap, notes: [] };
  const mins = blockSizes(o).map(smallest);
  // fio compares every direction's alignment with its smallest size, used or not.
  if (o.blockalign.some((ba, d) => ba !== 0 && ba !== mins[d])) return { on: false, notes: [BLOCKALIGN_NOTE] };
  // A non-uniform distribution has no map in fio either, and says nothing.
  if (o.random_distribution.kind !== 'random') return { on: true, notes: [] };
  return { on: true, notes: [] };
}

/**
 * Bytes the engine's bitmap takes (one bit per block of the smallest size of any direction, as
 * fio's, and a sixty-fourth more for the levels above), when the region's size is known from
 * the options. A job whose directions in use all have that one size walks a permutation and
 * needs none, unless percentage_random keeps fio's map.
 */
export function randomMapBytes(o: JobOptions): number {
  if (!randomMapFor(o).on || !isRandom(o.rw) || o.random_distribution.kind !== 'random') return 0;
  const tables = blockSizes(o);
  const unit = Math.min(...tables.map(smallest));
  const used = directionsUsed(o);
  // percentage_random under 100 keeps fio's bitmap too (its sequential I/Os skip the map).
  const oneSize = tables.every((t, d) => !used[d] || t.every((e) => e.bs === unit)) && o.percentage_random.every((p) => p === 100);
  if (oneSize || !o.size || !('bytes' in o.size)) return 0;
  const blocks = Math.ceil(o.size.bytes / unit);
  return Math.ceil((blocks / 8) * (1 + 1 / 63));
}
