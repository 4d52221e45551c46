// An emulated volume's block device: a loop device of the volume's full size over a sparse file.
//
// backing 'discard' (the default): the file lives on a tmpfs of its own, capped at tmpfsBytes, and
// every punchIntervalMs its blocks are punched out, so what is written is dropped within that
// interval and reads return zeros: a member can write its whole 2 TiB device sequentially and the
// host holds at most rate x interval of it (a write beyond the cap fails with ENOSPC inside the
// member, never on the host). backing 'sparse': the file lives in `dir` and keeps what is written;
// checkRoom() refuses a plan whose writes do not fit the free space.
//
// Loop devices use direct I/O on the file (no second page cache). Every resource is named after
// the process that made it (volbench-rehearsal-PID-...), so sweepStale() can remove what a killed
// run left without touching another live run's devices.
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statfsSync, statSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { BlkioGroup, deviceNumbers } from './blkio.js';

export type Backing = 'discard' | 'sparse';
export interface LoopVolumeOptions {
  dir: string;
  sizeBytes: number;
  backing?: Backing;
  tmpfsBytes?: number;
  punchIntervalMs?: number;
  expectedWriteBytes?: number;
  name?: string;
}
export interface LoopVolume {
  device: string;
  majMin: string;
  /** The device by name, numbers and backing file, for messages. */
  label: string;
  sizeBytes: number;
  backing: Backing;
  file: string;
  readonly punches: number;
  heldBytes(): number;
  /** Throws naming the device unless MAJ:MIN is still this volume's loop device. */
  check(): void;
  close(): void;
}

const PREFIX = 'volbench-rehearsal-';
const GiB = 1024 ** 3;

/** A directory for this process's rehearsal resources (under TMPDIR unless given). */
export function rehearsalDir(parent: string = tmpdir()): string {
  return mkdtempSync(join(parent, `${PREFIX}${process.pid}-`));
}

/** Refuses (RangeError naming the numbers) when `bytes` more would leave under `marginBytes` free in `dir`. */
export function checkRoom(dir: string, bytes: number, marginBytes: number = 2 * GiB): number {
  const fs = statfsSync(dir);
  const free = fs.bavail * fs.bsize;
  if (bytes + marginBytes > free) {
    throw new RangeError(`${dir}: ${Math.ceil(bytes / 2 ** 20)} MiB to write (runtime x rate) and ${Math.ceil(marginBytes / 2 ** 20)} MiB to spare do not fit in ${Math.floor(free / 2 ** 20)} MiB free; use backing 'discard'`);
  }
  return free;
}

