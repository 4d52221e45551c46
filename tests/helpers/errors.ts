import { expect } from 'vitest';

import { VolbenchError } from '../../src/errors.js';

/** The VolbenchError `fn` throws; fails the test when it throws nothing or something else. */
export function errorOf(fn: () => unknown): VolbenchError {
  try {
    fn();
  } catch (err) {
    if (err instanceof VolbenchError) return err;
    throw err;
  }
  throw new Error('expected a VolbenchError');
}

/**
 * What `fn` answers: its value, or the VolbenchError it throws (a short one, with a code). Any
 * other throw (a TypeError, a RangeError from a stack overflow, a plain Error) fails the test.
 */
export function answer<T>(fn: () => T): T | VolbenchError {
  try {
    return fn();
  } catch (err) {
    if (!(err instanceof VolbenchError)) throw err;
    expect(err.code).toMatch(/^E[A-Z_]+$/);
    expect(err.message.length).toBeGreaterThan(0);
    expect(err.message.length).toBeLessThan(4096);
    return err;
  }
}
