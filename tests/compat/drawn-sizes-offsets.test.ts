/**
 * bsrange, random_distribution=zoned and percentage_random draw what fio 3.33 draws at the same
 * seed: every I/O's direction, size and offset (a per-I/O log with log_offset, psync at depth 1,
 * where the log's order is the issue order), so the counts and bytes are fio's. On tmpfs, and on
 * a loop device whose counters (/sys/block/loopN/stat) show the bytes that reached it.
 *
 * Were refused before ("not supported by volbench yet"). fio's draws, for reference:
 * - bsrange: min + max · r / 2^32 from the direction's size generator, rounded down to a multiple
 *   of min, at most max, drawn again until it fits before the region's end (io_u.c
 *   get_next_buflen); under fio's random map each I/O is cut short at a block already done;
 * - zoned: a percentage from the zone generator picks the zone, the block generator a block in
 *   it, with no random map (init.c turns it off for any distribution);
 * - percentage_random: a percentage from the direction's generator (all seeded alike) says
 *   whether the I/O draws an offset or goes on from the end of the direction's last I/O, which
 *   then neither consults nor marks the map.
 * A job of several files draws every file's from the job's one set of generators (fio's
 * td->random_state, zone_state, seq_rand_state), each file in its own region and going on from
 * its own last I/O: a file drawing from generators of its own repeated its sibling's offsets.
 */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import { TargetFixtures } from '../helpers/target-fixtures.js';
import { loggedIos, type LoggedIo } from './io-log.js';
import { makeWorkspace, runBoth, runFio, runVolbench, titled, type Json, type Workspace } from './side-by-side.js';

const needs = requires('child', 'tmpfs', 'loop', 'fio');
const reason = needs.missing('fio');
const MiB = 1 << 20;

interface Side {
  job: Json;
  ios: LoggedIo[];
}

/** Runs `flags` through fio and volbench with a per-I/O log named `label`. */
async function both(ws: Workspace, label: string, flags: string[]): Promise<{ fio: Side; volbench: Side }> {
  const pair = await runBoth(['--name=draws', '--ioengine=psync', ...flags, `--write_iops_log=${label}`, '--log_offset=1',
    '--output-format=json'], ws);
  const side = (doc: Json, dir: string): Side => ({ job: doc.jobs[0], ios: loggedIos(dir, `${label}_iops.1.log`) });
  return { fio: side(pair.fio.json, ws.fioDir), volbench: side(pair.volbench.json, ws.volbenchDir) };
}

const counts = (job: Json) => ({ read: [job.read.total_ios, job.read.io_bytes], write: [job.write.total_ios, job.write.io_bytes] });

