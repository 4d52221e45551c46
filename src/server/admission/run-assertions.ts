/**
 * The assertions a run is submitted with. Each is parsed on arrival (400 naming `assert[i]`, or
 * `query.assert[i]` for a job file) and bound to the run's jobs once its spec is known (422: it
 * names a job, direction or metric the run will not report), both before anything is stored or
 * queued, as `volbench run --assert` refuses them before any I/O.
 */
import { VolbenchError } from '../../errors.js';
import { bindAssertion, parseAssertion, type Assertion, type AssertionOutcome } from '../../gates/index.js';
import { formatJson } from '../../fio-output/index.js';
import type { ParsedSpec } from '../../jobspec/types.js';
import type { Gate } from '../../api/assertion.js';
import { assertionNotApplicable, invalidAssertion } from '../problems/service-problems.js';

function assertionProblem(err: unknown, field: string, unbound: boolean): unknown {
  if (!(err instanceof VolbenchError)) return err;
  const extra = { field, code: err.code, ...(err.accepted === undefined ? {} : { accepted: err.accepted }) };
  return unbound ? assertionNotApplicable(err.message, extra) : invalidAssertion(err.message, extra);
}

/** Parses each text; `field` is where they came from (`assert` or `query.assert`). */
export function parseRunAssertions(texts: readonly string[], field: string): Assertion[] {
  return texts.map((text, i) => {
    try {
      return parseAssertion(text);
    } catch (err) {
      throw assertionProblem(err, `${field}[${i}]`, false);
    }
  });
}

/** Checks each assertion against the jobs the run will have, filling in its direction. */
export function bindRunAssertions(parsed: ParsedSpec, assertions: readonly Assertion[], field: string): Assertion[] {
  return assertions.map((a, i) => {
    try {
      return bindAssertion(a, parsed);
    } catch (err) {
      throw assertionProblem(err, `${field}[${i}]`, true);
    }
  });
}

/**
 * The outcomes with their numbers as fio's JSON prints them (six decimals), so that the run
 * record says exactly what `volbench.assertions` in the result says.
 */
export function asPrinted(outcomes: readonly AssertionOutcome[]): AssertionOutcome[] {
  const printed = JSON.parse(formatJson({ volbench: { assertions: outcomes } })) as { volbench: { assertions: AssertionOutcome[] } };
  return printed.volbench.assertions;
}

/** The run's gate: null without assertions, else whether every one held. */
export function gateOf(outcomes: readonly AssertionOutcome[]): Gate | null {
  if (outcomes.length === 0) return null;
  return outcomes.every((o) => o.passed) ? 'passed' : 'failed';
}
