/**
 * A file's stamp as the engine records it (native FileStamp): "b<sec>.<nsec>" from its birth
 * time and "g<n>" from its inode generation, joined by ';', each where the filesystem keeps it.
 * For tests that write a run's record by hand. Node reads the birth time with statx; the
 * generation comes from e2fsprogs' lsattr -v (FS_IOC_GETVERSION), where the filesystem answers it.
 */
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';

export function fileStamp(path: string): string {
  const st = statSync(path, { bigint: true });
  const parts: string[] = [];
  // Node reports the epoch for a filesystem without birth times.
  if (st.birthtimeNs !== 0n) parts.push(`b${st.birthtimeNs / 1_000_000_000n}.${st.birthtimeNs % 1_000_000_000n}`);
  try {
    const generation = /^\s*(\d+)\s/.exec(execFileSync('lsattr', ['-vd', path], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }))?.[1];
    if (generation !== undefined) parts.push(`g${generation}`);
  } catch {
    // No generation here (tmpfs, ramfs).
  }
  return parts.join(';');
}
