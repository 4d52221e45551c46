/**
 * The addon checks every enum and bound of a plan at its boundary, whatever the plan stage let
 * through. Regression: an unknown `fallocate` was taken as `native`, `distribution` and
 * `bufferFill` were cast to their enums unchecked, and `ioDepth` took 65,536 where the option
 * stops at 65,535. Each now fails as ENATIVE naming the plan field and what it takes, before any
 * thread starts or any file is made. The same holds for a job's other files (moreFiles, each
 * entry checked as the target is), its file service, and the status interval: a service number
 * or a file count out of range said only "out of range", and an interval near 2^64 ns wrapped
 * the job's clock of reports.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { nativeAddon } from '../../src/engine/addon.js';
import type { NativeJobPlan } from '../../src/engine/native-types.js';
import { VolbenchError, parseSpec, planRun, type RunPlan } from '../../src/index.js';
import { requires } from '../helpers/requires.js';
import { ScratchDir } from '../helpers/run-fixtures.js';

const needs = requires('tmpfs');

const scratch = new ScratchDir('planbounds');
const target = scratch.path('bounds.dat');
let plan: RunPlan;
let valid: NativeJobPlan;

beforeAll(async () => {
  plan = await planRun(parseSpec({ jobs: [{ name: 'b', filename: target, size: '1m', rw: 'randwrite', iodepth: 4 }] }));
  valid = plan.jobs[0].instances[0];
});
afterAll(() => {
  plan?.release();
  scratch.remove();
});

function refusal(change: Record<string, unknown>): VolbenchError {
  try {
    nativeAddon().runJobs([{ ...valid, ...change } as NativeJobPlan], () => {});
  } catch (err) {
    expect(err).toBeInstanceOf(VolbenchError);
    return err as VolbenchError;
  }
  throw new Error(`the addon took ${JSON.stringify(change)}`);
}

describe('plan fields the addon refuses', () => {
  it.each([
    ['fallocate', 'sparse', /one of none, native, posix, keep, truncate/],
    ['osync', 'always', /one of none, sync, dsync/],
    ['fadvise', 'willneed', /one of none, random, sequential/],
    ['distribution', 5, /from 0 to 4/],
    ['bufferFill', 3, /from 0 to 2/],
    ['verify', 7, /from 0 to /],
    ['ioDepth', 65536, /from 1 to 65535/],
    ['ioDepth', 0, /from 1 to 65535/],
    ['batchCompleteMax', 0, /from 1 to /],
    ['readPct', 101, /from 0 to 100/],
    ['compressPct', 2.5, /from 0 to 100/],
    ['regionBytes', 2 ** 64, /from 0 to /],
    ['thinktimeBlocks', 1.5, /from 0 to /],
    ['fileService', 3, /from 0 to 2/],
    ['fileServiceNr', 0, /from 1 to /],
    ['statusIntervalNs', 2 ** 63, /from 0 to 4611686018427387904/],
    ['statusIntervalNs', 0.5, /from 0 to /],
  ])('%s = %s: ENATIVE naming the field', (field, value, accepted) => {
    const err = refusal({ [field]: value });
    expect(err).toMatchObject({ code: 'ENATIVE', field });
    expect(err.accepted).toMatch(accepted);
  });

  it.each([
    ['random', [0, 2, 0]],
    ['rateIops', [1.5, 0, 0]],
    ['blockAlign', [-1, 0, 0]],
  ])('%s = %j: each direction checked', (field, value) => {
    expect(refusal({ [field]: value })).toMatchObject({ code: 'ENATIVE', field });
  });

  it('a block size table entry that is not {bs, pct}, or a share over 100', () => {
    expect(refusal({ bs: [[7], [], []] })).toMatchObject({ code: 'ENATIVE', field: 'bs' });
    expect(refusal({ bs: [[{ bs: 4096, pct: 101 }], [], []] })).toMatchObject({ code: 'ENATIVE', field: 'pct' });
    expect(refusal({ bs: [[{ bs: 0, pct: 100 }], [], []] })).toMatchObject({ code: 'ENATIVE', field: 'bs' });
  });

  it('an expect kind the addon does not know', () => {
    expect(refusal({ expect: { ...valid.expect, kind: 'socket' } })).toMatchObject({ code: 'ENATIVE', field: 'kind' });
  });

  it('more files than a job can number, or a file entry with a field out of range', () => {
    const tooMany = refusal({ moreFiles: Array.from({ length: 65535 }, () => ({})) });
    expect(tooMany).toMatchObject({ code: 'ENATIVE', field: 'moreFiles' });
    expect(tooMany.accepted).toMatch(/at most 65534 files/);
    const file = {
      path: `${target}.1`, target: valid.target, unlinkTarget: null, expect: valid.expect, isBlockDevice: false,
      exclusive: false, layoutBytes: 1 << 20, regionOffset: 0, regionBytes: 1 << 20,
    };
    expect(refusal({ moreFiles: [{ ...file, regionBytes: 2 ** 64 }] })).toMatchObject({ code: 'ENATIVE', field: 'regionBytes' });
    expect(refusal({ moreFiles: [{ ...file, expect: { ...valid.expect, kind: 'fifo' } }] })).toMatchObject({ code: 'ENATIVE', field: 'kind' });
    expect(refusal({ moreFiles: [{ ...file, target: { dirFd: -2, name: 'x' } }] }))
      .toMatchObject({ code: 'ENATIVE', field: 'moreFiles[].target.dirFd' });
  });

  it('a directory descriptor that is not one', () => {
    expect(refusal({ target: { dirFd: 2 ** 40, name: 'x' } })).toMatchObject({ code: 'ENATIVE', field: 'target.dirFd' });
  });

  it('nothing was laid out for any of them', () => {
    expect(existsSync(target)).toBe(false);
  });
});
