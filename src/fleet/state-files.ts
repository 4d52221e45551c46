/**
 * The fleet states of this machine: `<dir>/<fleet-id>.json`. The folder (--state-dir, or
 * XDG_STATE_HOME's) may be one others can write: a team's, another user's home, /tmp. So the
 * folder is opened once and held, and every name beneath it is taken through that descriptor
 * (`/proc/self/fd/N/NAME`). A state is written to a new temporary name (O_CREAT|O_EXCL|O_NOFOLLOW:
 * a link planted there is never followed), then renamed over its name, which replaces a link or
 * someone's file rather than writing through it. A state is read only from a regular file of
 * this user's with one name, opened without following a link and without blocking on a FIFO;
 * anything else there is not a state of this machine's.
 */
import { closeSync, constants, fstatSync, mkdirSync, openSync, renameSync, unlinkSync } from 'node:fs';

import { O_PATH } from '../device/anchor.js';
import { VolbenchError } from '../errors.js';
import { readOpened, writeFresh } from './held-file.js';

/** A state larger than this is not one volbench wrote (64 members' plans are a few hundred KiB), local or in the bucket. */
export const MAX_STATE_BYTES = 4 << 20;

function code(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException).code;
}

/** `dir` held (made 0700 where missing), for `use`; closed after. */
function withDir<T>(dir: string, create: boolean, use: (at: (name: string) => string) => T): T {
  if (create) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const fd = openSync(dir, O_PATH | constants.O_DIRECTORY);
  try {
    return use((name) => `/proc/self/fd/${fd}/${name}`);
  } finally {
    closeSync(fd);
  }
}

/** Writes `text` as `<dir>/<name>`: a fresh temporary file, then renamed. */
export function writeStateFile(dir: string, name: string, text: string): void {
  withDir(dir, true, (at) => {
    const tmp = writeFresh(at, name, text, 0o600);
    try {
      renameSync(at(tmp), at(name));
    } catch (err) {
      try {
        unlinkSync(at(tmp));
      } catch {
        // Renamed already, or gone.
      }
      throw err;
    }
  });
}

/**
 * `<dir>/<name>` as text: undefined when there is no such name (or no folder); refused
 * (EFLEET_STATE, naming the file) when what is there is not a regular file of this user's.
 */
export function readStateFile(dir: string, name: string, shown: string): string | undefined {
  const refuse = (why: string): never => {
    throw new VolbenchError('EFLEET_STATE', `${shown} ${why}: it is not a state of this machine's, and is not read`, {
      field: '--state-dir', accepted: `a regular file this user wrote, of at most ${MAX_STATE_BYTES} bytes, with no other name`,
    });
  };
  let fd: number;
  try {
    fd = withDir(dir, false, (at) => openSync(at(name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK));
  } catch (err) {
    if (code(err) === 'ENOENT') return undefined;
    if (code(err) === 'ELOOP') return refuse('is a link');
    throw err;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return refuse('is not a regular file');
    if (st.uid !== process.geteuid!()) return refuse(`belongs to uid ${st.uid}, not this user (${process.geteuid!()})`);
    if (st.nlink !== 1) return refuse(`has ${st.nlink} names`);
    if (st.size > MAX_STATE_BYTES) return refuse(`is ${st.size} bytes`);
    return readOpened(fd, st.size);
  } finally {
    closeSync(fd);
  }
}
