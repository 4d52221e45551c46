/**
 * /proc/self/mountinfo, the one mount table that carries each mount's major:minor. That number
 * is what ties a mount to a block device whatever name it was mounted by (/dev/root,
 * /dev/disk/by-uuid/..., a bind mount of a subdirectory).
 */
import { readFileSync } from 'node:fs';

export interface MountEntry {
  major: number;
  minor: number;
  /** Directory of the source filesystem that this mount shows ("/" unless a bind mount). */
  root: string;
  mountPoint: string;
  fstype: string;
  /** What was mounted: "/dev/vda", "tmpfs", "overlay", ... */
  source: string;
}

export const MOUNTINFO_PATH = '/proc/self/mountinfo';

export function readMountTable(path: string = MOUNTINFO_PATH): MountEntry[] {
  return parseMountInfo(readFileSync(path, 'utf8'));
}

/**
 * Line layout (proc(5)): id parent major:minor root mount-point options [optional fields...] -
 * fstype source super-options. The optional fields vary in number, so the fields after the
 * lone "-" are found by position from it.
 */
export function parseMountInfo(text: string): MountEntry[] {
  const mounts: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    const dash = fields.indexOf('-', 6);
    if (dash < 0 || fields.length < dash + 3) continue;
    const devnum = /^(\d+):(\d+)$/.exec(fields[2]);
    if (devnum === null) continue;
    mounts.push({
      major: Number(devnum[1]),
      minor: Number(devnum[2]),
      root: unescapeMountField(fields[3]),
      mountPoint: unescapeMountField(fields[4]),
      fstype: fields[dash + 1],
      source: unescapeMountField(fields[dash + 2]),
    });
  }
  return mounts;
}

/** The kernel writes space, tab, newline and backslash in paths as octal escapes (\040). */
export function unescapeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/**
 * The mount that holds `resolvedPath` (already free of symlinks): the longest mount point that
 * contains it. Among equals the later line wins, because a mount stacked on the same directory
 * hides the earlier one. When `dev` is given (the path's st_dev), a mount of that device is
 * preferred, which keeps a stale string match from hiding the real one.
 */
export function mountContaining(
  mounts: MountEntry[],
  resolvedPath: string,
  dev?: { major: number; minor: number },
): MountEntry | null {
  const containing = mounts.filter((m) => pathIsUnder(resolvedPath, m.mountPoint));
  const sameDevice =
    dev === undefined ? [] : containing.filter((m) => m.major === dev.major && m.minor === dev.minor);
  return deepest(sameDevice.length > 0 ? sameDevice : containing);
}

function deepest(mounts: MountEntry[]): MountEntry | null {
  let best: MountEntry | null = null;
  for (const m of mounts) {
    if (best === null || m.mountPoint.length >= best.mountPoint.length) best = m;
  }
  return best;
}

export function pathIsUnder(path: string, dir: string): boolean {
  if (dir === '/') return path.startsWith('/');
  return path === dir || path.startsWith(`${dir}/`);
}

/** Every mount of the device major:minor, in table order. */
export function mountsOfDevice(mounts: MountEntry[], major: number, minor: number): MountEntry[] {
  return mounts.filter((m) => m.major === major && m.minor === minor);
}
