/**
 * Which SQLite failures mean "the store cannot write now" rather than a bug: the filesystem is
 * full (SQLITE_FULL, what ENOSPC becomes), or it fails or refuses writes (an I/O error, a
 * read-only remount, another process holding the write lock past the busy timeout). Those are
 * the service's condition, answered 507 or 503 naming the data directory; anything else stays
 * an internal error.
 */
import Database from 'better-sqlite3';

import type { HttpProblem } from '../problem.js';
import { storeFull, storeUnavailable } from '../problems.js';

const UNAVAILABLE = /^SQLITE_(IOERR|READONLY|CANTOPEN|BUSY)/;

/** The problem a store failure answers with, or null when `err` is not one. */
export function storeProblemOf(err: unknown, dataDir: string, what: string): HttpProblem | null {
  if (!(err instanceof Database.SqliteError)) return null;
  if (err.code === 'SQLITE_FULL') return storeFull(dataDir, what);
  if (UNAVAILABLE.test(err.code)) return storeUnavailable(dataDir, what, err.code);
  return null;
}
