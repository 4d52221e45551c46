import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeDevT, encodeDevT, sysfsBlockDir, sysfsBlockDirByName } from '../../src/device/index.js';
import { requires } from '../helpers/requires.js';
import { buildFakeSysfs, statFields } from './fake-sysfs.js';

requires();

describe('decodeDevT', () => {
  it('splits dev_t values the way glibc major()/minor() do', () => {
    // Values from Python's os.makedev, which wraps glibc's makedev().
    expect(decodeDevT(66305)).toEqual({ major: 259, minor: 1 });
    expect(decodeDevT(1048575)).toEqual({ major: 4095, minor: 255 });
    expect(decodeDevT(17592187092992)).toEqual({ major: 4096, minor: 256 });
    expect(decodeDevT(316705466435055n)).toEqual({ major: 0x12345, minor: 0xabcdef });
  });

  it('round-trips through encodeDevT', () => {
    for (const n of [{ major: 8, minor: 17 }, { major: 0x12345, minor: 0xabcdef }, { major: 0, minor: 0 }]) {
      expect(decodeDevT(encodeDevT(n))).toEqual(n);
    }
  });

  it('agrees with the bigint and number forms of fs.stat', () => {
    const asNumber = statSync('/');
    const asBigint = statSync('/', { bigint: true });
    expect(decodeDevT(asNumber.dev)).toEqual(decodeDevT(asBigint.dev));
  });
});

describe('sysfsBlockDir', () => {
  const root = mkdtempSync(join(tmpdir(), `volbench-devnum-${process.pid}-`));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  buildFakeSysfs(root, [
    { name: 'sdb', devnum: '8:16', stat: statFields({}) },
    { name: 'sdb1', devnum: '8:17', partitionOf: 'sdb', stat: statFields({}) },
  ]);

  it('finds the device that holds the root filesystem', () => {
    const { major, minor } = decodeDevT(statSync('/', { bigint: true }).dev);
    const dev = sysfsBlockDir(major, minor);
    expect(dev).not.toBeNull();
    expect(dev?.major).toBe(major);
    expect(dev?.minor).toBe(minor);
    expect(dev?.dir.startsWith('/sys/devices/')).toBe(true);
  });

  it('answers null for a filesystem without a block device (major 0)', () => {
    const { major, minor } = decodeDevT(statSync('/proc', { bigint: true }).dev);
    expect(major).toBe(0);
    expect(sysfsBlockDir(major, minor)).toBeNull();
  });

  it('names a partition and its whole disk', () => {
    const part = sysfsBlockDir(8, 17, root);
    expect(part).toMatchObject({ name: 'sdb1', isPartition: true, disk: 'sdb' });
    expect(part?.diskDir).toBe(sysfsBlockDirByName('sdb', root)?.dir);
    expect(sysfsBlockDir(8, 16, root)).toMatchObject({ name: 'sdb', isPartition: false, disk: 'sdb' });
  });

  it('rejects names that would escape /sys/class/block', () => {
    expect(sysfsBlockDirByName('../block/sdb', root)).toBeNull();
    expect(sysfsBlockDirByName('nosuchdisk', root)).toBeNull();
  });
});
