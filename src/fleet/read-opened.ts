/**
 * Reads a file through the descriptor a caller opened and checked (fstat: a regular file, its
 * size within the caller's cap): the result and state files are opened beneath a held directory,
 * never by name again, so what is read is what was checked.
 */
import { readSync } from 'node:fs';

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
