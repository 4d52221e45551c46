/**
 * The files a run lays out. They are recorded before the run's first I/O so that, when the
 * server dies mid-run, the next start removes them instead of leaving gigabytes behind.
 */
import { existsSync } from 'node:fs';

import { removeFiles } from '../target/anchor.js';
import { anchorRoots, type TargetRoot } from './roots.js';

/** The paths among a run's files that do not exist yet: the ones it will create. */
export function filesToCreate(files: string[]): string[] {
  return files.filter((f) => !existsSync(f));
}

/**
 * Removes what a run created. Only regular files beneath a configured root go, removed beneath
 * the root's held descriptor: a path that became a symlink (anywhere along it) or a device, or
 * that the operator no longer serves, is left alone.
 */
export async function removeCreatedFiles(files: string[], roots: TargetRoot[]): Promise<string[]> {
  const byRealPath = files.map((file) => {
    // Recorded as planned: under a root's configured path or its real one.
    const root = roots.find((r) => r.kind === 'directory' && file.startsWith(`${r.path.replace(/\/$/, '')}/`));
    return { file, real: root ? root.realPath + file.slice(root.path.replace(/\/$/, '').length) : file };
  });
  const removed = new Set(await removeFiles(byRealPath.map((f) => f.real), anchorRoots(roots.filter((r) => r.kind === 'directory'))));
  return byRealPath.filter((f) => removed.has(f.real)).map((f) => f.file);
}
