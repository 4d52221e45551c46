/**
 * `include FILE` in a job file read from disk (init.c __parse_jobs_ini): the file's option lines
 * join the section the include stands in. A job file is input like any other, and so is a name
 * it includes: the name is taken relative to the including file's directory, must lead to a
 * regular file (a FIFO, a device or /proc would stall the read or never end), is opened without
 * blocking and read only up to what a job file may hold, and includes nest at most
 * MAX_INCLUDE_DEPTH deep, never in a cycle, and read at most MAX_JOB_FILE_LENGTH bytes in all
 * for one job file (a file that includes another twice, and so on, would otherwise read it
 * 2^depth times).
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';

import { VolbenchError } from '../errors.js';

/** Job file text at most (the service's body limit): also the budget of one file's includes. */
export const MAX_JOB_FILE_LENGTH = 1024 * 1024;
/** fio nests includes without a limit (a cycle recurses until it crashes); volbench stops here. */
export const MAX_INCLUDE_DEPTH = 16;

export interface IncludedFile {
  text: string;
  /** The path it was read from: what its own includes are relative to. */
  path: string;
}

/** Reads the files a job file includes. */
export interface IncludeReader {
  /** The text of `name` as included from the file at `from` (undefined: stdin, the working directory). */
  read(name: string, from: string | undefined): IncludedFile;
  /** Back out of the file `read` last returned, once its lines are done. */
  leave(): void;
}

const INCLUDE_ACCEPTED = `a regular file, relative to the including job file's directory, at most ${MAX_INCLUDE_DEPTH} includes deep, ` +
  `not including itself, ${MAX_JOB_FILE_LENGTH} bytes in all`;

function includeError(name: string, why: string, cause?: unknown): VolbenchError {
  return new VolbenchError('EJOBFILE', `include ${name}: ${why}`, { field: `include ${name}`, accepted: INCLUDE_ACCEPTED, ...(cause ? { cause } : {}) });
}

/** The reader for one job file read from disk (`top`: its path; undefined for stdin). */
export function fileIncludeReader(top: string | undefined): IncludeReader {
  // The including files' identities, the job file itself first.
  const chain: string[] = top === undefined ? [] : [identityOf(top)];
  const outermost = chain.length;
  let budget = MAX_JOB_FILE_LENGTH;
  return {
    read(name, from) {
      if (chain.length - outermost >= MAX_INCLUDE_DEPTH) throw includeError(name, `includes nest deeper than ${MAX_INCLUDE_DEPTH}`);
      const base = from ?? top;
      const path = isAbsolute(name) ? name : resolve(base === undefined ? process.cwd() : dirname(base), name);
      const { text, id } = readRegularFile(name, path, budget);
      if (chain.includes(id)) throw includeError(name, `${path} is already being read: it includes itself`);
      budget -= text.length;
      chain.push(id);
      return { text, path };
    },
    leave() {
      chain.pop();
    },
  };
}

/** A file's dev:ino ('' when it cannot be looked at: stdin, a file gone). */
function identityOf(path: string): string {
  try {
    const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
    try {
      const st = fstatSync(fd, { bigint: true });
      return `${st.dev}:${st.ino}`;
    } finally {
      closeSync(fd);
    }
  } catch {
    return '';
  }
}

/** A regular file's text and identity, read through one descriptor, refused past `budget` bytes. */
function readRegularFile(name: string, path: string, budget: number): { text: string; id: string } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (cause) {
    throw includeError(name, `cannot open ${path}: ${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message}`, cause);
  }
  try {
    const st = fstatSync(fd, { bigint: true });
    if (!st.isFile()) throw includeError(name, `${path} is not a regular file`);
    if (st.size > BigInt(budget)) throw includeError(name, `${path} is ${st.size} bytes, past the ${MAX_JOB_FILE_LENGTH} bytes a job file and its includes may hold`);
    const buf = Buffer.alloc(Number(st.size) + 1);
    let got = 0;
    for (let n; got < buf.length && (n = readSync(fd, buf, got, buf.length - got, null)) > 0; ) got += n;
    // It grew while read: the same limit as a file that was that long from the start.
    if (got > budget) throw includeError(name, `${path} is longer than the ${MAX_JOB_FILE_LENGTH} bytes a job file and its includes may hold`);
    return { text: buf.subarray(0, got).toString('utf8'), id: `${st.dev}:${st.ino}` };
  } finally {
    closeSync(fd);
  }
}
