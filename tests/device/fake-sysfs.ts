/**
 * A miniature sysfs for layouts this machine cannot make (a device-mapper device over a
 * partition and a disk): real directories and symlinks laid out the way the kernel lays them out.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface FakeDevice {
  name: string;
  devnum: string;
  /** Parent disk's name for a partition. */
  partitionOf?: string;
  stat: number[];
  slaves?: string[];
  /** Names listed in holders/ (the kernel makes them links to the holders' directories). */
  holders?: string[];
}

/** Builds the tree under `root` and returns it. */
export function buildFakeSysfs(root: string, devices: FakeDevice[]): string {
  const dirOf = new Map<string, string>();
  for (const d of devices.filter((x) => x.partitionOf === undefined)) {
    dirOf.set(d.name, join(root, 'devices', 'virtual', 'block', d.name));
  }
  for (const d of devices.filter((x) => x.partitionOf !== undefined)) {
    dirOf.set(d.name, join(dirOf.get(d.partitionOf as string) as string, d.name));
  }
  for (const dir of ['class/block', 'dev/block', 'block']) mkdirSync(join(root, dir), { recursive: true });
  for (const d of devices) {
    const dir = dirOf.get(d.name) as string;
    mkdirSync(join(dir, 'holders'), { recursive: true });
    for (const h of d.holders ?? []) mkdirSync(join(dir, 'holders', h));
    writeFileSync(join(dir, 'dev'), `${d.devnum}\n`);
    writeFileSync(join(dir, 'stat'), `${d.stat.map((n) => String(n).padStart(8)).join(' ')}\n`);
    if (d.partitionOf !== undefined) writeFileSync(join(dir, 'partition'), '1\n');
    else mkdirSync(join(dir, 'queue'));
    const link = (at: string): void => symlinkSync(relative(join(at, '..'), dir), at);
    link(join(root, 'class', 'block', d.name));
    link(join(root, 'dev', 'block', d.devnum));
    if (d.partitionOf === undefined) link(join(root, 'block', d.name));
  }
  for (const d of devices) {
    const slavesDir = join(dirOf.get(d.name) as string, 'slaves');
    mkdirSync(slavesDir, { recursive: true });
    for (const s of d.slaves ?? []) symlinkSync(relative(slavesDir, dirOf.get(s) as string), join(slavesDir, s));
  }
  return root;
}

/** A stat line's 17 fields with the eleven fio reads set from `c`. */
export function statFields(c: {
  rios?: number; rmerge?: number; rsect?: number; rticks?: number;
  wios?: number; wmerge?: number; wsect?: number; wticks?: number;
  ioticks?: number; inqueue?: number;
}): number[] {
  return [
    c.rios ?? 0, c.rmerge ?? 0, c.rsect ?? 0, c.rticks ?? 0,
    c.wios ?? 0, c.wmerge ?? 0, c.wsect ?? 0, c.wticks ?? 0,
    0, c.ioticks ?? 0, c.inqueue ?? 0, 0, 0, 0, 0, 0, 0,
  ];
}
