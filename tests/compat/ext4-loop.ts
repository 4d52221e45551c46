/**
 * A small ext4 filesystem on a loop device of its own (its image in /dev/shm), mounted noatime so
 * that reading a file writes nothing: buffered jobs on it reach a block device whose counters
 * (/sys/block/loopN/stat) count only what the tools did, request by request. A file that uses it
 * declares the loop and mkfs requirements.
 */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

import { run, TargetFixtures } from '../helpers/target-fixtures.js';

export interface DeviceReads {
  requests: number;
  sectors: number;
  writes: number;
  writtenSectors: number;
}

export interface Ext4Loop {
  /** The mount point. */
  dir: string;
  /** The device's counters (/sys/block/loopN/stat). */
  statFile: string;
  /** Requests the device completed while `work` ran. */
  reads(work: () => Promise<unknown>): Promise<DeviceReads>;
  release(): void;
}

export function makeExt4Loop(label: string, imageBytes = 256 << 20): Ext4Loop {
  const fixtures = new TargetFixtures(label, '/dev/shm');
  try {
    const device = fixtures.attachLoop(fixtures.image('ext4.img', imageBytes));
    // Inode tables and journal written now, not by ext4lazyinit in the background while a tool runs.
    run('mkfs.ext4', ['-q', '-F', '-E', 'lazy_itable_init=0,lazy_journal_init=0', device]);
    const dir = fixtures.mount(device, 'mnt', ['-o', 'noatime']);
    const statFile = join('/sys/block', basename(device), 'stat');
    const counters = (): number[] => readFileSync(statFile, 'utf8').trim().split(/\s+/).map(Number);
    return {
      dir,
      statFile,
      async reads(work) {
        const before = counters();
        await work();
        const after = counters();
        return {
          requests: after[0] - before[0], sectors: after[2] - before[2], writes: after[4] - before[4], writtenSectors: after[6] - before[6],
        };
      },
      release: () => fixtures.release(),
    };
  } catch (err) {
    fixtures.release();
    throw err;
  }
}
