/**
 * The in-use rules for partitions and holders, which this machine's kernel cannot produce on a
 * loop device: a fixture sysfs disk whose partition carries the major:minor of the real root
 * filesystem, so the real /proc/self/mountinfo shows it mounted.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeDevT, sysfsBlockDirByName } from '../../src/device/index.js';
import { parseSwaps } from '../../src/device/swaps.js';
import { usageOfDevice } from '../../src/device/usage.js';
import { requires } from '../helpers/requires.js';
import { buildFakeSysfs, statFields } from './fake-sysfs.js';

requires();

describe('usageOfDevice', () => {
  const root = mkdtempSync(join(tmpdir(), `volbench-usage-${process.pid}-`));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const rootDev = decodeDevT(statSync('/', { bigint: true }).dev);
  buildFakeSysfs(root, [
    { name: 'sdx', devnum: '259:900', stat: statFields({}) },
    { name: 'sdx1', devnum: `${rootDev.major}:${rootDev.minor}`, partitionOf: 'sdx', stat: statFields({}) },
    { name: 'sdx2', devnum: '259:902', partitionOf: 'sdx', stat: statFields({}), holders: ['dm-7'] },
  ]);

  it('sees a mounted partition and a partition held by device-mapper', async () => {
    const disk = sysfsBlockDirByName('sdx', root);
    expect(disk).not.toBeNull();
    const usage = await usageOfDevice(disk!, null);
    expect(usage.mountPoints).toEqual([]);
    expect(usage.mountedPartitions).toEqual(['sdx1']);
    expect(usage.holders).toEqual(['dm-7']);
  });

  it('checks a partition on its own, not its siblings', async () => {
    const part = sysfsBlockDirByName('sdx2', root);
    const usage = await usageOfDevice(part!, null);
    expect(usage).toMatchObject({ mountPoints: [], mountedPartitions: [], holders: ['dm-7'] });
  });
});

describe('parseSwaps', () => {
  it('reads names (with escaped blanks) and types', () => {
    const text = [
      'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority',
      '/dev/zram0                              partition\t8388604\t\t0\t\t100',
      '/swap\\040file                           file\t\t1048572\t\t0\t\t-2',
      '',
    ].join('\n');
    expect(parseSwaps(text)).toEqual([
      { path: '/dev/zram0', type: 'partition' },
      { path: '/swap file', type: 'file' },
    ]);
  });
});
