/**
 * fio's `steadystate` block of a job entry and its line in the normal output, from the native
 * check's last judgement. The window's means are integers, the criterion a string: a percentage
 * with six decimals and a '%', or an absolute limit's value rounded to a whole number.
 */
import type { NativeSteadyResult } from '../engine/native-types.js';
import { steadyStateText } from '../jobspec/steadystate.js';
import type { SteadyStateCriterion } from '../jobspec/types.js';
import type { FioSteadyState } from './fio-result.js';
import { num2str } from './num2str.js';
import { formatFixed } from './printf.js';

export interface SteadyStat {
  criterion: SteadyStateCriterion;
  durationSec: number;
  result: NativeSteadyResult;
}

const meanOf = (values: readonly number[], n: number): number =>
  n ? Math.floor(values.reduce((s, v) => s + v, 0) / n) : 0;

export function steadyJson(s: SteadyStat): FioSteadyState {
  const { criterion: c, result: r, durationSec: n } = s;
  return {
    ss: steadyStateText(c),
    duration: n,
    attained: r.attained ? 1 : 0,
    criterion: c.percent ? `${formatFixed(r.criterion, 6)}%` : formatFixed(Math.round(r.criterion), 6),
    max_deviation: r.maxDeviation,
    slope: r.slope,
    data: {
      bw_mean: meanOf(r.bw, n),
      iops_mean: meanOf(r.iops, n),
      iops: [...r.iops],
      bw: [...r.bw],
    },
  };
}

/**
 * `  steadystate  : attained=yes, bw=4524MiB/s (4632MB/s), iops=1158k, iops mean dev=0.853%`.
 * As fio prints it, the second bandwidth is the mean in KiB/s read as kB/s (4632269 KiB/s shows
 * as 4632MB/s), and an absolute limit shows the deviation or slope itself, unrounded.
 */
export function steadyText(ss: FioSteadyState): string {
  const bw = ss.data.bw_mean;
  const bwText = num2str(bw, 4, 1, true, 'bytepersec');
  const bwAlt = num2str(Math.floor(bw / 1024), 4, 1000, false, 'bytepersec');
  const iops = num2str(ss.data.iops_mean, 4, 1, false, 'none');
  const [metric, slope] = ss.ss.slice(0, ss.ss.indexOf(':')).split('_');
  const percent = ss.ss.endsWith('%');
  const what = `${metric} ${slope ? 'slope' : 'mean dev'}`;
  const value = percent ? `${formatFixed(Number.parseFloat(ss.criterion), 3)}%` : formatFixed(slope ? ss.slope : ss.max_deviation, 3);
  return `  steadystate  : attained=${ss.attained ? 'yes' : 'no'}, bw=${bwText} (${bwAlt}), iops=${iops}, ${what}=${value}\n`;
}
