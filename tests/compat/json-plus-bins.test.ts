/**
 * --output-format=json+ on a size-based randread (clat percentiles only, and with
 * slat_percentiles=1 lat_percentiles=1): `bins` wherever fio prints them, and fio's percentile
 * rule applied to volbench's bins gives back volbench's own percentiles (applied to fio's bins,
 * fio's, which keeps the rule honest).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import {
  binPaths, binsProblems, flat, itPrintsWhatFioPrints, LATENCY_KINDS, makeWorkspace, percentilesFromBins, runBoth,
  sampleCountProblems, titled, type Json, type Pair, type Printed, type Workspace,
} from './side-by-side.js';

const needs = requires('tmpfs', 'fio', 'io_uring');

const reason = needs.missing('fio', 'io_uring');

/** Every percentile block that has bins, rebuilt from them; returns the mismatches. */
function rebuildProblems(doc: Json): string[] {
  const out: string[] = [];
  (doc.jobs as Json[]).forEach((job, i) => {
    for (const kind of LATENCY_KINDS) {
      const lat = job.read[kind];
      if (!lat.bins) continue;
      const rebuilt = percentilesFromBins(lat.bins, lat.N, Object.keys(lat.percentile));
      for (const [key, value] of Object.entries(lat.percentile)) {
        if (rebuilt[key] !== value) out.push(`jobs[${i}].read.${kind} p${key}: printed ${value}, bins give ${rebuilt[key]}`);
      }
    }
  });
  return out;
}

/** Bins that are not {integer ns: positive integer count} adding up to N. */
function allBinsProblems(printed: Printed): string[] {
  const { bins } = flat(printed.tree);
  const out: string[] = [];
  for (const [path, node] of bins) {
    const parts = path.split(' › ');
    const [, job, dir, kind] = parts;
    const n = printed.json.jobs[Number(job)][dir][kind].N;
    out.push(...binsProblems(node, n).map((p) => `${path}: ${p}`));
  }
  return out;
}

describe.skipIf(reason !== undefined)(titled('json+ bins on randread QD32 io_uring', reason), () => {
  let ws: Workspace;
  let clatOnly: Pair;
  let allKinds: Pair;

  beforeAll(async () => {
    ws = makeWorkspace('memory', 'jsonplus');
    const common = [
      '--name=randread-bins', `--filename=${join(ws.dir, 'target.bin')}`, '--size=16m', '--direct=1',
      '--ioengine=io_uring', '--rw=randread', '--bs=4k', '--iodepth=32', '--output-format=json+',
    ];
    clatOnly = await runBoth(common, ws);
    allKinds = await runBoth([...common, '--slat_percentiles=1', '--lat_percentiles=1'], ws);
  });
  afterAll(() => ws?.remove());

  itPrintsWhatFioPrints('json+ randread', () => clatOnly);
  itPrintsWhatFioPrints('json+ randread with slat and lat percentiles', () => allKinds);

  it('json+ prints bins exactly where fio does', () => {
    expect(binPaths(clatOnly.fio.tree)).toEqual(['jobs › 0 › read › clat_ns › bins']);
    expect(binPaths(clatOnly.volbench.tree)).toEqual(binPaths(clatOnly.fio.tree));
    expect(binPaths(allKinds.fio.tree)).toHaveLength(3);
    expect(binPaths(allKinds.volbench.tree)).toEqual(binPaths(allKinds.fio.tree));
  });

  it('bins map integer bucket values to integer counts that add up to N (fio\'s too)', () => {
    for (const pair of [clatOnly, allKinds]) {
      expect(allBinsProblems(pair.fio)).toEqual([]);
      expect(allBinsProblems(pair.volbench)).toEqual([]);
    }
  });

  it('fio\'s percentile rule on volbench\'s bins gives volbench\'s percentiles (and fio\'s on fio\'s)', () => {
    for (const pair of [clatOnly, allKinds]) {
      expect(rebuildProblems(pair.fio.json)).toEqual([]);
      expect(rebuildProblems(pair.volbench.json)).toEqual([]);
    }
  });

  it('size-based json+ run counts every read once in each latency kind', () => {
    for (const pair of [clatOnly, allKinds]) {
      expect(sampleCountProblems(pair.volbench.json.jobs[0].read, 'volbench read', true)).toEqual([]);
      expect(pair.volbench.json.jobs[0].read.total_ios).toBe(pair.fio.json.jobs[0].read.total_ios);
    }
  });
});
