/**
 * Whether a file may be loaded as code: VOLBENCH_ADDON names a shared object the process maps
 * and runs. Anyone who could write that file, or rename anything on the way to it, would run
 * their code as the user who starts volbench (often root, for block devices). So the file and
 * every directory above it, with every link resolved, must belong to this user or to root and
 * be writable by no group and no one else (a world-writable /tmp, sticky or not, included), as
 * OpenSSH asks of the files it trusts.
 */
import { realpathSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** Why `path` may not be loaded, or null when it may. */
export function untrustedReason(path: string): string | null {
  const uid = process.geteuid?.() ?? 0;
  let at: string;
  try {
    at = realpathSync(path);
  } catch (err) {
    return `it cannot be resolved (${(err as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  for (;;) {
    const st = statSync(at);
    if (st.uid !== uid && st.uid !== 0) return `${at} belongs to uid ${st.uid}, neither this user (uid ${uid}) nor root`;
    if ((st.mode & 0o022) !== 0) return `${at} is writable by its group or by everyone (mode ${(st.mode & 0o7777).toString(8)})`;
    const up = dirname(at);
    if (up === at) return null;
    at = up;
  }
}
