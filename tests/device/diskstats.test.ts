import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  diskUtilDelta,
  diskUtilDevices,
  identifyTarget,
  parseDiskStat,
  snapshotDiskStats,
  type DiskStatsSnapshot,
} from '../../src/device/index.js';
import { requires } from '../helpers/requires.js';
import { buildFakeSysfs, statFields } from './fake-sysfs.js';
import { TargetFixtures } from '../helpers/target-fixtures.js';

const needs = requires('child', 'tmpfs', 'loop');

const MiB = 1024 * 1024;

function counters(fields: number[]) {
  const c = parseDiskStat(fields.join(' '));
  if (c === null) throw new Error('bad stat fixture');
  return c;
}

describe('parseDiskStat', () => {
  it('reads the first eleven fields of a 17-field stat line', () => {
    const line = '   35036     6603  2811706    36845     8321    12376  1053384     4516        0    13488    42481     3617       35   201984     1088      754       31';
    expect(parseDiskStat(line)).toEqual({
      readIos: 35036,
      readMerges: 6603,
      readSectors: 2811706,
      readTicks: 36845,
      writeIos: 8321,
      writeMerges: 12376,
      writeSectors: 1053384,
      writeTicks: 4516,
      inFlight: 0,
      ioTicks: 13488,
      timeInQueue: 42481,
    });
  });

  it('rejects a line fio would reject (fewer than eleven fields)', () => {
    expect(parseDiskStat('1 2 3 4 5 6 7 8 9 10')).toBeNull();
    expect(parseDiskStat(null)).toBeNull();
  });
});

describe('diskUtilDelta', () => {
  it("reports fio's deltas and util = 100·Δio_ticks/Δms", () => {
    const before: DiskStatsSnapshot = {
      takenAtMs: 1000,
      devices: [{ name: 'vda', slaves: [], statFile: '', counters: counters(statFields({ rios: 10, wios: 5, ioticks: 100, inqueue: 50 })) }],
    };
    const after: DiskStatsSnapshot = {
      takenAtMs: 3000,
      devices: [
        {
          name: 'vda',
          slaves: [],
          statFile: '',
          counters: counters(statFields({ rios: 110, rmerge: 3, rticks: 40, wios: 25, wmerge: 1, wticks: 9, ioticks: 1844, inqueue: 1050 })),
        },
      ],
    };
    expect(diskUtilDelta(before, after)).toEqual([
      { name: 'vda', read_ios: 100, write_ios: 20, read_merges: 3, write_merges: 1, read_ticks: 40, write_ticks: 9, in_queue: 1000, util: 87.2 },
    ]);
  });

  // A read job that lays its file out: fio takes its baseline after the layout, so the layout's
  // writes and time are not the job's. Before, volbench reported them (30 writes on a 32 MiB read).
  it('leaves out an excluded interval: its counts and its time', () => {
    const at = (t: number, f: Parameters<typeof statFields>[0]): DiskStatsSnapshot =>
      ({ takenAtMs: t, devices: [{ name: 'vda', slaves: [], statFile: '', counters: counters(statFields(f)) }] });
    const before = at(0, {});
    const laidOut = at(1000, { wios: 30, wmerge: 6, wticks: 85, ioticks: 500, inqueue: 90 });
    const after = at(3000, { rios: 8192, rticks: 1200, wios: 30, wmerge: 6, wticks: 85, ioticks: 1500, inqueue: 1290 });
    expect(diskUtilDelta(before, after, [{ from: before, to: laidOut }])).toEqual([
      { name: 'vda', read_ios: 8192, write_ios: 0, read_merges: 0, write_merges: 0, read_ticks: 1200, write_ticks: 0, in_queue: 1200, util: 50 },
    ]);
  });

  it('caps util at 100 and reads counters that went backwards as 0', () => {
    const before: DiskStatsSnapshot = {
      takenAtMs: 0,
      devices: [{ name: 'loop0', slaves: [], statFile: '', counters: counters(statFields({ wios: 500, ioticks: 0 })) }],
    };
    const after: DiskStatsSnapshot = {
      takenAtMs: 10,
      devices: [{ name: 'loop0', slaves: [], statFile: '', counters: counters(statFields({ wios: 3, ioticks: 50 })) }],
    };
    expect(diskUtilDelta(before, after)[0]).toMatchObject({ write_ios: 0, util: 100 });
  });

  it("gives a stacked device its slaves' integer means and the busiest slave's util", () => {
    const at = (t: number, md0: number[], sda: number[], sdb: number[]): DiskStatsSnapshot => ({
      takenAtMs: t,
      devices: [
        { name: 'md0', slaves: ['sda', 'sdb'], statFile: '', counters: counters(md0) },
        { name: 'sda', slaves: [], statFile: '', counters: counters(sda) },
        { name: 'sdb', slaves: [], statFile: '', counters: counters(sdb) },
      ],
    });
    const zero = statFields({});
    const before = at(0, zero, zero, zero);
    const after = at(
      2000,
      statFields({ wios: 100, ioticks: 1000 }),
      statFields({ rios: 3, wios: 51, wmerge: 1, wticks: 7, ioticks: 900, inqueue: 11 }),
      statFields({ rios: 4, wios: 50, wmerge: 2, wticks: 8, ioticks: 1500, inqueue: 12 }),
    );
    const [md0, sda, sdb] = diskUtilDelta(before, after);
    expect(md0).toEqual({
      name: 'md0', read_ios: 0, write_ios: 100, read_merges: 0, write_merges: 0, read_ticks: 0, write_ticks: 0, in_queue: 0, util: 50,
      aggr_read_ios: 3, aggr_write_ios: 50, aggr_read_merges: 0, aggr_write_merge: 1, aggr_read_ticks: 0, aggr_write_ticks: 7, aggr_in_queue: 11, aggr_util: 75,
    });
    // fio lists the slaves as entries of their own, without aggr_ keys.
    expect(Object.keys(md0).slice(0, 9)).toEqual(['name', 'read_ios', 'write_ios', 'read_merges', 'write_merges', 'read_ticks', 'write_ticks', 'in_queue', 'util']);
    expect(sda).not.toHaveProperty('aggr_util');
    expect(sdb.util).toBe(75);
  });
});

