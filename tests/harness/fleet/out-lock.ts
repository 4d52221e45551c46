/**
 * One rehearsal per --out: a lock file made with O_EXCL holding the driver's pid. A second
 * rehearsal on the same directory is refused naming the holder; a lock whose process is gone
 * (a driver killed with SIGKILL) is taken over, and said so.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export interface OutLock {
  file: string;
  /** Said when a dead driver's lock was taken over. */
  tookOver?: number;
  release(): void;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function lockOut(dir: string): OutLock {
  const file = join(dir, '.rehearsal.lock');
  let tookOver: number | undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, 'wx', 0o644);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(readFileSync(file, 'utf8').trim());
      if (Number.isInteger(holder) && holder > 0 && alive(holder)) {
        throw new Error(`${dir} is in use by the rehearsal of pid ${holder} (${file}): give another --out`);
      }
      rmSync(file, { force: true });
      tookOver = holder;
      continue;
    }
    writeSync(fd, `${process.pid}\n`);
    closeSync(fd);
    let released = false;
    return {
      file,
      ...(tookOver !== undefined ? { tookOver } : {}),
      release() {
        if (released) return;
        released = true;
        try {
          if (Number(readFileSync(file, 'utf8').trim()) === process.pid) rmSync(file, { force: true });
        } catch {
          // Gone already.
        }
      },
    };
  }
  throw new Error(`${file}: could not be taken`);
}
