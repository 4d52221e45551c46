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
 * Whether a job of one block size keeps fio's map itself rather than a permutation: where the
 * order of its offsets shows, a buffered random job the kernel may read ahead for (fadvise_hint
 * other than random). fio takes the next free block when the one it drew is done, so late in a
 * pass its reads run into blocks beside ones just read, and the kernel's readahead, seeing runs,
 * reads more per request (a 32 MiB randread, fadvise_hint=0: 5.86 KiB per request under fio,
 * 4.80 through a permutation, which visits the same blocks scattered evenly).
 */
export function keepsFioMap(o: JobOptions): boolean {
  return randomMapFor(o).on && isRandom(o.rw) && o.random_distribution.kind === 'random' && !o.direct &&
    (o.fadvise_hint === 'none' || o.fadvise_hint === 'sequential');
}

/**
 * Bytes the engine's bitmap takes (one bit per block of the smallest size of any direction, as
 * fio's, and a sixty-fourth more for the levels above), when the region's size is known from
 * the options. A job whose directions in use all have that one size walks a permutation and
 * needs none, unless percentage_random keeps fio's map, or the order of its offsets shows
 * (keepsFioMap).
 */
export function randomMapBytes(o: JobOptions): number {
  if (!randomMapFor(o).on || !isRandom(o.rw) || o.random_distribution.kind !== 'random') return 0;
  const tables = blockSizes(o);
  const unit = Math.min(...tables.map(smallest));
  const used = directionsUsed(o);
  // percentage_random under 100 keeps fio's bitmap too (its sequential I/Os skip the map).
  const oneSize = tables.every((t, d) => !used[d] || t.every((e) => e.bs === unit)) && o.percentage_random.every((p) => p === 100);
  if ((oneSize && !keepsFioMap(o)) || !o.size || !('bytes' in o.size)) return 0;
  const blocks = Math.ceil(o.size.bytes / unit);
  return Math.ceil((blocks / 8) * (1 + 1 / 63));
}
