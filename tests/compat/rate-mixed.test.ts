/**
 * rate_iops and rate on a mixed job: fio holds each direction to the value given for it (one
 * value stands for both), switching to the other direction when the one drawn is ahead of its
 * rate, so rate_iops=200 rwmixread=70 gives as many writes as reads, 200 a second each.
 *
 * Broke: volbench paced each direction but drew the direction blindly, so a held read blocked
 * the writes behind it: 300 reads/s and 150 writes/s where fio gave 300 and 300. Expected: the
 * same split as fio's, about one write per read. (How close each tool comes to the rate in time
 * is a rate, compared in bench/fidelity.mjs, not here.)
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import { makeWorkspace, runBoth, titled, type Workspace } from './side-by-side.js';

const needs = requires('tmpfs', 'fio');

const reason = needs.missing('fio');

describe.skipIf(reason !== undefined)(titled('a mixed job holds each direction to its own rate, as fio', reason), () => {
  let ws: Workspace;
  beforeAll(() => {
    ws = makeWorkspace('memory', 'rate-mixed');
  });
  afterAll(() => ws?.remove());

  const job = (extra: string[]): string[] => ['--name=mix', `--filename=${join(ws.dir, 'target.bin')}`, '--size=16m',
    '--ioengine=psync', '--rw=randrw', '--rwmixread=70', '--bs=4k', '--runtime=2', '--time_based', ...extra,
    '--output-format=json'];

  it.each([
    ['rate_iops=200', ['--rate_iops=200']],
    ['rate=800k', ['--rate=800k']],
  ])('%s: about as many writes as reads, in both tools', async (_, extra) => {
    const pair = await runBoth(job(extra), ws);
    for (const tool of ['fio', 'volbench'] as const) {
      const { read, write } = pair[tool].json.jobs[0];
      // 2 s at 200 a second per direction: no more than the rate allows...
      expect(read.total_ios, tool).toBeLessThanOrEqual(405);
      expect(write.total_ios, tool).toBeLessThanOrEqual(405);
      // ...and split as the rates say, not as rwmixread does (70/30: 0.43 writes per read).
      expect(write.total_ios / read.total_ios, tool).toBeGreaterThan(0.9);
      expect(write.total_ios / read.total_ios, tool).toBeLessThan(1.1);
    }
  });

  it('a direction given no rate takes what the other leaves (rate_iops=,100)', async () => {
    const pair = await runBoth(job(['--rate_iops=,100']), ws);
    for (const tool of ['fio', 'volbench'] as const) {
      const { read, write } = pair[tool].json.jobs[0];
      expect(write.total_ios, tool).toBeLessThanOrEqual(205);
      expect(read.total_ios, tool).toBeGreaterThan(20 * write.total_ios);
    }
  });
});
