/**
 * Properties of the assertion parser (`--assert`, the service's `assertions`): for any text, and
 * for assertions of the grammar with random edits, parseAssertion returns an assertion with a
 * number to compare against, or throws a VolbenchError; never a TypeError, a RangeError or a plain
 * Error. And it runs in linear time up to its length limit: 8× the input costs well under 64×.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { VolbenchError } from '../../src/errors.js';
import { parseAssertion } from '../../src/gates/index.js';
import { anyText, assertionText, mutated } from '../helpers/arbitraries.js';
import { answer } from '../helpers/errors.js';
import { linearRatio, LINEAR_RATIO } from '../helpers/growth.js';
import { requires } from '../helpers/requires.js';

requires();

const RUNS = Number(process.env.VOLBENCH_PROPERTY_RUNS ?? 150);

describe('parseAssertion', () => {
  it('returns or throws a VolbenchError for any text', () => {
    fc.assert(fc.property(anyText, (text) => void answer(() => parseAssertion(text))), { numRuns: RUNS * 2 });
  });

  it('returns an assertion with a number, or throws a VolbenchError, for assertions with random edits', () => {
    fc.assert(fc.property(mutated(assertionText), (text) => {
      const parsed = answer(() => parseAssertion(text));
      if (parsed instanceof VolbenchError) return;
      expect(Number.isNaN(parsed.wanted)).toBe(false);
      expect(parsed.job).not.toBe('');
    }), { numRuns: RUNS * 3 });
  });

  it('reads every assertion of the grammar whose unit fits its metric', () => {
    let read = 0;
    fc.assert(fc.property(assertionText, (text) => {
      const parsed = answer(() => parseAssertion(text));
      if (parsed instanceof VolbenchError) {
        // The grammar pairs any unit with any metric: only a unit (or value) the metric refuses.
        expect(parsed.code).toBe('EINVALID_VALUE');
        return;
      }
      read++;
      expect(parsed.expr).toBe(text.trim());
    }), { numRuns: RUNS });
    expect(read).toBeGreaterThan(RUNS / 4);
  });
});

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
