/**
 * An analysis's assertions: those on its own result (`sweep.optimal_depth >= 8`), and those on
 * the job entries it makes (`rr-qd32.clat_ns.p99 <= 2ms`), checked before any I/O against the
 * entries it may make. A gate on another analysis's result is refused.
 */
import { VolbenchError } from '../errors.js';
import { bindAssertions, parseAssertion, type AnalysisName, type Assertion } from '../gates/index.js';
import { analysisMetricsAccepted } from '../gates/analysis.js';
import type { ParsedSpec } from '../jobspec/types.js';

export function analysisAssertions(
  name: AnalysisName, given: ReadonlyArray<Assertion | string> | undefined, entries: ParsedSpec,
): Assertion[] {
  const parsed = (given ?? []).map((a) => (typeof a === 'string' ? parseAssertion(a) : a));
  for (const a of parsed) {
    if (a.analysis && a.analysis !== name) {
      throw new VolbenchError('EINVALID_ARGS', `assertion '${a.expr}': a ${name} run has no ${a.analysis} result`, {
        field: '--assert',
        accepted: `${analysisMetricsAccepted(name)}, or <job>[.<dir>].<metric> on one of its entries`,
      });
    }
  }
  const own = parsed.filter((a) => a.analysis);
  const jobs = bindAssertions(entries, parsed.filter((a) => !a.analysis));
  // In the order given.
  return parsed.map((a) => (a.analysis ? own.shift()! : jobs.shift()!));
}
