/**
 * The API token when the operator gives none: generated once, kept in the data directory with
 * mode 0600 so that only the service's user can read it, and reused on later starts.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const TOKEN_FILE = 'token';

export interface StoredToken {
  token: string;
  path: string;
  /** True when this call made the token (the only time it should be printed). */
  generated: boolean;
}

export function loadOrCreateToken(dataDir: string): StoredToken {
  const path = join(dataDir, TOKEN_FILE);
  try {
    const token = readFileSync(path, 'utf8').trim();
    if (token !== '') return { token, path, generated: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString('base64url');
  // 'wx' refuses to follow or overwrite anything already there, mode applies on creation.
  writeFileSync(path, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return { token, path, generated: true };
}
