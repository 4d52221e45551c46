/**
 * The files a run creates. Each is recorded with its identity as soon as it exists, so that when
 * the server stops mid-run (SIGTERM, or kill -9 and a restart) they are removed instead of
 * leaving gigabytes behind: each only while its name still leads to that very file.
 */
import { removalText, removeFiles, type RemovedFiles } from '../../device/remove-files.js';
import { anchorRoots, type TargetRoot } from '../admission/roots.js';
import type { StoredFile } from '../store/runs.js';

export interface Removal extends RemovedFiles {
  /** Recorded before identities were: left where they are. */
  unidentified: string[];
}

/**
 * Removes what a run created, beneath the roots' held descriptors, never through a link: a
 * name that now leads to another file (a directory swapped for a link, a file put in its place,
 * a later file given the same inode number), a path the operator no longer serves, or a record
 * without an identity, removes nothing. A record without a stamp (made before stamps were, or on
 * a filesystem that keeps none) is left in place as unconfirmed.
 */
export async function removeCreatedFiles(files: readonly StoredFile[], roots: TargetRoot[]): Promise<Removal> {
  const unidentified = files.filter((f) => f.dev === null || f.ino === null).map((f) => f.path);
  const identified = files.flatMap((f) => (f.dev === null || f.ino === null ? [] : [{ path: f.path, dev: f.dev, ino: f.ino, stamp: f.stamp ?? '' }]));
  const done = await removeFiles(identified, anchorRoots(roots.filter((r) => r.kind === 'directory')));
  return { ...done, unidentified };
}

/**
 * What an interrupted run's record says of its files: "N file(s) it created were removed", and
 * what was left in place and why.
 */
export function removalDetail(removal: Removal): string {
  const left = removal.unidentified.length > 0 ? `; ${removal.unidentified.length} recorded without an identity were left in place` : '';
  return `${removalText(removal)}${left}`;
}

/**
 * The removal once its late calls have settled (those past their deadline on a root that did not
 * answer): what they removed is counted as removed, the others as left on that root.
 */
export async function settledRemoval(removal: Removal): Promise<Removal> {
  const late = await Promise.all(removal.late.map(async (l) => ({ path: l.path, removed: await l.removed })));
  return {
    ...removal,
    removed: [...removal.removed, ...late.filter((l) => l.removed).map((l) => l.path)],
    stuck: [...removal.stuck, ...late.filter((l) => !l.removed).map((l) => l.path)],
    late: [],
  };
}
