/**
 * Opening beneath a held directory. A path checked by name and opened by name later can be
 * redirected in between: a directory inside a root swapped for a symlink out of it after the
 * check. So the engine never opens a target or a log by its full name: it opens a name relative
 * to a directory descriptor held since planning (openat2 with RESOLVE_BENEATH: no `..`, no
 * symlink, no magic link may lead out of it), then checks what it opened against what planning
 * saw (a regular file or a block device, the same inode or device number).
 *
 * The directories are a caller's roots (the service's, held from start-up), or else each
 * target's own directory, opened here when the run is planned and closed with its plan.
 */
import { closeSync, openSync, constants as fsConstants, type BigIntStats } from 'node:fs';
import { basename, dirname, relative } from 'node:path';

import { VolbenchError } from '../errors.js';

/** O_PATH from Linux's fcntl.h (the same on x86-64 and arm64); Node does not export it. */
export const O_PATH = 0o10000000;

/** A directory a run may open beneath, held open: a root, or a target's own directory. */
export interface AnchorRoot {
  /** Real path (every symlink resolved) of the directory, or of the device for a device root. */
  path: string;
  kind: 'directory' | 'block_device';
  /** O_PATH descriptor of the directory; for a device root, of the directory holding its node. */
  fd: number;
}

/** How the engine opens a path: `name` relative to the directory `dirFd`, never through it. */
export interface PathRef {
  dirFd: number;
  name: string;
  /** The absolute path it stands for, every link resolved when it was planned (not read by the engine). */
  realPath?: string;
}

/**
 * A file by its name and identity (st_dev, st_ino, and its stamp): a removal takes it only while
 * the name is still it.
 */
export interface FileIdentity {
  /** Absolute, with every link resolved when the file was made. */
  path: string;
  dev: bigint;
  ino: bigint;
  /**
   * What tells it from a later file given the same inode number once it is freed: its birth time
   * and inode generation as the engine read them when it made it (native FileStamp); '' where
   * its filesystem keeps neither, which leaves the file unconfirmed: never removed.
   */
  stamp: string;
}

/** What planning saw at a path, which the opened file must still be. */
export interface Identity {
  kind: 'new' | 'file' | 'device';
  /** st_dev and st_ino of an existing file; 0 otherwise. */
  dev: bigint;
  ino: bigint;
  /** st_rdev of a device; 0 otherwise. */
  rdev: bigint;
}

export function identityOf(stats: BigIntStats | null): Identity {
  if (stats === null) return { kind: 'new', dev: 0n, ino: 0n, rdev: 0n };
  if (stats.isBlockDevice()) return { kind: 'device', dev: 0n, ino: 0n, rdev: stats.rdev };
  return { kind: 'file', dev: stats.dev, ino: stats.ino, rdev: 0n };
}

/** What the native probe saw beneath the anchor (its identity field), as an Identity. */
export function probedIdentity(info: { exists: boolean; isBlockDevice: boolean; identity: { dev: bigint; ino: bigint; rdev: bigint } }): Identity {
  if (!info.exists) return { kind: 'new', dev: 0n, ino: 0n, rdev: 0n };
  if (info.isBlockDevice) return { kind: 'device', dev: 0n, ino: 0n, rdev: info.identity.rdev };
  return { kind: 'file', dev: info.identity.dev, ino: info.identity.ino, rdev: 0n };
}

export function sameIdentity(a: Identity, b: Identity): boolean {
  return a.kind === b.kind && a.dev === b.dev && a.ino === b.ino && a.rdev === b.rdev;
}

/** Opens a directory for reference only (O_PATH): it can anchor lookups, not be read. */
export function openDirectory(path: string): number {
  return openSync(path, O_PATH | fsConstants.O_DIRECTORY);
}

const unreleased = new FinalizationRegistry<number[]>((fds) => fds.forEach(closeQuietly));

export function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed: nothing to do.
  }
}

function inside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir === '/' ? '/' : `${dir}/`);
}

/**
 * The anchors of one plan. With roots, a path is referred to the root it is in (and refused
 * when it is in none); without, to its own directory, opened once per directory.
 */
export class Anchors {
  private readonly opened = new Map<string, number>();
  private readonly fds: number[] = [];
  private readonly token = {};

  constructor(private readonly roots: readonly AnchorRoot[] | undefined) {
    unreleased.register(this, this.fds, this.token);
  }

  /**
   * The reference for `resolvedPath` (absolute, symlinks resolved, as resolveTarget gives it);
   * `given` is the path as the user wrote it, for errors.
   */
  refer(resolvedPath: string, field: string, given = resolvedPath): PathRef {
    const realPath = resolvedPath;
    if (this.roots === undefined) return { dirFd: this.directory(dirname(resolvedPath), given, field), name: basename(resolvedPath), realPath };
    const root = this.rootOf(resolvedPath, field, given);
    if (root.kind === 'block_device') return { dirFd: root.fd, name: basename(root.path), realPath };
    return { dirFd: root.fd, name: relative(root.path, resolvedPath), realPath };
  }

  /**
   * The reference for `resolvedPath` beneath `dirFd`, a directory held elsewhere that holds it
   * (HeldTargets): checked against the roots as refer() checks it, opened by its last name only.
   */
  referIn(dirFd: number, resolvedPath: string, field: string, given = resolvedPath): PathRef {
    if (this.roots !== undefined) this.rootOf(resolvedPath, field, given);
    return { dirFd, name: basename(resolvedPath), realPath: resolvedPath };
  }

  private rootOf(resolvedPath: string, field: string, given: string): AnchorRoot {
    for (const root of this.roots ?? []) {
      if (root.kind === 'block_device' && resolvedPath === root.path) return root;
      if (root.kind === 'directory' && inside(resolvedPath, root.path) && resolvedPath !== root.path) return root;
    }
    // Named as given: where it resolves outside every root is nobody's business.
    throw new VolbenchError('EUNSAFE_TARGET', `${given} is not under a target root`, {
      field,
      path: given,
      accepted: `paths under ${(this.roots ?? []).map((r) => r.path).join(', ')}`,
    });
  }

  /**
   * The root `resolvedPath` is opened beneath, as refer() would pick it: the root's path, or
   * without roots the path's own directory (a block device is its own). It names where stuck
   * I/O is counted.
   */
  anchorOf(resolvedPath: string, isBlockDevice = false): string {
    if (this.roots === undefined) return isBlockDevice ? resolvedPath : dirname(resolvedPath);
    for (const root of this.roots) {
      if (root.kind === 'block_device' && resolvedPath === root.path) return root.path;
      if (root.kind === 'directory' && inside(resolvedPath, root.path) && resolvedPath !== root.path) return root.path;
    }
    return dirname(resolvedPath);
  }

  /** Closes the directories opened for this plan; the roots stay open. Idempotent. */
  release(): void {
    unreleased.unregister(this.token);
    this.fds.splice(0).forEach(closeQuietly);
    this.opened.clear();
  }

  private directory(dir: string, given: string, field: string): number {
    let fd = this.opened.get(dir);
    if (fd === undefined) {
      try {
        fd = openDirectory(dir);
      } catch (err) {
        const errno = -((err as NodeJS.ErrnoException).errno ?? 0);
        throw new VolbenchError('ETARGET', `cannot use ${given}: its directory does not exist or cannot be read (errno ${errno})`, {
          field, path: given, errno, cause: err,
        });
      }
      this.opened.set(dir, fd);
      this.fds.push(fd);
    }
    return fd;
  }
}
