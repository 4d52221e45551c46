/**
 * Whether a job keeps fio's random map, and what it says when it does not though the job did not
 * ask (norandommap): blockalign turns the map off with fio's warning. Directions whose smallest
 * sizes differ keep fio's map, in fio's mixed block units (they got uniform offsets, with a note,
 * before volbench kept that map as fio does).
 */
import { describe, expect, it } from 'vitest';

import { parseSpec } from '../../src/jobspec/index.js';
import { instanceMemoryBytes } from '../../src/plan/native-plan.js';
import { BLOCKALIGN_NOTE, randomMapBytes, randomMapFor } from '../../src/plan/random-map.js';
import { requires } from '../helpers/requires.js';

requires();

const options = (job: Record<string, string | number>) => parseSpec({ jobs: [{ name: 'j', ...job }] }).jobs[0].options;

describe('randomMapFor', () => {
  it('keeps the map for random jobs of one size or a bssplit, with nothing to say', () => {
    expect(randomMapFor(options({ rw: 'randread' }))).toEqual({ on: true, notes: [] });
    expect(randomMapFor(options({ rw: 'randwrite', bssplit: '4k/50:64k/50' }))).toEqual({ on: true, notes: [] });
  });

  it('norandommap turns it off silently: the job asked', () => {
    expect(randomMapFor(options({ rw: 'randread', norandommap: 1 }))).toEqual({ on: false, notes: [] });
  });

  it('blockalign other than the smallest size turns it off with fio\'s warning', () => {
    expect(randomMapFor(options({ rw: 'randread', bs: '4k', blockalign: '64k' }))).toEqual({ on: false, notes: [BLOCKALIGN_NOTE] });
    expect(randomMapFor(options({ rw: 'randread', bs: '64k', blockalign: '4k' })).on).toBe(false);
    // Equal to the block size, it changes nothing.
    expect(randomMapFor(options({ rw: 'randread', bs: '4k', blockalign: '4k' }))).toEqual({ on: true, notes: [] });
  });

  it('sequential jobs ignore blockalign, as fio\'s (it resets it to the block size)', () => {
    expect(randomMapFor(options({ rw: 'read', blockalign: '64k' })).notes).toEqual([]);
  });

  it('directions with different smallest sizes keep the map, with nothing to say', () => {
    expect(randomMapFor(options({ rw: 'randrw', bs: '4k,64k' }))).toEqual({ on: true, notes: [] });
    expect(randomMapFor(options({ rw: 'randread', bs: '64k,4k' }))).toEqual({ on: true, notes: [] });
  });
});

describe('the map\'s memory', () => {
  it('a bssplit job\'s bitmap counts against the memory limit: a bit per smallest block', () => {
    const o = options({ rw: 'randread', bssplit: '4k/50:1m/50', size: '64g' });
    expect(randomMapBytes(o)).toBe(Math.ceil((16 * 2 ** 20) / 8 * (1 + 1 / 63)));
    expect(instanceMemoryBytes(o) - instanceMemoryBytes({ ...o, norandommap: true })).toBe(randomMapBytes(o));
  });

  it('one block size walks a permutation: no bitmap', () => {
    expect(randomMapBytes(options({ rw: 'randread', size: '64g' }))).toBe(0);
    expect(randomMapBytes(options({ rw: 'randread', bs: '4k,64k', size: '64g' }))).toBe(0);
  });

  it("a direction whose size is not the smallest of all three keeps fio's bitmap, in blocks of that smallest", () => {
    const blocks = (64 * 2 ** 30) / 4096;
    expect(randomMapBytes(options({ rw: 'randread', bs: '64k,4k', size: '64g' }))).toBe(Math.ceil((blocks / 8) * (1 + 1 / 63)));
  });
});