describe('snapshotDiskStats on a fixture sysfs', () => {
  const root = mkdtempSync(join(tmpdir(), `volbench-diskstats-${process.pid}-`));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  buildFakeSysfs(root, [
    { name: 'dm-0', devnum: '253:0', stat: statFields({ wios: 7 }), slaves: ['sdb1', 'sdc'] },
    { name: 'sdb', devnum: '8:16', stat: statFields({ wios: 3 }) },
    { name: 'sdb1', devnum: '8:17', partitionOf: 'sdb', stat: statFields({ wios: 1 }) },
    { name: 'sdc', devnum: '8:32', stat: statFields({ wios: 4 }) },
  ]);

  it('reports a partition as its whole disk, as fio does', async () => {
    const snap = await snapshotDiskStats(['sdb1'], { sysfsRoot: root });
    expect(snap.devices).toEqual([{ name: 'sdb', slaves: [], statFile: join(root, 'block', 'sdb', 'stat'), counters: expect.objectContaining({ writeIos: 3 }) }]);
  });

  it('follows a stacked device with its slaves, partitions taken as their disks', async () => {
    const snap = await snapshotDiskStats(['dm-0', 'sdb'], { sysfsRoot: root });
    expect(snap.devices[0].name).toBe('dm-0');
    expect([...snap.devices[0].slaves].sort()).toEqual(['sdb', 'sdc']);
    expect(snap.devices.map((d) => d.name).sort()).toEqual(['dm-0', 'sdb', 'sdc']);
  });

  it('links a slave only when the walk added it (fio skips slaves it already watches)', async () => {
    const snap = await snapshotDiskStats(['sdc', 'dm-0'], { sysfsRoot: root });
    expect(snap.devices.map((d) => d.name)).toEqual(['sdc', 'dm-0', 'sdb']);
    expect(snap.devices[1].slaves).toEqual(['sdb']);
  });

  it('skips names sysfs does not know', async () => {
    expect((await snapshotDiskStats(['nosuchdisk'], { sysfsRoot: root })).devices).toEqual([]);
  });
});

describe('disk_util for real devices', () => {
  it('watches the disk under a file and nothing for tmpfs', async () => {
    const onDisk = await identifyTarget(tmpdir());
    const onTmpfs = await identifyTarget('/dev/shm');
    const names = diskUtilDevices([onDisk, onTmpfs, onDisk]);
    expect(names).toEqual(onDisk.disk === null ? [] : [onDisk.disk]);
    const before = await snapshotDiskStats(names);
    const after = await snapshotDiskStats(names);
    for (const entry of diskUtilDelta(before, after)) {
      expect(entry.util).toBeGreaterThanOrEqual(0);
      expect(entry.util).toBeLessThanOrEqual(100);
    }
  });

  const loopReason = needs.missing('loop');
  describe.skipIf(loopReason !== undefined)(`on a loop device${loopReason === undefined ? '' : ` (skipped: ${loopReason})`}`, () => {
    let fx: TargetFixtures;
    let dev = '';
    beforeAll(() => {
      fx = new TargetFixtures('diskstats');
      dev = fx.attachLoop(fx.image('stats.img', 32 * MiB));
    });
    afterAll(() => fx?.release());

    it('counts 8 MiB of O_DIRECT writes and keeps util within [0, 100]', async () => {
      const name = basename(dev);
      const before = await snapshotDiskStats([name]);
      execFileSync('dd', ['if=/dev/zero', `of=${dev}`, 'bs=1M', 'count=8', 'oflag=direct'], { stdio: 'ignore' });
      const after = await snapshotDiskStats([name]);
      const [util] = diskUtilDelta(before, after);
      expect(util.name).toBe(name);
      expect(util.write_ios).toBeGreaterThan(0);
      expect(util.util).toBeGreaterThanOrEqual(0);
      expect(util.util).toBeLessThanOrEqual(100);
      const sectors = (after.devices[0].counters?.writeSectors ?? 0) - (before.devices[0].counters?.writeSectors ?? 0);
      expect(sectors).toBeGreaterThanOrEqual((8 * MiB) / 512);
    });
  });
});
