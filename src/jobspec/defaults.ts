/**
 * A job's options before any option is applied: each row's default, as fio's
 * fill_default_options. Fields without a default stay unset (size, filename, ioengine, ...).
 */
import type { JobOptions } from './types.js';
import { SUPPORTED_OPTIONS } from './options.js';

/** A fresh copy each call: per-direction arrays and lists are owned by the caller. */
export function defaultOptions(): Partial<JobOptions> {
  const out: Partial<JobOptions> = {};
  for (const def of SUPPORTED_OPTIONS) {
    if (def.default !== undefined) (out as Record<string, unknown>)[def.field] = structuredClone(def.default);
  }
  return out;
}
