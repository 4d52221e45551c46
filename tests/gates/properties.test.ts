/**
 * Properties of the assertion parser (`--assert`, the service's `assertions`): for any text, and
 * for assertions of the grammar with random edits, parseAssertion returns an assertion with a
 * number to compare against, or throws a VolbenchError; never a TypeError, a RangeError or a plain
 * Error. That it runs in linear time is tests/gates/linear-time.test.ts's.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { VolbenchError } from '../../src/errors.js';
import { parseAssertion } from '../../src/gates/index.js';
import { anyText, assertionText, mutated } from '../helpers/arbitraries.js';
import { answer } from '../helpers/errors.js';
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
