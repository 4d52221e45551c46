/**
 * How long a fleet's workload takes, for the checks against its life (ttl.ts): a job file's
 * timed stages, a suite's (times its loops), or what the plan counted (the members' suites and
 * preconditions).
 */
import { parseJobFile, parseSpec } from '../jobspec/index.js';
import { timedSeconds } from '../plan/index.js';
import { suiteSeconds, type FleetPlan } from './plan.js';
import type { RunWorkload } from './run.js';

/** Seconds a fio job file's timed stages take. */
export function jobFileSeconds(text: string): number {
  return timedSeconds(parseSpec(parseJobFile(text, {})));
}

/** Seconds `fleet run` with `workload` takes on the fleet of `plan`; a suite it does not know is refused naming --suite. */
export function workloadSeconds(plan: FleetPlan, workload: RunWorkload): number {
  if (workload.jobFile !== undefined) return jobFileSeconds(workload.jobFile);
  if (workload.suite !== undefined) return suiteSeconds(workload.suite, '--suite', workload.runtime ?? plan.runtime);
  return plan.workloadSeconds;
}
