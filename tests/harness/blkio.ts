// The kernel's block throttle (cgroup v1 blkio) for one group of processes: limits per device,
// and the counters the throttle keeps (I/Os and bytes it charged, per direction). A group lives
// under /sys/fs/cgroup/blkio/volbench-rehearsal/; a process joins it by its pid, and its children
// stay in it. Nothing here touches a device that is not named.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Direction, KernelLimits } from './throttle-model.js';

export interface Counters { read: { bios: number; bytes: number }; write: { bios: number; bytes: number } }
export interface DeviceStat { read: { ios: number; bytes: number }; write: { ios: number; bytes: number } }

export const BLKIO_ROOT = '/sys/fs/cgroup/blkio';
const PARENT = join(BLKIO_ROOT, 'volbench-rehearsal');
const LIMIT_FILES = {
  read: { iops: 'blkio.throttle.read_iops_device', bps: 'blkio.throttle.read_bps_device' },
  write: { iops: 'blkio.throttle.write_iops_device', bps: 'blkio.throttle.write_bps_device' },
};

/** "MAJ:MIN" of a block device node, from sysfs. */
export function deviceNumbers(devicePath: string): string {
  const name = devicePath.replace(/^\/dev\//, '');
  if (!/^[a-z0-9]+$/.test(name)) throw new TypeError(`${devicePath}: a /dev/NAME block device`);
  return readFileSync(`/sys/class/block/${name}/dev`, 'utf8').trim();
}

/** What the device itself completed (sectors are true bytes / 512, each piece of a split I/O once). */
export function deviceStat(majMin: string): DeviceStat {
  const f = readFileSync(`/sys/dev/block/${majMin}/stat`, 'utf8').trim().split(/\s+/).map(Number);
  return { read: { ios: f[0], bytes: f[2] * 512 }, write: { ios: f[4], bytes: f[6] * 512 } };
}

function parseRwstat(text: string, majMin: string): Record<Direction, number> {
  const out = { read: 0, write: 0 };
  for (const line of text.split('\n')) {
    const [dev, op, value] = line.trim().split(/\s+/);
    if (dev !== majMin) continue;
    if (op === 'Read') out.read = Number(value);
    if (op === 'Write') out.write = Number(value);
  }
  return out;
}

export class BlkioGroup {
  readonly dir: string;
  /** What this group wrote, per "MAJ:MIN file": only what changed is written again. */
  private readonly written: Map<string, number>;
  /** Devices count() made the kernel count, and checked that it does. */
  private readonly counted: Set<string>;

  /**
   * A new group, named NAME-PID after this process (so that a sweep can tell a dead run's groups
   * from a live one's); NAME: lower-case letters, digits, dashes.
   */
  static create(name: string): BlkioGroup {
    if (!/^[a-z0-9][a-z0-9-]{0,40}$/.test(name)) throw new TypeError(`blkio group name '${name}': lower-case letters, digits, dashes`);
    const dir = join(PARENT, `${name}-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    return new BlkioGroup(dir);
  }

  /** Groups of processes that are gone (NAME-PID with PID dead), for sweepStale. */
  static stale(alive: (pid: number) => boolean): BlkioGroup[] {
    if (!existsSync(PARENT)) return [];
    return readdirSync(PARENT, { withFileTypes: true })
      .filter((e) => e.isDirectory() && /-(\d+)$/.test(e.name) && !alive(Number(/-(\d+)$/.exec(e.name)![1])))
      .map((e) => new BlkioGroup(join(PARENT, e.name)));
  }

  constructor(dir: string) {
    this.dir = dir;
    this.written = new Map();
    this.counted = new Set();
  }

  /**
   * Makes the kernel count this group's bios on the device from now on. The throttle keeps no
   * counters for a device until a rule names it (any group's; it then counts for the device's
   * life): a loop device made fresh, while other processes held the older ones, counted 0 bios
   * for every I/O done on it. A rule of 0 limits nothing; the group's counters must then list the
   * device, or this throws naming it.
   */
  count(majMin: string): void {
    if (this.counted.has(majMin)) return;
    // Rules of its own already name the device (set by a throttle): those are left as they are.
    if (![...this.written.keys()].some((id) => id.startsWith(`${majMin} `))) this.setLimits(majMin, {});
    const listed = readFileSync(join(this.dir, 'blkio.throttle.io_serviced'), 'utf8').split('\n').some((l) => l.startsWith(`${majMin} `));
    if (!listed) throw new Error(`blkio group ${this.dir}: the kernel's throttle does not count device ${majMin} (no counters after a rule named it)`);
    this.counted.add(majMin);
  }

  /** Moves a process (and so its future children) into the group. */
  addPid(pid: number): void {
    writeFileSync(join(this.dir, 'cgroup.procs'), `${pid}\n`);
  }

  /**
   * Spawns `cmd args` inside the group from its first instruction: a shell joins the group, then
   * execs the command (joining after spawn would let its first I/Os through unthrottled).
   */
  spawn(cmd: string, args: string[] = [], options: SpawnOptions = {}): ChildProcess {
    return spawn('/bin/sh', ['-c', 'echo $$ > "$0" && exec "$@"', join(this.dir, 'cgroup.procs'), cmd, ...args], options);
  }

  pids(): number[] {
    return readFileSync(join(this.dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  }

  /** Sets { read: { iops, bps }, write: { iops, bps } } on the device, 0 for none; only what changed is written. */
  setLimits(majMin: string, limits: Partial<KernelLimits>): void {
    for (const dir of ['read', 'write'] as const) {
      for (const key of ['iops', 'bps'] as const) {
        const value = Math.max(0, Math.round(limits[dir]?.[key] ?? 0));
        const file = LIMIT_FILES[dir][key];
        const id = `${majMin} ${file}`;
        if (this.written.get(id) === value) continue;
        // The kernel refuses to remove a rule that does not exist (ENODEV on some kernels): nothing to do then.
        try {
          writeFileSync(join(this.dir, file), `${majMin} ${value}\n`);
        } catch (err) {
          if (value !== 0) throw err;
        }
        this.written.set(id, value);
      }
    }
  }

  /** The limits the kernel holds now for the device, as it reads them back. */
  limits(majMin: string): KernelLimits {
    const read = (file: string) => {
      const line = readFileSync(join(this.dir, file), 'utf8').split('\n').find((l) => l.startsWith(`${majMin} `));
      return line ? Number(line.split(' ')[1]) : 0;
    };
    return {
      read: { iops: read(LIMIT_FILES.read.iops), bps: read(LIMIT_FILES.read.bps) },
      write: { iops: read(LIMIT_FILES.write.iops), bps: read(LIMIT_FILES.write.bps) },
    };
  }

  /** What the throttle charged to this group on the device since count(majMin): bios and bytes per direction. */
  counters(majMin: string): Counters {
    if (!this.counted.has(majMin)) throw new Error(`blkio group ${this.dir} reads counters of ${majMin} without count('${majMin}') first: the kernel may be counting nothing there`);
    const ios = parseRwstat(readFileSync(join(this.dir, 'blkio.throttle.io_serviced'), 'utf8'), majMin);
    const bytes = parseRwstat(readFileSync(join(this.dir, 'blkio.throttle.io_service_bytes'), 'utf8'), majMin);
    return { read: { bios: ios.read, bytes: bytes.read }, write: { bios: ios.write, bytes: bytes.write } };
  }

  /** Removes the group; it must hold no process (end them first). */
  remove(): void {
    for (const id of this.written.keys()) {
      const [majMin, file] = id.split(' ');
      try {
        writeFileSync(join(this.dir, file), `${majMin} 0\n`);
      } catch {
        // Gone with its device.
      }
    }
    // A member ended a moment ago may still be listed (an exiting task leaves the group as it is
    // reaped): the kernel refuses the rmdir with EBUSY until then. Whatever is left is moved to the
    // root group, so no slow exit on a loaded machine fails a test that passed.
    for (let tries = 0; ; tries++) {
      try {
        rmdirSync(this.dir);
        return;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') return;
        if (code !== 'EBUSY' || tries >= 50) throw new Error(`blkio group ${this.dir} cannot be removed (${code}); it holds: ${this.pids().join(' ') || 'nothing listed'}`);
      }
      for (const pid of this.pids()) {
        try {
          writeFileSync(join(BLKIO_ROOT, 'cgroup.procs'), String(pid));
        } catch {
          // Gone meanwhile.
        }
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
}