describe.skipIf(reason !== undefined)(titled('bsrange, zoned and percentage_random on tmpfs: fio\'s I/Os, one by one', reason), () => {
  let ws: Workspace;
  const runs = new Map<string, { fio: Side; volbench: Side }>();
  const CASES: Record<string, string[]> = {
    'randread bsrange=4k-64k': ['--rw=randread', '--bsrange=4k-64k'],
    'randread bsrange=4k-64k, seed 3': ['--rw=randread', '--bsrange=4k-64k', '--randseed=3'],
    'read bsrange=3k-20k (not a power of two)': ['--rw=read', '--bsrange=3k-20k'],
    // 32 MiB ends 2 KiB after the last I/O that fits: fio's pass ends there (volbench went round).
    'read bsrange=3k-20k, a tail no size fits': ['--rw=read', '--bsrange=3k-20k', '--size=32m'],
    'randrw zoned:60/10:30/20:10/70, percentage_random=70,40': ['--rw=randrw', '--bs=4k',
      '--random_distribution=zoned:60/10:30/20:10/70', '--percentage_random=70,40', '--randseed=5'],
    'randread bsrange=4k-32k, percentage_random=40 (fio\'s map)': ['--rw=randread', '--bsrange=4k-32k', '--percentage_random=40'],
  };
  // Over two files of 8 MiB: the file service takes turns, the draws go on across them.
  const SEVERAL: Record<string, string[]> = {
    'two files, randread bsrange=4k-64k': ['--rw=randread', '--bsrange=4k-64k'],
    'two files, read bsrange=3k-20k': ['--rw=read', '--bsrange=3k-20k'],
    'two files, randrw zoned:60/10:30/20:10/70, percentage_random=70,40': ['--rw=randrw', '--bs=4k',
      '--random_distribution=zoned:60/10:30/20:10/70', '--percentage_random=70,40', '--randseed=5'],
  };
  const ALL = [...Object.keys(CASES), ...Object.keys(SEVERAL)];

  beforeAll(async () => {
    ws = makeWorkspace('memory', 'draws');
    let n = 0;
    for (const [name, flags] of Object.entries(CASES)) {
      runs.set(name, await both(ws, `c${n++}`, [`--filename=${join(ws.dir, 'target.bin')}`, '--size=16m', ...flags]));
    }
    for (const [name, flags] of Object.entries(SEVERAL)) {
      const files = `--filename=${join(ws.dir, 'a.bin')}:${join(ws.dir, 'b.bin')}`;
      runs.set(name, await both(ws, `c${n++}`, [files, '--size=16m', ...flags]));
    }
  }, 90_000);
  afterAll(() => ws?.remove());

  it.each(ALL)('%s: the same count and bytes as fio', (name) => {
    const { fio, volbench } = runs.get(name)!;
    expect(fio.job.error).toBe(0);
    expect(counts(volbench.job)).toEqual(counts(fio.job));
  });

  it.each(ALL)('%s: every I/O\'s direction, size and offset as fio\'s', (name) => {
    const { fio, volbench } = runs.get(name)!;
    expect(volbench.ios.length).toBe(fio.ios.length);
    const first = volbench.ios.findIndex((io, i) => io.ddir !== fio.ios[i].ddir || io.bs !== fio.ios[i].bs || io.offset !== fio.ios[i].offset);
    expect(first, first < 0 ? '' : `I/O ${first}: fio ${JSON.stringify(fio.ios[first])}, volbench ${JSON.stringify(volbench.ios[first])}`).toBe(-1);
  });

  it('bsrange draws whole multiples of its smallest size, or its largest (fio\'s cap)', () => {
    const sizes = new Set(runs.get('read bsrange=3k-20k (not a power of two)')!.volbench.ios.map((io) => io.bs));
    expect([...sizes].every((bs) => (bs % 3072 === 0 && bs >= 3072 && bs < 20480) || bs === 20480)).toBe(true);
    expect(sizes.has(20480)).toBe(true);
    expect(sizes.size).toBeGreaterThan(4);
  });

  it('zoned puts the zones\' shares of the I/Os on their shares of the region', () => {
    const ios = runs.get('randrw zoned:60/10:30/20:10/70, percentage_random=70,40')!.volbench.ios;
    // Random I/Os follow the zones; the sequential ones (30% and 60%) go on from the last I/O.
    const firstTenth = ios.filter((io) => io.offset < 16 * MiB / 10).length / ios.length;
    expect(firstTenth).toBeGreaterThan(0.3);
  });
});

const loopReason = reason ?? needs.missing('loop');

describe.skipIf(loopReason !== undefined)(titled('bsrange and zoned on a loop device: fio\'s bytes at the device', loopReason), () => {
  let fixtures: TargetFixtures;
  let device = '';
  let ws: Workspace;
  const reads = (): number => Number(readFileSync(`/sys/block/${basename(device)}/stat`, 'utf8').trim().split(/\s+/)[2]) * 512;

  beforeAll(() => {
    fixtures = new TargetFixtures('draws-loop', '/dev/shm');
    const image = fixtures.image('disk.img', 32 * MiB);
    device = fixtures.attachLoop(image);
    ws = makeWorkspace('memory', 'draws-loop');
  });
  afterAll(() => {
    ws?.remove();
    fixtures?.release();
  });

  it.each([
    ['randread bsrange=4k-64k', ['--rw=randread', '--bsrange=4k-64k']],
    ['randread zoned:80/20:20/80, percentage_random=50', ['--rw=randread', '--bs=4k', '--random_distribution=zoned:80/20:20/80',
      '--percentage_random=50', '--size=8m']],
  ])('%s, direct: the device reads what each tool reports, and the same as fio', async (_name, flags) => {
    const argv = ['--name=draws', '--ioengine=psync', `--filename=${device}`, '--direct=1', ...flags, '--output-format=json'];
    const read: Record<string, { device: number; job: Json }> = {};
    for (const [tool, runTool] of [['fio', runFio], ['volbench', runVolbench]] as const) {
      const before = reads();
      const job = (await runTool(argv, tool === 'fio' ? ws.fioDir : ws.volbenchDir)).json.jobs[0];
      read[tool] = { device: reads() - before, job };
    }
    expect(counts(read.volbench.job)).toEqual(counts(read.fio.job));
    for (const tool of ['fio', 'volbench']) expect(read[tool].device, tool).toBe(read[tool].job.read.io_bytes);
  });
});
