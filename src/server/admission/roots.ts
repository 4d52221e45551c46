/**
 * Target roots: the directories and block devices the operator lets runs use. Each is resolved
 * once at start-up (symlinks included), so checks compare real paths with real paths.
 */
import { closeSync, realpathSync, statSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute } from 'node:path';

import { VolbenchError } from '../../errors.js';
import { openDirectory, type AnchorRoot } from '../../device/anchor.js';

export interface TargetRoot {
  /** As configured. */
  path: string;
  /** With every symlink resolved. */
  realPath: string;
  kind: 'directory' | 'block_device';
  /** Runs may write the device (block device roots named by --allow-block-write only). */
  allowBlockWrite: boolean;
  /**
   * Held from start-up to close (closeRoots): the directory, or for a device root the directory
   * holding its node. Runs open beneath it, so renaming anything inside a root (or a root's
   * own path) cannot lead them out.
   */
  fd: number;
}

function configError(message: string): VolbenchError {
  return new VolbenchError('EINVALID_ARGS', message, { accepted: 'existing directories or block devices' });
}

function resolveRoot(path: string): Omit<TargetRoot, 'allowBlockWrite' | 'fd'> {
  if (!isAbsolute(path)) throw configError(`target root ${path} is not an absolute path`);
  let realPath: string;
  try {
    realPath = realpathSync(path);
  } catch {
    throw configError(`target root ${path} does not exist`);
  }
  const stats = statSync(realPath);
  if (stats.isDirectory()) return { path, realPath, kind: 'directory' };
  if (stats.isBlockDevice()) return { path, realPath, kind: 'block_device' };
  throw configError(`target root ${path} is neither a directory nor a block device`);
}

/**
 * The roots' own checks (at least one; each absolute, there, a directory or a block device),
 * without opening them: `volbench serve` makes them before it generates a token, so a
 * mistyped command line leaves nothing behind.
 */
export function checkRootPaths(paths: readonly string[]): void {
  if (paths.length === 0) throw configError('at least one target root is needed (--target-root DIR|DEVICE)');
  for (const path of paths) resolveRoot(path);
}

/**
 * Resolves the roots and marks the block devices that may be written. Every --allow-block-write
 * must name a block device root (by any path that resolves to it), so a typo fails loudly
 * instead of leaving a device unwritable.
 */
export async function resolveRoots(paths: string[], allowBlockWrite: string[] = []): Promise<TargetRoot[]> {
  checkRootPaths(paths);
  const roots = paths.map(resolveRoot);
  const writable = new Set<string>();
  for (const device of allowBlockWrite) {
    const real = await realpath(device).catch(() => device);
    const root = roots.find((r) => r.realPath === real);
    if (!root || root.kind !== 'block_device') {
      throw new VolbenchError('EINVALID_ARGS', `--allow-block-write ${device} names no block device given as --target-root`, {
        accepted: 'a block device that is also a --target-root',
      });
    }
    writable.add(real);
  }
  const opened: TargetRoot[] = [];
  try {
    for (const r of roots) {
      const fd = openDirectory(r.kind === 'directory' ? r.realPath : dirname(r.realPath));
      opened.push({ ...r, allowBlockWrite: writable.has(r.realPath), fd });
    }
  } catch (err) {
    closeRoots(opened);
    throw configError(`target root cannot be opened: ${(err as Error).message}`);
  }
  return opened;
}

/** Closes the roots' descriptors (the service's close). */
export function closeRoots(roots: readonly TargetRoot[]): void {
  for (const root of roots) {
    try {
      closeSync(root.fd);
    } catch {
      // Already closed.
    }
  }
}

/** The roots as the library's planner takes them. */
export function anchorRoots(roots: readonly TargetRoot[]): AnchorRoot[] {
  return roots.map((r) => ({ path: r.realPath, kind: r.kind, fd: r.fd }));
}

/** The root a resolved path falls under: inside a directory root, or exactly a device root. */
export function rootContaining(roots: TargetRoot[], resolvedPath: string): TargetRoot | null {
  for (const root of roots) {
    if (root.kind === 'block_device') {
      if (resolvedPath === root.realPath) return root;
    } else if (resolvedPath === root.realPath || resolvedPath.startsWith(root.realPath === '/' ? '/' : `${root.realPath}/`)) {
      return root;
    }
  }
  return null;
}

/** The root a request names (?target=), by configured or real path. */
export function findRoot(roots: TargetRoot[], name: string): TargetRoot | null {
  return roots.find((r) => r.path === name || r.realPath === name) ?? null;
}

/** The root a path is under, by its configured or its real path: for labels, never for checks. */
export function rootLabel(roots: TargetRoot[], path: string): string | null {
  const under = (base: string): boolean => path === base || path.startsWith(base.endsWith('/') ? base : `${base}/`);
  return roots.find((r) => under(r.realPath) || under(r.path))?.path ?? null;
}
