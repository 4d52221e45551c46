/**
 * Whether a file may be loaded as code: VOLBENCH_ADDON names a shared object the process maps
 * and runs. Anyone who could write that file, or rename anything on the way to it, would run
 * their code as the user who starts volbench (often root, for block devices). So the file and
 * every directory above it, with every link resolved, must belong to this user or to root and
 * be writable by no group and no one else, as OpenSSH asks of the files it trusts; a directory
 * above the file's own may be writable by others when it is sticky (as /tmp, /dev/shm): there
 * no one else can rename or remove what is ours, so the way down stays ours. (A checkout or a
 * build under /tmp is common; refusing it bought nothing.) What is loaded is then that resolved name, never the one
 * given: a link on the given way may sit where someone else can point it elsewhere once it was
 * checked, while nothing on the resolved way can change but by this user or root.
 */
import { realpathSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

const S_ISVTX = 0o1000;

/** The file's resolved name when it may be loaded (load that, not `path`), or why it may not. */
export function ownedRealPath(path: string): { real: string } | { refused: string } {
  const uid = process.geteuid?.() ?? 0;
  let real: string;
  try {
    real = realpathSync(path);
  } catch (err) {
    return { refused: `it cannot be resolved (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  for (let at = real; ;) {
    const st = statSync(at);
    if (st.uid !== uid && st.uid !== 0) return { refused: `${at} belongs to uid ${st.uid}, neither this user (uid ${uid}) nor root` };
    // The file and its own directory: writable by no one else. Higher up, sticky will do.
    const stickyOk = at !== real && at !== dirname(real) && (st.mode & S_ISVTX) !== 0;
    if ((st.mode & 0o022) !== 0 && !stickyOk) {
      return { refused: `${at} is writable by its group or by everyone (mode ${(st.mode & 0o7777).toString(8)})` };
    }
    const up = dirname(at);
    if (up === at) return { real };
    at = up;
  }
}
