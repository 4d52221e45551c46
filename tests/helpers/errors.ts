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
