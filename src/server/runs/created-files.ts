/**
 * The files a run creates. Each is recorded with its identity as soon as it exists, so that when
 * the server stops mid-run (SIGTERM, or kill -9 and a restart) they are removed instead of
 * leaving gigabytes behind: each only while its name still leads to that very file.
 */
import { removeFiles } from '../../device/anchor.js';
import { anchorRoots, type TargetRoot } from '../admission/roots.js';
import type { StoredFile } from '../store/runs.js';

export interface Removal {
  removed: string[];
  /** Recorded before identities were: left where they are. */
  unidentified: string[];
}

/**
 * Removes what a run created, beneath the roots' held descriptors, never through a link: a
 * name that now leads to another file (a directory swapped for a link, a file put in its place),
 * a path the operator no longer serves, or a record without an identity, removes nothing.
 */
export async function removeCreatedFiles(files: readonly StoredFile[], roots: TargetRoot[]): Promise<Removal> {
  const unidentified = files.filter((f) => f.dev === null || f.ino === null).map((f) => f.path);
  const identified = files.flatMap((f) => (f.dev === null || f.ino === null ? [] : [{ path: f.path, dev: f.dev, ino: f.ino }]));
  const removed = await removeFiles(identified, anchorRoots(roots.filter((r) => r.kind === 'directory')));
  return { removed, unidentified };
}
