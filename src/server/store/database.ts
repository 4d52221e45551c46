/**
 * The service's SQLite database: runs and their events, and the index of its studies, in WAL mode so that readers (GET,
 * SSE replay) never wait for the writer. The schema is versioned with `user_version`.
 */
import { closeSync, constants, fchmodSync, openSync } from 'node:fs';
import { join } from 'node:path';

import { VolbenchError } from '../../errors.js';
import { ownDataDir } from './data-dir.js';
import { Connection, sqliteCode } from './sqlite.js';

export type Db = Connection;

/** The schema, one entry per version (`user_version` counts those applied); never edit one, add one. */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE runs (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     id TEXT NOT NULL UNIQUE,
     status TEXT NOT NULL,
     spec TEXT NOT NULL,
     job_file TEXT,
     default_root TEXT,
     roots TEXT NOT NULL,
     queue_keys TEXT NOT NULL,
     files TEXT NOT NULL DEFAULT '[]',
     created_at INTEGER NOT NULL,
     started_at INTEGER,
     finished_at INTEGER,
     error TEXT,
     progress TEXT,
     result TEXT
   );
   CREATE INDEX runs_by_status ON runs (status, seq);
   CREATE TABLE events (
     run_seq INTEGER NOT NULL REFERENCES runs (seq) ON DELETE CASCADE,
     seq INTEGER NOT NULL,
     type TEXT NOT NULL,
     data TEXT NOT NULL,
     PRIMARY KEY (run_seq, seq)
   ) WITHOUT ROWID;`,
  // Suites and gates: the suite a run was submitted as, its assertions and their outcome.
  `ALTER TABLE runs ADD COLUMN suite TEXT;
   ALTER TABLE runs ADD COLUMN asserts TEXT NOT NULL DEFAULT '[]';
   ALTER TABLE runs ADD COLUMN assertions TEXT NOT NULL DEFAULT '[]';
   ALTER TABLE runs ADD COLUMN gate TEXT;`,
  // Analyses: the analysis a run was submitted as, with its settings.
  `ALTER TABLE runs ADD COLUMN analysis TEXT;`,
  // The volume a run measures (and its instance), as submitted.
  `ALTER TABLE runs ADD COLUMN volume TEXT;`,
  // The files a run created, one row each as it is made, with the identity (st_dev, st_ino as
  // decimal text) that a removal must find there. The paths recorded before (runs.files, taken
  // before the run began) are kept here without one: they remove nothing.
  `CREATE TABLE run_files (
     run_seq INTEGER NOT NULL REFERENCES runs (seq) ON DELETE CASCADE,
     path TEXT NOT NULL,
     dev TEXT,
     ino TEXT
   );
   CREATE INDEX run_files_by_run ON run_files (run_seq);
   INSERT INTO run_files (run_seq, path) SELECT runs.seq, f.value FROM runs, json_each(runs.files) AS f;`,
  // What tells a created file from a later one given its inode number: its birth time and inode
  // generation as the engine read them ('' where the filesystem keeps neither). Rows recorded
  // before have none (NULL): like '', they confirm nothing and remove nothing.
  `ALTER TABLE run_files ADD COLUMN stamp TEXT;`,
  // Studies: an index of those this service started (their state is in S3), so that a restart
  // takes every open one on again; and the service's own id, which its study leases carry.
  `CREATE TABLE studies (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     id TEXT NOT NULL UNIQUE,
     bucket TEXT NOT NULL,
     region TEXT NOT NULL,
     instance_type TEXT NOT NULL,
     volumes TEXT NOT NULL,
     estimated_usd REAL,
     step TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL
   );
   CREATE INDEX studies_by_step ON studies (step);
   CREATE TABLE service_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);`,
];

export const DATABASE_FILE = 'volbench.sqlite';
const LOCK_FILE = 'serve.lock';

/**
 * Makes `file` (and whatever SQLite keeps beside it) readable by the service's user only. The
 * data dir is 0700 only when this service created it; in one that already existed the files
 * would get the umask's mode, 0644, and every local user could read each run. SQLite creates a
 * database's -wal, -shm and -journal with the database's own mode, so a database file made 0600
 * before SQLite opens it is enough for new ones; those an earlier version or a crash left are
 * tightened here too.
 */
function ownerOnly(file: string): void {
  for (const [path, create] of [[file, true], [`${file}-wal`, false], [`${file}-shm`, false], [`${file}-journal`, false]] as const) {
    let fd: number;
    try {
      fd = openSync(path, create ? constants.O_RDWR | constants.O_CREAT : constants.O_RDONLY, 0o600);
    } catch (err) {
      if (!create && (err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
    try {
      fchmodSync(fd, 0o600);
    } finally {
      closeSync(fd);
    }
  }
}

/**
 * One service per data directory: a second one would fail the first one's running runs as
 * interrupted and run every queued run again. The lock is SQLite's own file lock, held by an
 * exclusive-mode connection on a file of its own (so the database stays readable by others);
 * the kernel drops it when the process ends, kill -9 included. Close the returned handle to
 * release it.
 */
export function lockDataDir(dataDir: string): Db {
  ownDataDir(dataDir);
  ownerOnly(join(dataDir, LOCK_FILE));
  // No busy wait: a held lock is an answer, not a moment's contention.
  const lock = new Connection(join(dataDir, LOCK_FILE), { busyTimeoutMs: 0 });
  try {
    lock.pragma('locking_mode = EXCLUSIVE');
    // The first write in exclusive mode takes the lock and keeps it until the connection closes.
    lock.exec('BEGIN EXCLUSIVE; COMMIT;');
    return lock;
  } catch (err) {
    lock.close();
    if (sqliteCode(err) !== 'SQLITE_BUSY') throw err;
    throw new VolbenchError('EINVALID_ARGS', `data directory ${dataDir} is in use by another volbench serve`, {
      field: '--data-dir',
      accepted: 'a data directory no other running service uses',
    });
  }
}

export function openDatabase(dataDir: string): Db {
  ownDataDir(dataDir);
  ownerOnly(join(dataDir, DATABASE_FILE));
  const db = new Connection(join(dataDir, DATABASE_FILE), { busyTimeoutMs: 5000 });
  db.pragma('journal_mode = WAL');
  // NORMAL is durable across a process crash in WAL mode; only a power loss may drop the
  // last transactions, never corrupt the file.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  migrate(db);
  return db;
}

function migrate(db: Db): void {
  const version = db.pragma('user_version') as number;
  for (let v = version; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]);
      db.exec(`PRAGMA user_version = ${v + 1}`);
    });
  }
}
