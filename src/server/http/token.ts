/**
 * The API token: from a file the operator gives (--token-file), or when the operator gives none,
 * generated once, kept in the data directory with mode 0600 so that only the service's user can
 * read it, and reused on later starts.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { VolbenchError } from '../../errors.js';
import { ownDataDir } from '../store/data-dir.js';

export const TOKEN_FILE = 'token';

export interface StoredToken {
  token: string;
  path: string;
  /** True when this call made the token (the only time it should be printed). */
  generated: boolean;
}

export function loadOrCreateToken(dataDir: string): StoredToken {
  ownDataDir(dataDir);
  const path = join(dataDir, TOKEN_FILE);
  try {
    const token = readFileSync(path, 'utf8').trim();
    if (token !== '') return { token, path, generated: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const token = randomBytes(32).toString('base64url');
  // 'wx' refuses to follow or overwrite anything already there, mode applies on creation.
  writeFileSync(path, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return { token, path, generated: true };
}

/**
 * The token from --token-file: read once at start, trimmed. The file is refused when group or
 * others may read or write it (as ssh refuses a loose private key): the token is the service's
 * only credential, and whoever may rewrite the file chooses it. Checked on the descriptor that
 * is read, so the file cannot be swapped between the check and the read.
 */
export function readTokenFile(path: string, flag = '--token-file'): string {
  const refuse = (why: string): never => {
    throw new VolbenchError('EINVALID_ARGS', `${flag} ${path} ${why}`, {
      field: flag,
      accepted: 'a regular file only its owner may read (chmod 600), holding the token',
    });
  };
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    return refuse(`cannot be read: ${(err as Error).message}`);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) refuse('is not a regular file');
    const mode = stats.mode & 0o777;
    if ((mode & 0o077) !== 0) refuse(`may be read or written by group or others (mode ${mode.toString(8).padStart(4, '0')}); chmod 600 it`);
    const token = readFileSync(fd, 'utf8').trim();
    if (token === '') refuse('holds no token');
    return token;
  } finally {
    closeSync(fd);
  }
}
