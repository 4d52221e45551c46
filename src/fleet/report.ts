/**
 * `fleet report` is publish's report fed by the fleet: one input per member in the plan's order,
 * its result (with the fleet's cloud facts: volume, region, price) or why there is none, labelled
 * by the member. The same tables, columns and prices as `volbench report` on the saved files.
 */
import { fioResultSchema } from '../api/fio-result.js';
import type { FioResult } from '../fio-output/fio-result.js';
import type { Report, ReportInput } from '../publish/index.js';
import { buildPublishReport, catalogPricer } from '../publish/index.js';
import { memberCloud } from './member-cloud.js';
import type { MemberResult } from './member-run.js';
import { ResultFiles } from './result-files.js';
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
      result: r.result ?? null,
      status: r.status === 'unreachable' ? 'failed' : r.status,
      error,
      suite,
      ...(r.result ? {} : { cloud }),
    };
  });
}

/** The fleet's price/performance report (publish's model), its prices from the catalog. */
export function fleetReport(state: FleetState, results: readonly MemberResult[]): Report {
  return buildPublishReport(fleetReportInputs(state, results), { priceVolume: catalogPricer() });
}

/** A saved result, parsed with the service's result schema; undefined when it is not one. */
function parseSaved(text: string): FioResult | undefined {
  try {
    const parsed = fioResultSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data as FioResult : undefined;
  } catch {
    return undefined;
  }
}

/** Each member's result as `run` saved it beneath `outDir`, read without following a link. */
export function savedResults(state: FleetState, outDir: string): MemberResult[] {
  const files = ResultFiles.open(outDir, state.fleetId, false);
  try {
    return state.members.map(({ label }): MemberResult => {
      const text = files?.readResult(label);
      const result = text === undefined ? undefined : parseSaved(text);
      return result ? { label, status: 'finished', result } : { label, status: 'unreachable', error: text === undefined ? 'no result saved' : 'not a result' };
    });
  } finally {
    files?.close();
  }
}

