/**
 * fio's seeds for the draws volbench makes as fio does (bssplit sizes, rwmix, offsets under the
 * random map): from randseed and the instance's number in the run, the offsets from a constant
 * while randrepeat holds; from the system's random source with neither randrepeat nor randseed.
 * (That the draws from them are fio's own is checked against fio in tests/compat.)
 */
import { describe, expect, it } from 'vitest';

import { fioSeeds } from '../../src/plan/fio-seeds.js';
import { requires } from '../helpers/requires.js';

requires();

describe('fioSeeds', () => {
  it('seeds the offsets from 0xb1899bed times the instance number while randrepeat holds, whatever randseed says', () => {
    expect(fioSeeds(1n, true, true, 1, false).block).toBe(0xb1899bedn);
    expect(fioSeeds(0x89n, true, false, 3, false).block).toBe(3n * 0xb1899bedn);
    expect(fioSeeds(1n, false, true, 1, false).block).not.toBe(0xb1899bedn);
  });

  it('derives every other seed from randseed and the instance', () => {
    const a = fioSeeds(7n, true, true, 2, false);
    const b = fioSeeds(8n, true, true, 2, false);
    const c = fioSeeds(7n, true, true, 3, false);
    expect(new Set([a.bs[0], a.bs[1], a.bs[2], a.mix]).size).toBe(4);
    expect(b.bs[0]).not.toBe(a.bs[0]);
    expect(c.bs[0]).not.toBe(a.bs[0]);
    for (const s of [...a.bs, a.mix, a.block]) expect(s >= 0n && s < 1n << 64n).toBe(true);
  });

  it('gives writes the reads\' size seed under verify, as fio', () => {
    const s = fioSeeds(7n, true, true, 1, true);
    expect(s.bs[1]).toBe(s.bs[0]);
  });

  it('draws fresh seeds with neither randrepeat nor randseed', () => {
    expect(fioSeeds(0x89n, false, false, 1, false).bs[0]).not.toBe(fioSeeds(0x89n, false, false, 1, false).bs[0]);
  });
});
