/**
 * --bs=4k --blockalign=64k --rw=randread --size=16m: fio aligns every offset to 64 KiB (its 4,096
 * reads land on the 256 aligned blocks) and warns "fio: Any use of blockalign= turns off
 * randommap" on stderr. volbench kept its random map and ignored blockalign: 256 of its 4,096
 * offsets were aligned, and it said nothing. Expected: every offset aligned as in fio, the map
 * off, and fio's warning on the CLI's stderr and in volbench.jobs[].notes.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { volbench } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';
import { loggedIos, type LoggedIo } from './io-log.js';
import { makeWorkspace, runBoth, titled, type Pair, type Workspace } from './side-by-side.js';

const needs = requires('child', 'tmpfs', 'fio', 'dist');

const reason = needs.missing('fio');
const ALIGN = 64 << 10;
const WARNING = 'Any use of blockalign= turns off randommap';

describe.skipIf(reason !== undefined)(titled('blockalign aligns random offsets and turns the map off', reason), () => {
  let ws: Workspace;
  let args: string[];
  let pair: Pair;
  let fioIos: LoggedIo[];
  let volbenchIos: LoggedIo[];

  beforeAll(async () => {
    ws = makeWorkspace('memory', 'blockalign');
    args = [
      '--name=aligned', `--filename=${join(ws.dir, 'target.bin')}`, '--size=16m', '--ioengine=psync', '--rw=randread',
      '--bs=4k', '--blockalign=64k', '--write_iops_log=io', '--log_offset=1', '--output-format=json',
    ];
    pair = await runBoth(args, ws);
    fioIos = loggedIos(ws.fioDir, 'io_iops.1.log');
    volbenchIos = loggedIos(ws.volbenchDir, 'io_iops.1.log');
  });
  afterAll(() => ws?.remove());

  it('every offset is a multiple of 64 KiB, in both tools', () => {
    for (const ios of [fioIos, volbenchIos]) {
      expect(ios).toHaveLength(4096);
      expect(ios.filter((io) => io.offset % ALIGN !== 0)).toEqual([]);
    }
  });

  it('the 4,096 reads fall on the 256 aligned blocks, blocks repeating as without a map', () => {
    for (const ios of [fioIos, volbenchIos]) expect(new Set(ios.map((io) => io.offset)).size).toBe(256);
  });

  it('the warning fio prints on stderr is in volbench.jobs[].notes', () => {
    expect(pair.volbench.json.volbench.jobs[0].notes).toEqual([WARNING]);
  });

  it('the CLI prints it on stderr, as fio does', async () => {
    const fio = spawnSync('fio', [...args, '--output=/dev/null'], { cwd: ws.fioDir, encoding: 'utf8' });
    expect(fio.stderr).toContain(WARNING);
    const cli = await volbench(['run', ...args.filter((a) => !a.startsWith('--write_iops_log')), '--output=/dev/null']);
    expect(cli.code).toBe(0);
    expect(cli.stderr).toContain(WARNING);
  });
});
