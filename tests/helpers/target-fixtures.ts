/**
 * Loop devices, filesystems and mounts made by the target tests. Every resource is recorded as
 * it is made and released by `release()` in reverse order, so a test that fails half way still
 * leaves nothing attached or mounted.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, openSync, closeSync, ftruncateSync, readFileSync, readSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';

/**
 * The ext4 magic (0xEF53) at byte 0x38 of the superblock, which starts at byte 1024, read
 * through `path` (a device is read through its page cache, where a write would be first).
 */
export function superblockMagic(path: string): number {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(2);
    readSync(fd, buf, 0, 2, 1024 + 0x38);
    return buf.readUInt16LE(0);
  } finally {
    closeSync(fd);
  }
}

export function run(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/**
 * Whether `device` is still the loop device over `backing`. Once a loop device is let go, the
 * kernel hands its number to the next `losetup -f`, maybe another process's (the sanitizer run
 * and the rehearsals attach theirs beside the device files), so a device is known by its backing
 * file, never by its name alone.
 */
export function loopBacks(device: string, backing: string): boolean {
  let file: string;
  try {
    // The kernel names a backing file unlinked since with " (deleted)" after its path.
    file = readFileSync(`/sys/block/${basename(device)}/loop/backing_file`, 'utf8').trim().replace(/ \(deleted\)$/, '');
  } catch {
    return false;
  }
  let real = resolve(backing);
  try {
    real = realpathSync(backing);
  } catch {
    // Removed already: its name is all there is to compare.
  }
  return file === real;
}

/** Detaches `device` if it is still the loop device over `backing` (loopBacks), never another's. */
export function detachOwnLoop(device: string, backing: string): void {
  if (loopBacks(device, backing)) run('losetup', ['-d', device]);
}

export class TargetFixtures {
  readonly dir: string;
  private readonly undo: Array<() => void> = [];

  /** `baseDir` holds the fixture directory (default: os.tmpdir(); /dev/shm keeps images in memory). */
  constructor(label: string, baseDir: string = tmpdir()) {
    this.dir = mkdtempSync(join(baseDir, `volbench-${label}-${process.pid}-`));
    this.undo.push(() => rmSync(this.dir, { recursive: true, force: true }));
  }

  /** A sparse image file of `sizeBytes` in the fixture directory. */
  image(name: string, sizeBytes: number): string {
    const path = join(this.dir, name);
    const fd = openSync(path, 'w');
    try {
      ftruncateSync(fd, sizeBytes);
    } finally {
      closeSync(fd);
    }
    return path;
  }

  /**
   * Attaches `backing` to the first free loop device; `partscan` asks the kernel to read its
   * partition table, `logicalBlockSize` sets the device's sector size (losetup -b).
   */
  attachLoop(backing: string, partscan = false, logicalBlockSize?: number): string {
    const sector = logicalBlockSize === undefined ? [] : ['-b', String(logicalBlockSize)];
    const dev = run('losetup', ['-f', ...(partscan ? ['-P'] : []), ...sector, '--show', backing]);
    this.undo.push(() => detachOwnLoop(dev, backing));
    return dev;
  }

  /** `extra`: mkfs.ext4's options, e.g. ['-I', '128'] for inodes without a birth time. */
  mkfsExt4(dev: string, extra: string[] = []): void {
    run('mkfs.ext4', ['-q', '-F', ...extra, dev]);
  }

  mount(source: string, name: string, extra: string[] = []): string {
    const mountPoint = join(this.dir, name);
    run('mkdir', ['-p', mountPoint]);
    run('mount', [...extra, source, mountPoint]);
    this.undo.push(() => {
      try {
        run('umount', [mountPoint]);
      } catch {
        run('umount', ['-l', mountPoint]);
      }
    });
    return mountPoint;
  }

  /** Mounts a tmpfs of `sizeBytes` at a new directory `name` (unmounted by release()). */
  mountTmpfs(name: string, sizeBytes: number): string {
    return this.mount('tmpfs', name, ['-t', 'tmpfs', '-o', `size=${sizeBytes}`]);
  }

  /** Writes an MBR with one Linux partition from sector 2048 spanning `sectors`. */
  writeMbr(image: string, sectors: number): void {
    const mbr = Buffer.alloc(512);
    const entry = 446;
    mbr[entry + 4] = 0x83;
    mbr.writeUInt32LE(2048, entry + 8);
    mbr.writeUInt32LE(sectors, entry + 12);
    mbr[510] = 0x55;
    mbr[511] = 0xaa;
    const fd = openSync(image, 'r+');
    try {
      writeFileSync(fd, mbr);
    } finally {
      closeSync(fd);
    }
  }

  /** Releases everything, newest first; keeps going past failures and reports them at the end. */
  release(): void {
    const errors: unknown[] = [];
    for (const step of this.undo.reverse()) {
      try {
        step();
      } catch (err) {
        errors.push(err);
      }
    }
    this.undo.length = 0;
    if (errors.length > 0) throw new AggregateError(errors, 'target fixtures were not all released');
  }
}