function run(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/**
 * Throws unless the block device MAJ:MIN is a loop device over `file`: read from sysfs by number,
 * so a name that another process's losetup reused cannot pass for it.
 */
function checkBacking(label: string, majMin: string, file: string): void {
  let backing: string;
  try {
    backing = readFileSync(`/sys/dev/block/${majMin}/loop/backing_file`, 'utf8').trim();
  } catch {
    backing = 'nothing';
  }
  if (backing !== file) throw new Error(`${label}: device ${majMin} is backed by ${backing}, not by this volume's ${file}`);
}

/**
 * Makes the device. Options: dir (from rehearsalDir()), sizeBytes, backing ('discard' | 'sparse'),
 * tmpfsBytes (discard: the cap on what is held between punches, default 1 GiB), punchIntervalMs
 * (default 500), expectedWriteBytes (sparse: checked against free space), name (file name).
 * Answers { device, majMin, label, sizeBytes, backing, file, check(), close() }.
 */
export function createLoopVolume({ dir, sizeBytes, backing = 'discard', tmpfsBytes = GiB, punchIntervalMs = 500, expectedWriteBytes = 0, name = 'volume' }: LoopVolumeOptions): LoopVolume {
  if (!Number.isSafeInteger(sizeBytes) || sizeBytes <= 0 || sizeBytes % 4096 !== 0) throw new RangeError(`sizeBytes: a positive multiple of 4096, not ${sizeBytes}`);
  if (!['discard', 'sparse'].includes(backing)) throw new RangeError(`backing: 'discard' or 'sparse', not '${backing}'`);
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(name)) throw new RangeError(`name: letters, digits, . _ -, not '${name}'`);
  const home = join(dir, `${name}.backing`);
  mkdirSync(home, { recursive: true });
  let mounted = false;
  if (backing === 'discard') {
    run('mount', ['-t', 'tmpfs', '-o', `size=${tmpfsBytes},mode=0700`, `${PREFIX}tmpfs`, home]);
    mounted = true;
  } else {
    checkRoom(home, expectedWriteBytes);
  }
  const file = join(home, 'device.img');
  let device: string;
  try {
    writeFileSync(file, '', { mode: 0o600 });
    run('truncate', ['-s', String(sizeBytes), file]);
    device = run('losetup', ['--find', '--show', '--direct-io=on', file]);
  } catch (err) {
    if (mounted) run('umount', [home]);
    rmSync(home, { recursive: true, force: true });
    throw err;
  }
  const majMin = deviceNumbers(device);
  const label = `${device} (${majMin}) over ${file}`;
  // The kernel names the backing file by its real path.
  const real = realpathSync(file);
  try {
    checkBacking(label, majMin, real);
  } catch (err) {
    // The name losetup printed is not ours: detach only what is backed by this file.
    for (const ours of run('losetup', ['-n', '-O', 'NAME', '-j', real]).split('\n').filter(Boolean)) run('losetup', ['-d', ours.trim()]);
    if (mounted) run('umount', ['-l', home]);
    rmSync(home, { recursive: true, force: true });
    throw err;
  }
  let punching = false;
  let punches = 0;
  const timer = backing === 'discard' ? setInterval(() => {
    if (punching) return;
    if (statSync(file).blocks === 0) return;
    punching = true;
    execFile('fallocate', ['--punch-hole', '--offset', '0', '--length', String(sizeBytes), file], () => {
      punching = false;
      punches += 1;
    });
  }, punchIntervalMs) : undefined;
  timer?.unref();
  return {
    device,
    majMin,
    /** The device by name, numbers and backing file, for messages. */
    label,
    sizeBytes,
    backing,
    file,
    /** Throws naming the device unless MAJ:MIN is still this volume's loop device. */
    check: () => checkBacking(label, majMin, real),
    get punches() {
      return punches;
    },
    /** Bytes the backing holds now (what the host pays for the volume). */
    heldBytes: () => statSync(file).blocks * 512,
    close() {
      clearInterval(timer);
      try {
        run('losetup', ['-d', device]);
      } catch {
        // Already detached.
      }
      if (mounted) {
        try {
          run('umount', [home]);
        } catch {
          run('umount', ['-l', home]);
        }
      }
      rmSync(home, { recursive: true, force: true });
    },
  };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Removes what rehearsal runs that are no longer alive left: their loop devices, tmpfs mounts and
 * directories under `parent`, their members' network namespaces (and so their veth pairs), and
 * their blkio groups. Answers what it removed.
 */
export function sweepStale(parent: string = tmpdir()): string[] {
  const removed: string[] = [];
  for (const ns of run('ip', ['netns', 'list']).split('\n').map((l) => l.split(' ')[0]).filter(Boolean)) {
    const m = new RegExp(`^${PREFIX}(\\d+)-`).exec(ns);
    if (!m || alive(Number(m[1]))) continue;
    run('ip', ['netns', 'del', ns]);
    removed.push(`netns ${ns}`);
  }
  for (const group of BlkioGroup.stale(alive)) {
    for (const pid of group.pids()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    try {
      group.remove();
      removed.push(group.dir);
    } catch {
      // Its last processes are still exiting: the next sweep takes it.
    }
  }
  const loops: { name: string; 'back-file'?: string }[] = JSON.parse(run('losetup', ['--json', '--list']) || '{"loopdevices":[]}').loopdevices ?? [];
  for (const entry of readdirSync(parent)) {
    const m = new RegExp(`^${PREFIX}(\\d+)-`).exec(entry);
    if (!m || alive(Number(m[1]))) continue;
    const path = join(parent, entry);
    for (const loop of loops) {
      if (loop['back-file']?.startsWith(`${path}/`)) {
        run('losetup', ['-d', loop.name]);
        removed.push(loop.name);
      }
    }
    const mounts = run('findmnt', ['-rn', '-o', 'TARGET']).split('\n').filter((t) => t.startsWith(`${path}/`)).sort().reverse();
    for (const target of mounts) {
      run('umount', ['-l', target]);
      removed.push(target);
    }
    rmSync(path, { recursive: true, force: true });
    removed.push(path);
  }
  return removed;
}
