/**
 * What reached the block device under a directory while a tool ran: the kernel's own counters
 * (/sys/dev/block/<major:minor>/stat, the same numbers as /proc/diskstats), so a test can tell a
 * run that read the disk from one that read the page cache, whichever tool it was.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';

import { decodeDevT } from '../../src/device/index.js';

export interface DiskTraffic {
  readBytes: number;
  writtenBytes: number;
}

const SECTOR = 512;

/** The stat file of the device holding `dir`'s filesystem, or undefined when it has none (tmpfs). */
export function diskStatFile(dir: string): string | undefined {
  const { major, minor } = decodeDevT(statSync(dir, { bigint: true }).dev);
  const file = `/sys/dev/block/${major}:${minor}/stat`;
  try {
    readFileSync(file);
    return file;
  } catch {
    return undefined;
  }
}

function sectors(file: string): [number, number] {
  const fields = readFileSync(file, 'utf8').trim().split(/\s+/).map(Number);
  return [fields[2], fields[6]];
}

/**
 * Bytes read from and written to the device while `work` ran. Dirty pages from before are
 * written out first (sync), and the run's own are before the second reading, so each run is
 * charged with its own writes. Other processes' I/O can only add to the counts: tests bound
 * them from below.
 */
export async function diskTraffic(statFile: string, work: () => Promise<unknown>): Promise<DiskTraffic> {
  execFileSync('sync');
  const [r0, w0] = sectors(statFile);
  await work();
  execFileSync('sync');
  const [r1, w1] = sectors(statFile);
  return { readBytes: (r1 - r0) * SECTOR, writtenBytes: (w1 - w0) * SECTOR };
}
