/**
 * A fleet's result files: `<out>/<fleet-id>/<label>.json`. The id and label may come from a state
 * someone planted, so each must be one path component (names.ts); `--out` is opened once and
 * held, the fleet's folder opened beneath it without following a link (and must be this user's),
 * and every file is read and written through that descriptor: `/proc/self/fd/N/NAME` has the
 * kernel take the folder from the descriptor, never from a path someone could swap.
 *
 * A result goes to a new temporary name (O_CREAT|O_EXCL|O_NOFOLLOW), then takes its name: with
 * link(2) where there is none (which replaces nothing), or with rename(2) over a regular file
 * that is this member's result from an earlier run. Anything else there (a link, a folder, a
 * FIFO, another file) is left as it is and the result is not written.
 */
import {
  closeSync, constants, fstatSync, linkSync, lstatSync, mkdirSync, openSync, renameSync, unlinkSync,
} from 'node:fs';
import { join } from 'node:path';

import { O_PATH } from '../device/anchor.js';
import { VolbenchError } from '../errors.js';
import { FLEET_ID, VOLUME_LABEL } from './names.js';
import { readOpened, writeFresh } from './held-file.js';

/** A result larger than this is not read back (a member's answer is capped the same). */
export const MAX_RESULT_BYTES = 256 << 20;

function code(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException).code;
}

/** `<label>.json`, refused unless the label is the template's VolumeLabel (one component, no dot first). */
export function resultName(label: string, field = 'label'): string {
  if (!VOLUME_LABEL.test(label)) {
    throw new VolbenchError('EINVALID_ARGS', `'${label.slice(0, 80)}' is not a member label: its result would not be a file under --out`, {
      field, accepted: 'letters, digits, . _ - (not first), up to 63',
    });
  }
  return `${label}.json`;
}

export class ResultFiles {
  private constructor(readonly dir: string, private readonly fleetId: string, private readonly fd: number) {}

  /**
   * The fleet's folder under `outDir`, held; with `create`, made where missing. Undefined when
   * it does not exist and `create` is false.
   */
  static open(outDir: string, fleetId: string, create: boolean): ResultFiles | undefined {
    if (!FLEET_ID.test(fleetId)) throw new VolbenchError('EINVALID_ARGS', `'${fleetId.slice(0, 40)}' is not a fleet id`, { field: 'FLEET_ID', accepted: 'vb and 10 hex digits' });
    if (create) mkdirSync(outDir, { recursive: true });
    let out: number;
    try {
      // --out as the user typed it: the one path taken by name.
      out = openSync(outDir, O_PATH | constants.O_DIRECTORY);
    } catch (err) {
      if (!create && code(err) === 'ENOENT') return undefined;
      throw new VolbenchError('EINVALID_ARGS', `--out ${outDir}: ${(err as Error).message}`, { field: '--out', accepted: 'a folder', cause: err });
    }
    try {
      const inside = `/proc/self/fd/${out}/${fleetId}`;
      if (create) {
        try {
          mkdirSync(inside, 0o755);
        } catch (err) {
          if (code(err) !== 'EEXIST') throw err;
        }
      }
      let fd: number;
      try {
        fd = openSync(inside, O_PATH | constants.O_DIRECTORY | constants.O_NOFOLLOW);
      } catch (err) {
        if (!create && code(err) === 'ENOENT') return undefined;
        throw new VolbenchError('EINVALID_ARGS', `${join(outDir, fleetId)} is not a folder (a link is not followed): ${(err as Error).message}`, {
          field: '--out', accepted: 'a folder of this user\'s for the fleet\'s results', cause: err,
        });
      }
      const st = fstatSync(fd);
      if (!st.isDirectory() || st.uid !== process.geteuid!()) {
        closeSync(fd);
        throw new VolbenchError('EINVALID_ARGS', `${join(outDir, fleetId)} is not a folder of this user's: results are not written or read there`, {
          field: '--out', accepted: 'a folder of this user\'s for the fleet\'s results',
        });
      }
      return new ResultFiles(join(outDir, fleetId), fleetId, fd);
    } finally {
      closeSync(out);
    }
  }

  private at(name: string): string {
    return `/proc/self/fd/${this.fd}/${name}`;
  }

  /** Writes `text` as `label`'s result; returns its path. */
  write(label: string, text: string): string {
    const name = resultName(label);
    const tmp = writeFresh((n) => this.at(n), name, text, 0o644);
    try {
      this.place(tmp, name, label);
    } catch (err) {
      try {
        unlinkSync(this.at(tmp));
      } catch {
        // Already taken its name, or gone.
      }
      throw err;
    }
    return join(this.dir, name);
  }

  private place(tmp: string, name: string, label: string): void {
    try {
      linkSync(this.at(tmp), this.at(name));
      unlinkSync(this.at(tmp));
      return;
    } catch (err) {
      if (code(err) !== 'EEXIST') throw err;
    }
    if (!this.ours(name, label)) {
      throw new VolbenchError('ETARGET', `${join(this.dir, name)} is not a result volbench wrote for member ${label}: left as it is, the result not saved there`, {
        field: '--out', path: join(this.dir, name), accepted: 'a folder where each member\'s name is free or its own earlier result',
      });
    }
    renameSync(this.at(tmp), this.at(name));
  }

  /** Whether `name` is a regular file holding this fleet member's result (volbench.cloud.fleet). */
  private ours(name: string, label: string): boolean {
    const text = this.read(name);
    if (text === undefined) return false;
    try {
      const fleet = (JSON.parse(text) as { volbench?: { cloud?: { fleet?: { id?: unknown; label?: unknown } } } }).volbench?.cloud?.fleet;
      return fleet?.id === this.fleetId && fleet.label === label;
    } catch {
      return false;
    }
  }

  /** `label`'s result as text; undefined when there is none, or what is there is not a regular file. */
  readResult(label: string): string | undefined {
    return this.read(resultName(label));
  }

  private read(name: string): string | undefined {
    let fd: number;
    try {
      const seen = lstatSync(this.at(name));
      if (!seen.isFile()) return undefined;
      // Non-blocking: a FIFO swapped in after the lstat does not hold the open.
      fd = openSync(this.at(name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (err) {
      if (['ENOENT', 'ELOOP', 'ENXIO'].includes(code(err) ?? '')) return undefined;
      throw err;
    }
    try {
      const st = fstatSync(fd);
      if (!st.isFile() || st.size > MAX_RESULT_BYTES) return undefined;
      return readOpened(fd, st.size);
    } finally {
      closeSync(fd);
    }
  }

  close(): void {
    closeSync(this.fd);
  }
}
