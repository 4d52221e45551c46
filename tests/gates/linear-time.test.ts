/**
 * The assertion parser (`--assert`, the service's `assertions`) runs in linear time up to its
 * length limit: 8× the input costs well under 64×. Timed, so the file runs with no other test file
 * beside it (requires('serial')). (tests/gates/properties.test.ts holds its other properties.)
 */
import { describe, expect, it } from 'vitest';

import { parseAssertion } from '../../src/gates/index.js';
import { linearRatio, LINEAR_RATIO } from '../helpers/growth.js';
import { requires } from '../helpers/requires.js';

requires('serial');

describe('parseAssertion in linear time (8× the input, best of 3)', () => {
  const assertion = (make: (n: number) => string) => (n: number) => {
    const text = make(n);
    return () => parseAssertion(text);
  };

  // More than 1000 characters are refused at once, so the long input stays within that.
  it.each<[string, (n: number) => () => unknown, number]>([
    ['blanks before the operator', assertion((n) => `a${' '.repeat(n)}>= 1`), 110],
    ['blanks and no operator', assertion((n) => `a${' '.repeat(n)}b`), 110],
    ['digits after the operator', assertion((n) => `a.iops >= ${'1'.repeat(n)} x`), 110],
    ['dots before the metric', assertion((n) => `${'.'.repeat(n)}iops >= 1`), 110],
    ['directions repeated', assertion((n) => `a${'.read'.repeat(Math.floor(n / 5))}.iops >= 1`), 110],
    ['operators repeated', assertion((n) => `a.iops ${'<'.repeat(n)} 1`), 110],
    ['a long percentile', assertion((n) => `a.clat_ns.p${'9'.repeat(n)} < 1ms`), 110],
    ['a value of units', assertion((n) => `a.bw > 1${'M'.repeat(n)}B/s`), 110],
    ['an analysis name of dots', assertion((n) => `sweep${'.'.repeat(n)}optimal_depth >= 1`), 110],
  ])('%s', (_, make, n) => {
    expect(linearRatio(make, n)).toBeLessThan(LINEAR_RATIO);
  });
});
