/**
 * fio's steady-state options: `steadystate=iops_slope:0.1%` (alias `ss`) names what to watch and
 * how still it must be; `steadystate_duration` (`ss_dur`) is the window it must hold over, and
 * `steadystate_ramp_time` (`ss_ramp`) the time before the watching starts.
 */
import { invalidValue } from './fail.js';
import type { SteadyStateCriterion } from './types.js';
import { parseDecimal, parseTimeNs } from './units.js';
import { ownValue } from '../own-key.js';

export const STEADYSTATE_ACCEPTED =
  "iops, iops_slope, bw or bw_slope, a colon and a limit: a number (IOPS, or bytes/s for bw) or a percentage " +
  'of the mean, e.g. iops_slope:0.1% or bw:5%';

/** fio's default criterion (options.c), which `ss_dur` alone turns on. */
export const DEFAULT_STEADYSTATE: SteadyStateCriterion = { metric: 'iops', slope: true, limit: 0.01, percent: true };

const METRICS: Record<string, Pick<SteadyStateCriterion, 'metric' | 'slope'>> = {
  iops: { metric: 'iops', slope: false },
  iops_slope: { metric: 'iops', slope: true },
  bw: { metric: 'bw', slope: false },
  bw_slope: { metric: 'bw', slope: true },
};

export function parseSteadyState(text: string, ctx: { field: string }): SteadyStateCriterion {
  const { field } = ctx;
  const t = text.trim();
  const colon = t.indexOf(':');
  if (colon < 0) throw invalidValue(field, `'${text}' has no limit (fio needs one after the criterion)`, STEADYSTATE_ACCEPTED);
  const name = t.slice(0, colon).toLowerCase();
  const kind = ownValue(METRICS, name);
  if (!kind) throw invalidValue(field, `'${t.slice(0, colon)}' is not a steady-state criterion`, STEADYSTATE_ACCEPTED);
  let limitText = t.slice(colon + 1).trim();
  const percent = limitText.endsWith('%');
  if (percent) limitText = limitText.slice(0, -1);
  const limit = parseDecimal(limitText, { field, accepted: STEADYSTATE_ACCEPTED });
  if (limit < 0) throw invalidValue(field, `the limit ${limitText} is negative`, STEADYSTATE_ACCEPTED);
  return { ...kind, limit, percent };
}

export const STEADYSTATE_DURATION_ACCEPTED =
  'a duration of at least 1s, such as 30s or 2m (a bare number is in seconds), or 0 for no steady-state check';

/**
 * fio takes a sample once a second and counts the window in whole seconds (2500ms is 2), so a
 * window under a second would never hold a sample.
 */
export function parseSteadyStateDuration(text: string, ctx: { field: string }): number {
  const ns = parseTimeNs(text, { field: ctx.field, defaultUnit: 's' });
  if (ns !== 0 && ns < 1e9) {
    throw invalidValue(ctx.field, `'${text}' is shorter than a second, fio's sampling interval`, STEADYSTATE_DURATION_ACCEPTED);
  }
  return Math.floor(ns / 1e9) * 1e9;
}

/** fio's spelling of the criterion in the JSON (`iops:5.000000%`, `bw:50000000.000000`). */
export function steadyStateText(c: SteadyStateCriterion): string {
  return `${c.metric}${c.slope ? '_slope' : ''}:${c.limit.toFixed(6)}${c.percent ? '%' : ''}`;
}
