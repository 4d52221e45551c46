/**
 * fio's status characters, one per job instance, as its status line shows them (fio's HOWTO,
 * "Interpreting the output"): the direction and pattern of a running job (r/R random/sequential
 * reads, w/W writes, m/M mixed, d/D trims), / in its ramp, V verifying, P before it starts, _
 * once it has ended. A layout is no state of a job in fio's table; the status line shows it on a
 * line of its own.
 */
import type { NativeJobPlan, NativeProgress } from '../engine/native-types.js';

/** The character of a running job: its pattern, lower case when random. */
export function runningChar(plan: NativeJobPlan): string {
  const [readRandom, writeRandom, trimRandom] = plan.random;
  if (plan.trimPct === 100) return trimRandom ? 'd' : 'D';
  if (plan.trimPct === 0 && plan.readPct === 100) return readRandom ? 'r' : 'R';
  if (plan.trimPct === 0 && plan.readPct === 0) return writeRandom ? 'w' : 'W';
  return readRandom || writeRandom || trimRandom ? 'm' : 'M';
}

export function statusChar(plan: NativeJobPlan, p: NativeProgress): string {
  switch (p.phase) {
    case 'running':
      return runningChar(plan);
    case 'ramp':
      return '/';
    case 'verify':
      return 'V';
    case 'done':
      return '_';
    default:
      // pending, layout, start delay: set up, not started.
      return 'P';
  }
}

/** fio's condensed run string: runs of one character as `c(n)`, joined by commas (`w(2),_(1)`). */
export function runString(plans: readonly NativeJobPlan[], reports: readonly NativeProgress[]): string {
  const runs: Array<[string, number]> = [];
  reports.forEach((p, i) => {
    const c = statusChar(plans[i], p);
    const last = runs[runs.length - 1];
    if (last && last[0] === c) last[1]++;
    else runs.push([c, 1]);
  });
  return runs.map(([c, n]) => `${c}(${n})`).join(',');
}
