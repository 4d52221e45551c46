/**
 * Removing the files a run recorded (FileIdentity), later and by name: a sweep's unlink=1, a
 * suite cut short, a service's cleanup after SIGTERM or a restart. Each is removed beneath its
 * root (without roots, beneath `/`), every directory on the way walked without following a link,
 * and only while the name still leads to that very regular file: the same device and inode, and
 * the same birth time and inode generation, since a filesystem hands a freed inode number out
 * again (ext4 at once). Where the filesystem keeps neither, nothing can confirm it: such a file
 * is left in place and named.
 */
import { Anchors, closeQuietly, openDirectory, type AnchorRoot, type FileIdentity, type PathRef } from './anchor.js';
import { removeBeneath } from './root-calls.js';
import { VolbenchError } from '../errors.js';

export interface RemovedFiles {
  /** Removed. */
  removed: string[];
  /** Left in place: their filesystem keeps neither birth time nor generation (stamp ''). */
  unconfirmed: string[];
  /** Left in place: their root does not answer (a call on it that has not returned, stuck I/O). */
  stuck: string[];
  /** Tried, and past the deadline: each settles true once removed, when its device answers. */
  late: Array<{ path: string; removed: Promise<boolean> }>;
}

/** What `removeFiles` did, in words for a run's record ("" when there was nothing to do). */
export function removalText(done: Pick<RemovedFiles, 'removed' | 'unconfirmed' | 'stuck'> & { late: readonly unknown[] }): string {
  const parts = [`${done.removed.length} file(s) it created were removed`];
  if (done.unconfirmed.length > 0) {
    parts.push(`${done.unconfirmed.length} could not be confirmed as the files it created (their filesystem keeps neither a birth time nor an inode generation) and were left in place: ${done.unconfirmed.join(', ')}`);
  }
  if (done.stuck.length > 0) parts.push(`${done.stuck.length} on a root that does not answer were left in place: ${done.stuck.join(', ')}`);
  if (done.late.length > 0) parts.push(`the removal of ${done.late.length} on a root that does not answer had not returned`);
  return parts.join('; ');
}

/**
 * Notes for a result whose files a removal left in place (unconfirmed, or on a root that does
 * not answer), naming them; none when it left nothing.
 */
export function leftInPlaceNotes(done: RemovedFiles): string[] {
  const notes: string[] = [];
  if (done.unconfirmed.length > 0) {
    notes.push(`unlink left ${done.unconfirmed.join(', ')} in place: its filesystem keeps neither a birth time nor an inode generation, so it could not be confirmed as the file this run made`);
  }
  const stuck = [...done.stuck, ...done.late.map((l) => l.path)];
  if (stuck.length > 0) notes.push(`unlink left ${stuck.join(', ')} in place: its device did not answer`);
  return notes;
}

/**
 * Removes `files` as the module says. Roots are worked on side by side, each file of a root in
 * turn: a root that does not answer keeps its files (and costs one deadline), the others go on.
 */
export async function removeFiles(files: readonly FileIdentity[], roots?: readonly AnchorRoot[]): Promise<RemovedFiles> {
  const top = roots === undefined ? openDirectory('/') : -1;
  const anchors = new Anchors(roots ?? [{ path: '/', kind: 'directory', fd: top }]);
  const done: RemovedFiles = { removed: [], unconfirmed: [], stuck: [], late: [] };
  try {
    const byRoot = new Map<string, Array<{ ref: PathRef; file: FileIdentity }>>();
    for (const file of files) {
      if (file.ino === 0n) continue;
      if (file.stamp === '') {
        done.unconfirmed.push(file.path);
        continue;
      }
      let ref: PathRef;
      try {
        ref = anchors.refer(file.path, 'path');
      } catch {
        continue;
      }
      const anchor = anchors.anchorOf(file.path);
      byRoot.set(anchor, [...(byRoot.get(anchor) ?? []), { ref, file }]);
    }
    await Promise.all([...byRoot].map(async ([anchor, list]) => {
      for (const { ref, file } of list) await removeOne(ref, file, anchor, done);
    }));
  } finally {
    anchors.release();
    if (top >= 0) closeQuietly(top);
  }
  return done;
}

async function removeOne(ref: PathRef, file: FileIdentity, anchor: string, done: RemovedFiles): Promise<void> {
  let late: Promise<number> | null = null;
  try {
    if ((await removeBeneath(ref, file, anchor, (call) => (late = call))) === 0) done.removed.push(file.path);
  } catch (err) {
    if (!(err instanceof VolbenchError && err.code === 'ESTUCK')) throw err;
    if (late === null) done.stuck.push(file.path);
    else done.late.push({ path: file.path, removed: (late as Promise<number>).then((e) => e === 0, () => false) });
  }
}
