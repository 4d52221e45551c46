/**
 * Which SQLite failures mean "the store cannot write now" rather than a bug: the filesystem is
 * full (SQLITE_FULL, what ENOSPC becomes), or it fails or refuses writes (an I/O error, a
 * read-only remount, another process holding the write lock past the busy timeout). Those are
 * the service's condition, answered 507 or 503 naming the data directory; anything else stays
 * an internal error.
 */
import type { HttpProblem } from '../problems/http-problem.js';
import { storeFull, storeUnavailable } from '../problems/service-problems.js';
import { sqliteCode } from './sqlite.js';

const UNAVAILABLE = /^SQLITE_(IOERR|READONLY|CANTOPEN|BUSY)/;

/** The SQLite code of a failure that is the store being unable to write now, or null for anything else (a bug). */
export function storeConditionCode(err: unknown): string | null {
  const code = sqliteCode(err);
  return code !== null && (code === 'SQLITE_FULL' || UNAVAILABLE.test(code)) ? code : null;
}

/** Whether `err` is the store being unable to write now, rather than a bug. */
export function isStoreCondition(err: unknown): boolean {
  return storeConditionCode(err) !== null;
}

/** The problem a store failure answers with (`what` says what was not recorded), or null when `err` is not one. */
export function storeProblemOf(err: unknown, dataDir: string, what: string): HttpProblem | null {
  const code = storeConditionCode(err);
  if (code === null) return null;
  return code === 'SQLITE_FULL' ? storeFull(dataDir, what) : storeUnavailable(dataDir, what, code);
}
