/**
 * Memory that jobs given up on keep until their device answers (their buffers, counted in the
 * stuck tally), and what it may take. A run on a root whose device stops answering holds its
 * buffers; one stuck run could hold the whole --max-memory, and a run on a healthy root was
 * then taken (202) and waited with no sign and no end. So:
 * - one root's runs take at most ROOT_MEMORY_SHARE of --max-memory at once (a run too: larger is
 *   refused, 422), so a root that freezes under them leaves the rest to the other roots;
 * - a run that does not fit beside what stuck jobs hold is refused 503 ESTUCK naming their
 *   roots, rather than queued until they return.
 */
import { VolbenchError } from '../../errors.js';
import type { NativeStuck } from '../../engine/native-types.js';
import type { TargetRoot } from './roots.js';

/** The share of --max-memory one root's runs may take at once. */
export const ROOT_MEMORY_SHARE = 0.75;

/** The most memory one root's runs (and so one run) may take: 0 for no limit. */
export function rootMemoryBytes(maxMemoryBytes: number): number {
  return maxMemoryBytes <= 0 ? 0 : Math.floor(maxMemoryBytes * ROOT_MEMORY_SHARE);
}

/** What stuck jobs hold, by root as configured (a root's path), from the tally's anchors (real paths). */
export function heldByRoot(tally: NativeStuck, roots: readonly TargetRoot[]): Map<string, number> {
  const held = new Map<string, number>();
  for (const entry of tally.entries) {
    if (entry.memoryBytes <= 0) continue;
    const root = roots.find((r) => r.realPath === entry.anchor)?.path ?? entry.anchor;
    held.set(root, (held.get(root) ?? 0) + entry.memoryBytes);
  }
  return held;
}

const MiB = 1024 * 1024;

function mib(bytes: number): string {
  return `${Math.round((bytes / MiB) * 10) / 10} MiB`;
}

/** Throws ESTUCK when a run of `memoryBytes` cannot fit in `maxMemoryBytes` beside what stuck jobs hold. */
export function refuseHeldMemory(memoryBytes: number, maxMemoryBytes: number, held: ReadonlyMap<string, number>): void {
  const total = [...held.values()].reduce((a, b) => a + b, 0);
  if (maxMemoryBytes <= 0 || total === 0 || memoryBytes + total <= maxMemoryBytes) return;
  const where = [...held].map(([root, bytes]) => `${root} (${mib(bytes)})`).join(', ');
  throw new VolbenchError('ESTUCK',
    `jobs given up on at ${where} hold ${mib(total)} until their devices answer; beside them this run's ${mib(memoryBytes)} does not fit in --max-memory (${mib(maxMemoryBytes)}); a run that fits is taken meanwhile`,
    { path: [...held.keys()][0] });
}
