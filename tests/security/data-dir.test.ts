/**
 * The service's data directory (--data-dir) when another user made it or may write it: one
 * given under /tmp that someone created first, or a team's folder.
 *
 * Broke: `serve` took the directory as it found it (doctor only warned). The token stored there
 * was read by name, following a link, from whoever wrote it: another user who created
 * /tmp/vbdata first, with a `token` file of theirs, held the API of a service running as root
 * (runs that write the devices it was allowed). And the database was opened by name, then
 * chmod 0600 through whatever link stood at its name: a link to /etc/passwd took that file's
 * mode to 0600, before SQLite said it was no database.
 * Expected: a data directory that is not this user's, or that group or others may write, is
 * refused (EINVALID_ARGS naming --data-dir) before anything in it is read, made or changed.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadOrCreateToken } from '../../src/server/http/token.js';
import { DATABASE_FILE, lockDataDir, openDatabase } from '../../src/server/store/database.js';
import { requires } from '../helpers/requires.js';

const needs = requires('root');
const NOBODY = 65534;

describe('a data directory someone else made or may write', () => {
  let base: string;
  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'vb-data-dir-'));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it.skipIf(needs.missing('root'))("another user's directory with a token of theirs: refused, their token never the service's", () => {
    const dir = join(base, 'theirs');
    mkdirSync(dir, { mode: 0o755 });
    writeFileSync(join(dir, 'token'), 'chosen-by-someone-else\n', { mode: 0o644 });
    chownSync(join(dir, 'token'), NOBODY, NOBODY);
    chownSync(dir, NOBODY, NOBODY);
    expect(() => loadOrCreateToken(dir)).toThrow(expect.objectContaining({ code: 'EINVALID_ARGS', field: '--data-dir' }));
    expect(() => lockDataDir(dir)).toThrow(expect.objectContaining({ code: 'EINVALID_ARGS', field: '--data-dir' }));
  });

  it('a directory others may write, a link at the database\'s name: refused, the linked file keeps its mode', () => {
    const dir = join(base, 'open');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    const victim = join(base, 'victim');
    writeFileSync(victim, 'x\n', { mode: 0o644 });
    chmodSync(victim, 0o644);
    symlinkSync(victim, join(dir, DATABASE_FILE));
    const refused = (() => {
      try {
        openDatabase(dir).close();
        return undefined;
      } catch (err) {
        return err;
      }
    })();
    expect(statSync(victim).mode & 0o777).toBe(0o644);
    expect(refused).toMatchObject({ code: 'EINVALID_ARGS', field: '--data-dir' });
    expect(() => loadOrCreateToken(dir)).toThrow(expect.objectContaining({ code: 'EINVALID_ARGS', field: '--data-dir' }));
  });

  it('a directory of its own, made where missing (0700), still takes a token and a database', () => {
    const dir = join(base, 'mine', 'data');
    const made = loadOrCreateToken(dir);
    expect(made.generated).toBe(true);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(loadOrCreateToken(dir)).toMatchObject({ token: made.token, generated: false });
    const lock = lockDataDir(dir);
    openDatabase(dir).close();
    lock.close();
  });
});
