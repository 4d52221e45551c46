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

/** Whether `err` is the store being unable to write now, rather than a bug. */
export function isStoreCondition(err: unknown): err is InstanceType<typeof Database.SqliteError> {
  return err instanceof Database.SqliteError && (err.code === 'SQLITE_FULL' || UNAVAILABLE.test(err.code));
}

/** The problem a store failure answers with (`what` says what was not recorded), or null when `err` is not one. */
export function storeProblemOf(err: unknown, dataDir: string, what: string): HttpProblem | null {
  if (!isStoreCondition(err)) return null;
  return err.code === 'SQLITE_FULL' ? storeFull(dataDir, what) : storeUnavailable(dataDir, what, err.code);
}
