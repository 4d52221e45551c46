/**
 * How a parser's cost grows with its input: the time of a call on an input of length 8n over the
 * time on one of length n. A linear parser gives about 8 (less, where a fixed cost dominates), a
 * quadratic one 64. Calls are batched so the short input takes a few milliseconds, and each side
 * is the fastest of three batches.
 *
 * The time is the process's CPU time, not the clock's: another process on the machine takes the
 * core from a long batch more often than from a short one (a time slice holds a short batch
 * whole), so in wall time a loaded machine raised the ratio (33 and 35 against 30, once, beside
 * the package files in CI). What the parse costs itself, its garbage collection included, counts.
 */

import { VolbenchError } from '../../src/errors.js';

/** What a ratio must stay under for 8× the input: well above n log n, well below n². */
export const LINEAR_RATIO = 30;

/** The process's CPU time so far, user and system, in ms. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

function batch(fn: () => unknown, times: number): number {
  const start = cpuMs();
  for (let i = 0; i < times; i++) {
    try {
      fn();
    } catch (err) {
      if (!(err instanceof VolbenchError)) throw err;
    }
  }
  return cpuMs() - start;
}

function fastest(fn: () => unknown, times: number): number {
  return Math.min(batch(fn, times), batch(fn, times), batch(fn, times));
}

export interface Growth {
  ratio: number;
  /** One call on the short input and on the long one, in ms of CPU time. */
  shortMs: number;
  longMs: number;
}

/**
 * `make(n)` builds the input of length n (outside the timing) and returns the call to time. The
 * call may throw a VolbenchError; anything else fails the test.
 */
export function growth(make: (n: number) => () => unknown, n: number, batchMs = 3): Growth {
  const short = make(n);
  const long = make(8 * n);
  batch(short, 1);
  batch(long, 1);
  let times = 1;
  while (batch(short, times) < batchMs && times < 1 << 16) times *= 2;
  const shortMs = fastest(short, times);
  const longMs = fastest(long, times);
  return { ratio: longMs / shortMs, shortMs: shortMs / times, longMs: longMs / times };
}

/**
 * The ratio for 8× the input; measured again (up to three times) while it is over the bound, since
 * a shared machine can slow one side: a parser that is really quadratic stays over every time.
 */
export function linearRatio(make: (n: number) => () => unknown, n: number): number {
  let best = Infinity;
  for (let attempt = 0; attempt < 3 && best >= LINEAR_RATIO; attempt++) best = Math.min(best, growth(make, n).ratio);
  return best;
}
