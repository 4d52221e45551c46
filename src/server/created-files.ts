/**
 * The files a run lays out. They are recorded before the run's first I/O so that, when the
 * server dies mid-run, the next start removes them instead of leaving gigabytes behind.
 */
import { existsSync } from 'node:fs';
import { lstat, realpath, unlink } from 'node:fs/promises';

import { rootContaining, type TargetRoot } from './roots.js';

/** The paths among a run's files that do not exist yet: the ones it will create. */
export function filesToCreate(files: string[]): string[] {
  return files.filter((f) => !existsSync(f));
}

/**
 * Removes what a run created. Only regular files still under a configured root go: a path that
 * became a symlink or a device, or that the operator no longer serves, is left alone.
 */
export async function removeCreatedFiles(files: string[], roots: TargetRoot[]): Promise<string[]> {
  const removed: string[] = [];
  for (const file of files) {
    const stats = await lstat(file).catch(() => null);
    if (stats === null || !stats.isFile()) continue;
    const real = await realpath(file).catch(() => null);
    if (real === null || rootContaining(roots, real) === null) continue;
    await unlink(file).then(() => removed.push(file), () => undefined);
  }
  return removed;
}
