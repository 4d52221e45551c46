/**
 * A FUSE filesystem that fails or stalls I/O on request (tests/helpers/faultfs.py), mounted for a
 * test: one in-memory file, `disk.img`, whose reads and writes all reach the filesystem's
 * process, and a control file taking rules such as `eio-after read 4194304` or `stall read 0 N`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SCRIPT = new URL('./faultfs.py', import.meta.url).pathname;
// Debian's python3-pyfuse3 lives in the distribution's Python.
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

export class FaultFs {
  readonly dir: string;
  readonly image: string;
  private readonly ctl: string;
  private child: ChildProcess | null = null;
  // The kernel's connection to this mount (/sys/fs/fuse/connections/N): the minor number of the
  // mount's device.
  private connection = -1;

  private constructor(dir: string) {
    this.dir = dir;
    this.image = join(dir, 'disk.img');
    this.ctl = join(dir, 'ctl');
  }

  /** Mounts a filesystem serving a `bytes`-long disk.img. */
  static async mount(bytes: number): Promise<FaultFs> {
    const fs = new FaultFs(mkdtempSync(join(tmpdir(), 'volbench-faultfs-')));
    const child = spawn(PYTHON, [SCRIPT, fs.dir, String(bytes)], { stdio: ['pipe', 'pipe', 'pipe'] });
    fs.child = child;
    let stderr = '';
    child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`faultfs did not mount in 10 s: ${stderr}`)), 10_000);
      child.stdout!.on('data', (b: Buffer) => {
        if (b.toString().includes('ready')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`faultfs exited (${code}): ${stderr}`));
      });
    });
    const dev = statSync(fs.dir).dev;
    fs.connection = (dev & 0xff) | ((dev >> 12) & 0xfff00);
    return fs;
  }

  /** Applies control lines (see faultfs.py). */
  control(...lines: string[]): void {
    writeFileSync(this.ctl, lines.join('\n') + '\n');
  }

  /** Bytes served, I/Os failed, I/Os stalled so far. */
  counters(): { served: number; failed: number; stalled: number } {
    const [served, failed, stalled] = readFileSync(this.ctl, 'utf8').trim().split(/\s+/).map(Number);
    return { served, failed, stalled };
  }

  /** Kills the filesystem's process: the kernel then fails every request to it (ENOTCONN). */
  kill(): void {
    this.child?.kill('SIGKILL');
  }

  /** Aborts the kernel's connection: every request waiting on it fails at once. */
  abort(): void {
    if (this.connection < 0) return;
    const file = `/sys/fs/fuse/connections/${this.connection}/abort`;
    // The control filesystem is not always mounted.
    if (!existsSync(file)) spawnSync('mount', ['-t', 'fusectl', 'none', '/sys/fs/fuse/connections']);
    if (existsSync(file)) writeFileSync(file, '1');
  }

  /**
   * Answers any stalled I/O, unmounts and removes the mount point. When the process is gone (or
   * does not answer), aborting the connection ends whatever still waits on it.
   */
  async close(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (child && child.exitCode === null && child.signalCode === null) {
      try {
        this.control('release');
      } catch {
        // not answering: aborted below
      }
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.stdin!.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    this.abort();
    spawnSync('umount', ['-l', this.dir]);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
