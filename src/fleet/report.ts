/**
 * `fleet report` is publish's report fed by the fleet: one input per member in the plan's order,
 * its result (with the fleet's cloud facts: volume, region, price) or why there is none, labelled
 * by the member. The same tables, columns and prices as `volbench report` on the saved files.
 */
import type { ReportInput } from '../publish/model.js';
import type { FioJson } from '../fio-output/fio-result.js';
import { memberCloud } from './member-cloud.js';
import type { MemberResult } from './run.js';
import type { FleetState } from './state.js';

export function fleetReportInputs(state: FleetState, results: readonly MemberResult[]): ReportInput[] {
  return state.plan.members.map((member): ReportInput => {
    const suite = member.suite ?? state.plan.suite;
    const r = results.find((x) => x.label === member.label);
    // Without a result, the row still says which volume it was and what it costs.
    const cloud = memberCloud(state, member.label);
    if (!r) return { source: member.label, result: null, status: 'failed', error: 'not run', suite, cloud };
    const error = r.error ?? (r.gate === 'failed' ? 'gate failed' : null);
    return {
      source: member.label,
      result: (r.result as unknown as FioJson | undefined) ?? null,
      status: r.status === 'unreachable' ? 'failed' : r.status,
      error,
      suite,
      ...(r.result ? {} : { cloud }),
    };
  });
}
