/**
 * What one run's plan holds, kept for the runs after it: a sweep's points, a suite's tests, and
 * a service's run from its admission to its start. Each is planned again (devices may be mounted
 * meanwhile, files grow), but a path is never followed by name again once it was: its directory
 * is held open from the first plan (pinned), so a directory swapped for a link since then leads
 * nowhere new, and a file an earlier run laid out or opened there must still be that file.
 *
 * Directories are pinned by the name the job gave them (its `directory`, or its filename's
 * directory), the first time a plan meets them; a later plan resolves the file name beneath the
 * pinned descriptor (through /proc/self/fd, the kernel's own path of what is held) and the
 * engine opens it beneath the same descriptor.
 */
import { closeSync, openSync, readlinkSync, realpathSync, constants as fsConstants } from 'node:fs';

import { O_PATH, sameIdentity, type Identity } from '../device/anchor.js';
import { VolbenchError } from '../errors.js';

/** A directory held open, and where it was when it was pinned. */
export interface PinnedDir {
  fd: number;
  realDir: string;
}

/** Descriptors of a HeldTargets its owner dropped without releasing it. */
const unreleased = new FinalizationRegistry<Map<string, PinnedDir>>((dirs) => closeAll(dirs));

function closeAll(dirs: Map<string, PinnedDir>): void {
  for (const { fd } of dirs.values()) {
    try {
      closeSync(fd);
    } catch {
      // Already closed.
    }
  }
  dirs.clear();
}

export class HeldTargets {
  private readonly dirs = new Map<string, PinnedDir>();
  private readonly files = new Map<string, Identity>();
  private released = false;
  private readonly token = {};

  constructor() {
    unreleased.register(this, this.dirs, this.token);
  }

  /**
   * The directory `givenDir` (absolute, as the job names it), pinned on first use: resolved by
   * name that once, opened, and checked to be what was resolved (a swap in between is refused).
   */
  pin(givenDir: string, field: string, given: string): PinnedDir {
    if (this.released) throw new Error('HeldTargets used after release');
    const held = this.dirs.get(givenDir);
    if (held !== undefined) return held;
    let fd = -1;
    try {
      const realDir = realpathSync(givenDir);
      fd = openSync(realDir, O_PATH | fsConstants.O_DIRECTORY);
      if (readlinkSync(`/proc/self/fd/${fd}`) !== realDir) {
        throw new VolbenchError('ETARGET', `the directory of ${given} changed while it was being checked`, { field, path: given });
      }
      const pinned = { fd, realDir };
      this.dirs.set(givenDir, pinned);
      return pinned;
    } catch (err) {
      if (fd >= 0) closeSync(fd);
      if (err instanceof VolbenchError) throw err;
      const errno = -((err as NodeJS.ErrnoException).errno ?? 0);
      throw new VolbenchError('ETARGET', `cannot use ${given}: its directory does not exist or cannot be read (errno ${errno})`, {
        field, path: given, errno, cause: err,
      });
    }
  }

  /** Where the pinned directory is now: the kernel's path of the descriptor. */
  static whereNow(pinned: PinnedDir): string {
    return readlinkSync(`/proc/self/fd/${pinned.fd}`);
  }

  /** Records what a run laid out or opened at `path` (as planned): later plans must find it there. */
  saw(path: string, identity: Identity): void {
    this.files.set(path, identity);
  }

  /**
   * Throws ETARGET when an earlier run laid out or opened another file at `path` than `found`
   * (what this plan resolved beneath the pinned directory).
   */
  check(path: string, found: Identity, field: string): void {
    const before = this.files.get(path);
    if (before === undefined || sameIdentity(before, found)) return;
    const now = found.kind === 'new' ? 'is gone' : 'is another file';
    throw new VolbenchError('ETARGET', `${path} ${now}: it is not the file an earlier run of this sweep or suite laid out or used there`, {
      field, path, accepted: 'the file the first run used, left in place until the last one ends',
    });
  }

  /** Closes the pinned directories. Idempotent. */
  release(): void {
    this.released = true;
    unreleased.unregister(this.token);
    closeAll(this.dirs);
  }
}
