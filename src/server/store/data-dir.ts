/**
 * The service's data directory (--data-dir): its database, its lock and its stored token. Every
 * name in it is opened by name (SQLite takes paths), so nobody else may be able to put a name
 * there: the directory is refused unless it is a directory of this user's that group and others
 * cannot write (as ssh refuses a loose ~/.ssh). Checked on the descriptor of what was opened.
 * Made 0700 where missing.
 */
import { closeSync, constants, fstatSync, mkdirSync, openSync } from 'node:fs';

import { VolbenchError } from '../../errors.js';

export function ownDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const refuse = (why: string): never => {
    throw new VolbenchError('EINVALID_ARGS', `data directory ${dataDir} ${why}: whoever may write it could choose the token or the database, so nothing in it is used`, {
      field: '--data-dir', accepted: 'a directory of this user\'s that group and others cannot write (chmod go-w), or one not there yet',
    });
  };
  let fd: number;
  try {
    fd = openSync(dataDir, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch (err) {
    return refuse(`cannot be opened as a directory: ${(err as Error).message}`);
  }
  try {
    const st = fstatSync(fd);
    const uid = process.geteuid?.();
    if (uid !== undefined && st.uid !== uid) refuse(`belongs to uid ${st.uid}, not this user (${uid})`);
    if (st.mode & 0o022) refuse(`may be written by group or others (mode ${(st.mode & 0o777).toString(8).padStart(3, '0')})`);
  } finally {
    closeSync(fd);
  }
}
