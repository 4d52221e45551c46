/**
 * Turns a target path into what the kernel will really open: every symlink resolved, including a
 * dangling one (creating the file follows it), and for a file not laid out yet, its nearest
 * existing directory. Safety checks run on this result, never on the name the user typed.
 */
import { constants as osConstants } from 'node:os';
import { lstat, readlink, realpath, stat } from 'node:fs/promises';
import type { BigIntStats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { VolbenchError } from '../errors.js';
import { decodeDevT, sysfsBlockDir, type SysfsBlockDevice } from './devnum.js';

export interface ResolvedTarget {
  /** The path as given. */
  path: string;
  /** Absolute, with every symlink resolved. */
  resolvedPath: string;
  /** False when the target does not exist yet (a file volbench will lay out). */
  exists: boolean;
  /** The target itself when it exists, else its nearest existing directory. */
  statPath: string;
  stats: BigIntStats;
}

/** Linux gives up after 40 links in one lookup (ELOOP); so do we. */
const MAX_SYMLINKS = 40;

/** `given`: the path as errors name it, when `path` is another name for it (/proc/self/fd/N/...). */
export async function resolveTarget(path: string, given = path): Promise<ResolvedTarget> {
  const found = await resolveLoose(given, resolve(path), 0);
  return { path: given, ...found };
}

async function resolveLoose(
  given: string,
  absolute: string,
  links: number,
): Promise<Omit<ResolvedTarget, 'path'>> {
  try {
    const resolvedPath = await realpath(absolute);
    const stats = await stat(resolvedPath, { bigint: true });
    return { resolvedPath, exists: true, statPath: resolvedPath, stats };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw targetError(given, absolute, err);
  }
  const link = await lstat(absolute).catch(() => null);
  if (link?.isSymbolicLink()) {
    if (links >= MAX_SYMLINKS) {
      throw new VolbenchError('ETARGET', `${given}: too many levels of symbolic links`, {
        path: given,
        errno: osConstants.errno.ELOOP,
        syscall: 'readlink',
      });
    }
    const next = resolve(dirname(absolute), await readlink(absolute));
    return resolveLoose(given, next, links + 1);
  }
  if (absolute === '/') throw targetError(given, absolute, new Error('no such directory'));
  const parent = await resolveLoose(given, dirname(absolute), links);
  return { ...parent, resolvedPath: join(parent.resolvedPath, basename(absolute)), exists: false };
}

/** The path as given, followed by what it resolves to when that differs. */
export function describeTarget(target: ResolvedTarget): string {
  return target.resolvedPath === target.path ? target.path : `${target.path} (${target.resolvedPath})`;
}

/**
 * The sysfs directory of a block device target (one whose stats are a block special file);
 * `detail` goes into the error, which names the device and its major:minor.
 */
export function sysfsOfBlockTarget(target: ResolvedTarget, detail: Record<string, unknown>): SysfsBlockDevice {
  const { major, minor } = decodeDevT(target.stats.rdev);
  const dev = sysfsBlockDir(major, minor);
  if (dev === null) {
    throw new VolbenchError(
      'ETARGET',
      `block device ${describeTarget(target)} (${major}:${minor}) is not in /sys/dev/block`,
      detail,
    );
  }
  return dev;
}

function targetError(given: string, at: string, err: unknown): VolbenchError {
  const e = err as NodeJS.ErrnoException;
  const where = at === resolve(given) ? given : `${given} (at ${at})`;
  const reason =
    e.code === 'ENOTDIR'
      ? 'a component of the path is not a directory'
      : e.code === 'EACCES'
        ? 'permission denied'
        : e.message;
  const errno = e.code === undefined ? undefined : osConstants.errno[e.code as keyof typeof osConstants.errno];
  return new VolbenchError('ETARGET', `target ${where} cannot be resolved: ${reason}`, {
    path: given,
    ...(errno === undefined ? {} : { errno }),
    ...(e.syscall === undefined ? {} : { syscall: e.syscall }),
    cause: err,
  });
}
