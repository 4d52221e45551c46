/**
 * The fleet's own files beneath a held directory (results under --out, states under --state-dir):
 * read through the descriptor a caller opened and checked (fstat: a regular file, its size within
 * the caller's cap), never by name again; written to a fresh name that nothing can already be (a
 * link planted there is refused), then renamed into place by the caller.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fsyncSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';

/** The first `size` bytes of `fd` (fewer if the file shrank meanwhile), as UTF-8. */
export function readOpened(fd: number, size: number): string {
  const buf = Buffer.alloc(size);
  let got = 0;
  while (got < buf.length) {
    const n = readSync(fd, buf, got, buf.length - got, got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got).toString('utf8');
}

/** Writes `text` to a new file beside `name` (`at` resolves beneath the held directory); its name, for the caller's rename. */
export function writeFresh(at: (name: string) => string, name: string, text: string, mode: number): string {
  const tmp = `.${name}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(at(tmp), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  try {
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    unlinkSync(at(tmp));
    throw err;
  }
  return tmp;
}
