/**
 * Where a run may do I/O. A path is first refused on its text (NUL bytes, `..` components,
 * relative paths: none of them has a meaning worth the risk), then resolved the way the kernel
 * will open it (every symlink followed, `realpath` of the longest existing prefix) and must land
 * under a target root. Block devices are usable only through a root that names the device.
 */
import { constants as osConstants } from 'node:os';
import { lstatSync, readdirSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

import { VolbenchError } from '../../errors.js';

import { resolveTarget } from '../../device/index.js';
import { HttpProblem } from '../problems/http-problem.js';
import { rootContaining, type TargetRoot } from './roots.js';
import { blockDeviceNotARoot, invalidPath, pathOutsideRoots, reservedPath } from '../problems/service-problems.js';

/**
 * Refuses paths no root check can make safe. A relative path is refused unless `allowRelative`
 * says what it would be taken against is known (a job's own directory, the default root).
 */
export function checkPathText(text: string, field: string, allowRelative = false): void {
  if (text.includes('\0')) throw invalidPath(field, `${field} contains a NUL byte`);
  if (text.split('/').includes('..')) throw invalidPath(field, `${field} '${text}' contains a '..' component`);
  if (!isAbsolute(text) && !allowRelative) {
    throw invalidPath(field, `${field} '${text}' is a relative path; give an absolute path under a target root`);
  }
}

export interface AuthorizedPath {
  root: TargetRoot;
  resolvedPath: string;
  exists: boolean;
  isBlockDevice: boolean;
  isRegularFile: boolean;
}

/**
 * Names the path as given, never where it resolves: a resolution outside every root is nobody's
 * business (a symlink to /proc/self/fd/N would tell where the store's files are).
 */
function outsideRoots(path: string, resolved: string, field: string, roots: TargetRoot[]): HttpProblem {
  return pathOutsideRoots(resolved === path ? path : `${path} (through a symbolic link)`, field, roots);
}

/** Where runs may and may not go: the roots, minus the server's own data directory. */
export interface PathScope {
  roots: TargetRoot[];
  /** Real paths no run may touch even inside a root (the database and token live there). */
  reserved: string[];
}

function isInside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

export interface Inode {
  dev: bigint;
  ino: bigint;
}

/**
 * The files in the reserved directories (the database, its journal, the token), by inode: a
 * hard link to one of them inside a root has another name but the same inode.
 */
export function reservedInodes(reserved: readonly string[]): Inode[] {
  const inodes: Inode[] = [];
  for (const dir of reserved) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      try {
        const st = lstatSync(join(dir, name), { bigint: true });
        if (st.isFile()) inodes.push({ dev: st.dev, ino: st.ino });
      } catch {
        // Gone meanwhile.
      }
    }
  }
  return inodes;
}

function unresolvable(path: string, field: string, err: unknown): VolbenchError {
  const e = err as VolbenchError;
  const reason = e.errno === osConstants.errno.ENOTDIR ? 'a component of the path is not a directory'
    : e.errno === osConstants.errno.EACCES ? 'permission denied'
      : e.errno === osConstants.errno.ELOOP ? 'too many levels of symbolic links' : 'it cannot be resolved';
  return new VolbenchError('ETARGET', `${path} cannot be used: ${reason}`, { field, path, ...(e.errno === undefined ? {} : { errno: e.errno }) });
}

/** Resolves `path` and returns the root it falls under, or throws 403 naming the path. */
export async function authorizePath(path: string, field: string, { roots, reserved }: PathScope): Promise<AuthorizedPath> {
  let target;
  try {
    target = await resolveTarget(path);
  } catch (err) {
    // A path that cannot even be resolved says nothing about where it points: refuse it as
    // outside unless its text is under a root. Either way the answer names the path as given
    // only: where its resolution failed may be outside every root.
    if (rootContaining(roots, path) === null) throw outsideRoots(path, path, field, roots);
    throw unresolvable(path, field, err);
  }
  const root = rootContaining(roots, target.resolvedPath);
  if (root === null) throw outsideRoots(path, target.resolvedPath, field, roots);
  if (reserved.some((dir) => isInside(target.resolvedPath, dir))) {
    throw reservedPath(path, field);
  }
  const { dev, ino } = target.stats;
  if (target.exists && target.stats.isFile() && reservedInodes(reserved).some((r) => r.dev === dev && r.ino === ino)) {
    throw reservedPath(path, field);
  }
  const isBlockDevice = target.exists && target.stats.isBlockDevice();
  if (isBlockDevice && root.kind !== 'block_device') {
    throw blockDeviceNotARoot(path, field, roots.filter((r) => r.kind === 'block_device'));
  }
  const isRegularFile = target.exists && target.stats.isFile();
  return { root, resolvedPath: target.resolvedPath, exists: target.exists, isBlockDevice, isRegularFile };
}
