/**
 * random_distribution's shape: how many distinct 4k blocks a size-based randread touches, and the
 * share of reads the hottest tenth of the region's blocks takes. fio's normal:σ is the mean of
 * twelve uniform draws plus a uniform spread of σ% (lib/gauss.c), and every distribution spreads
 * its ranks over the region by a multiplicative hash modulo the block count. volbench drew a true
 * Gaussian of deviation σ% and spread ranks one-to-one: over 16 MiB, normal:20 touched 2,304
 * blocks against fio's ~1,520 (hottest tenth 36% of reads against 51%), normal:5 921 against
 * ~1,340; over 100 MiB (25,600 blocks, not a power of two) zipf:1.2 touched 3,429 against 3,006.
 * Expected: within a few percent of fio's figures for each.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import { coverage, loggedIos, type Coverage } from './io-log.js';
import { makeWorkspace, runBoth, titled, type Workspace } from './side-by-side.js';

const needs = requires('tmpfs', 'fio');

const reason = needs.missing('fio');
const BLOCK = 4096;
const CASES = [
  { distribution: 'normal:5', size: '16m' },
  { distribution: 'normal:20', size: '16m' },
  { distribution: 'normal:50', size: '16m' },
  { distribution: 'normal:20', size: '100m' },
  { distribution: 'zipf:1.2', size: '100m' },
  { distribution: 'pareto:0.9', size: '100m' },
] as const;
const bytes = (size: string): number => Number(size.slice(0, -1)) << 20;

describe.skipIf(reason !== undefined)(titled('random_distribution has fio\'s shape', reason), () => {
  let ws: Workspace;
  const shapes = new Map<string, { fio: Coverage; volbench: Coverage }>();

  beforeAll(async () => {
    ws = makeWorkspace('memory', 'distribution');
    for (const { distribution, size } of CASES) {
      const prefix = `${distribution.replace(':', '-')}-${size}`;
      await runBoth([
        '--name=shape', `--filename=${join(ws.dir, `${size}.bin`)}`, `--size=${size}`, '--ioengine=psync', '--rw=randread',
        '--bs=4k', `--random_distribution=${distribution}`, `--write_iops_log=${prefix}`, '--log_offset=1',
        '--output-format=json',
      ], ws);
      const shape = (dir: string): Coverage => coverage(loggedIos(dir, `${prefix}_iops.1.log`), BLOCK, bytes(size));
      shapes.set(`${distribution} ${size}`, { fio: shape(ws.fioDir), volbench: shape(ws.volbenchDir) });
    }
  }, 120_000);
  afterAll(() => ws?.remove());

  for (const { distribution, size } of CASES) {
    it(`${distribution} over ${size}: as many I/Os, distinct blocks within 6% of fio's, hottest tenth's share within 4 points`, () => {
      const { fio, volbench } = shapes.get(`${distribution} ${size}`)!;
      expect(volbench.ios).toBe(bytes(size) / BLOCK);
      expect(fio.ios).toBe(volbench.ios);
      expect(Math.abs(volbench.touched / fio.touched - 1), `touched ${volbench.touched} vs fio ${fio.touched}`).toBeLessThan(0.06);
      expect(Math.abs(volbench.hottestTenthShare - fio.hottestTenthShare), `hottest tenth ${volbench.hottestTenthShare} vs fio ${fio.hottestTenthShare}`)
        .toBeLessThan(0.04);
    });
  }
});
