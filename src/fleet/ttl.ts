/**
 * A fleet's expiry: the time after which everything of it may be deleted (`fleet reap`), and
 * at which each member shuts itself down. Written as the `volbench:expires` tag, ISO-8601 UTC
 * to the second.
 */
import { VolbenchError } from '../errors.js';
import { parseTimeNs } from '../jobspec/index.js';

export const EXPIRES_TAG = 'volbench:expires';

/** The default time to live: the plan's duration twice, plus 30 minutes. */
export function defaultTtlSec(planHours: number): number {
  return Math.ceil(planHours * 3600 * 2 + 30 * 60);
}

/** `--ttl` as seconds (e.g. 90m, 3h, 7200); at least 10 minutes, at most 7 days. */
export function parseTtl(text: string, field = '--ttl'): number {
  let sec: number;
  try {
    sec = Math.ceil(parseTimeNs(text, { defaultUnit: 's', field }) / 1e9);
  } catch (err) {
    throw new VolbenchError('EINVALID_ARGS', `${field}: '${text.slice(0, 40)}' is not a time`, { field, accepted: 'a time, e.g. 90m, 3h or 7200', cause: err });
  }
  if (sec < 600 || sec > 7 * 86400) {
    throw new VolbenchError('EINVALID_ARGS', `${field} must be between 10m and 7d, got '${text.slice(0, 40)}'`, { field, accepted: 'a time from 10m to 7d' });
  }
  return sec;
}

/** ISO-8601 UTC to the second, as the tag and the template's ExpiresAt take it. */
export function expiresAt(now: Date, ttlSec: number): string {
  return new Date(Math.floor(now.getTime() / 1000) * 1000 + ttlSec * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Seconds left before `expires` at `now` (negative once past). */
export function secondsLeft(expires: string, now: Date): number {
  return (Date.parse(expires) - now.getTime()) / 1000;
}

/**
 * The clock for expiry decisions: `--now` or VOLBENCH_NOW (for tests: they move the clock past an
 * expiry instead of waiting for it), else the real one.
 */
export function fleetNow(given?: string, env: NodeJS.ProcessEnv = process.env): Date {
  const text = given ?? env.VOLBENCH_NOW;
  if (text === undefined || text === '') return new Date();
  const ms = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || !Number.isFinite(ms)) {
    throw new VolbenchError('EINVALID_ARGS', `'${text.slice(0, 40)}' is not an ISO-8601 time`, { field: given !== undefined ? '--now' : 'VOLBENCH_NOW', accepted: 'e.g. 2030-01-01T00:00:00Z' });
  }
  return new Date(ms);
}

const minutes = (sec: number) => Math.ceil(sec / 60);

/**
 * Refuses a workload of `needsSec` that the fleet's life cannot hold (EPREFLIGHT, naming
 * `field`): with a TTL given (`ttlSec`, from `now`: the expiry it sets, or moves to), one shorter
 * than the workload; without, less time left before the fleet's expiry than the workload, for
 * its members would shut down under it. Nothing is created or run when it refuses.
 */
export function checkWorkloadFits(state: { fleetId: string; expiresAt?: string }, needsSec: number, ttlSec?: number, now = new Date(),
  field = '--ttl'): void {
  const accepted = `${field} of at least ${minutes(needsSec)}m`;
  if (ttlSec !== undefined) {
    if (needsSec <= ttlSec) return;
    throw new VolbenchError('EPREFLIGHT', `fleet ${state.fleetId}: ${field} of ${minutes(ttlSec)} min is shorter than the workload (${minutes(needsSec)} min)`,
      { field, accepted });
  }
  if (!state.expiresAt) return;
  const left = secondsLeft(state.expiresAt, now);
  if (needsSec <= left) return;
  throw new VolbenchError('EPREFLIGHT', `fleet ${state.fleetId} expires at ${state.expiresAt} (${Math.max(0, Math.floor(left / 60))} min left), ` +
    `and the workload takes ${minutes(needsSec)} min: its members would shut down under it; give ${field} to extend it (from now), or run a shorter workload`,
  { field, accepted });
}
