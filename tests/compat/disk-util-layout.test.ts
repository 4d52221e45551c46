/**
 * disk_util of a read job that lays out its file: fio writes the file (and syncs it) before it
 * reads the devices' counters, so its disk_util shows the job's reads and no writes.
 *
 * Broke: volbench read the counters before laying the file out: a 32 MiB randread on a new file
 * reported write_ios=30 and write_ticks for the layout's writes. Expected: no writes, and every
 * read the job made (fio, whose counters stop at its helper thread's last 250 ms tick before the
 * job closes its file, shows some of them).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import { makeExt4Loop, type Ext4Loop } from './ext4-loop.js';
import { makeWorkspace, runFio, runVolbench, titled, type Pair, type Workspace } from './side-by-side.js';

const needs = requires('tmpfs', 'loop', 'mkfs', 'fio');

const reason = needs.missing('fio', 'loop', 'mkfs');

describe.skipIf(reason !== undefined)(titled("disk_util leaves out the layout's writes, as fio", reason), () => {
  let disk: Ext4Loop;
  let ws: Workspace;
  let pair: Pair;

  beforeAll(async () => {
    disk = makeExt4Loop('disk-util');
    ws = makeWorkspace('memory', 'disk-util');
    // Each tool lays out a file of its own.
    const job = (name: string): string[] => ['--name=rr', `--filename=${join(disk.dir, name)}`, '--size=32m', '--rw=randread',
      '--bs=4k', '--ioengine=psync', '--output-format=json'];
    pair = { fio: await runFio(job('fio.bin'), ws.fioDir), volbench: await runVolbench(job('volbench.bin'), ws.volbenchDir) };
  });
  afterAll(() => {
    ws?.remove();
    disk?.release();
  });

  it('both tools laid out their file', () => {
    for (const tool of ['fio', 'volbench'] as const) expect(pair[tool].json.jobs[0].read.io_bytes, tool).toBe(32 << 20);
    expect(pair.volbench.json.volbench.jobs[0].laid_out).toHaveLength(1);
  });

  it('reports no writes for the read job, in both tools', () => {
    for (const tool of ['fio', 'volbench'] as const) {
      const [util] = pair[tool].json.disk_util;
      expect(util.name, tool).toMatch(/^loop\d+$/);
      expect(util.write_ios, tool).toBe(0);
      expect(util.write_merges, tool).toBe(0);
      expect(util.write_ticks, tool).toBe(0);
    }
  });

  it("counts every read the job made (fio's stop at its last tick before the job ends)", () => {
    // Each 4k read reaches the device once (fadvise_hint); ext4 may read a few blocks of its own.
    expect(pair.volbench.json.disk_util[0].read_ios).toBeGreaterThanOrEqual(8192);
    expect(pair.volbench.json.disk_util[0].read_ios).toBeLessThan(8192 + 8);
    expect(pair.fio.json.disk_util[0].read_ios).toBeLessThanOrEqual(8192);
  });
});
