/**
 * The addon checks the plans it is handed and throws TypeError or RangeError when one breaks
 * the contract. Such an error used to leave the library as it was, the one error that was not a
 * VolbenchError; it now leaves as ENATIVE, with the addon's message and the original as cause.
 */
import { describe, expect, it } from 'vitest';

import { nativeAddon } from '../../src/engine/addon.js';
import type { NativeJobPlan } from '../../src/engine/native-types.js';
import { VolbenchError } from '../../src/errors.js';
import { requires } from '../helpers/requires.js';

requires();

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('the native contract', () => {
  it('a plan missing a field is ENATIVE naming the field', () => {
    const err = caught(() => nativeAddon().runJobs([{ jobName: 'x' } as unknown as NativeJobPlan], () => {}));
    expect(err).toBeInstanceOf(VolbenchError);
    expect((err as VolbenchError).code).toBe('ENATIVE');
    expect((err as VolbenchError).message).toMatch(/plan field '\w+' is missing/);
    expect((err as Error).cause).toBeInstanceOf(TypeError);
  });

  it('a probe of something that is not a path is ENATIVE', () => {
    const err = caught(() => nativeAddon().probeTarget(42 as unknown as string));
    expect(err).toMatchObject({ name: 'VolbenchError', code: 'ENATIVE' });
  });
});
