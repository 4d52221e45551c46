/**
 * Judges assertions against a result (volbench's or real fio's JSON) and records the outcome
 * under `volbench.assertions`.
 */
import type { FioJob, FioJson, VolbenchAssertion } from '../fio-output/fio-result.js';
import { compare, parseAssertion, type Assertion } from './assertion.js';
import { directionsWithIo, measure, metricValueKind, parseMetric, type Direction } from './metrics.js';
import { BASE_UNIT, formatValue } from './values.js';
import { evaluateAnalysis } from './analysis.js';

export type AssertionOutcome = VolbenchAssertion;

function outcome(a: Assertion, dir: Direction | null, measured: number | null, message: string, passed = false): AssertionOutcome {
  const kind = metricValueKind(parseMetric(a.metric)!);
  return {
    expr: a.expr, job: a.job, dir, metric: a.metric, op: a.op, wanted: a.wanted, measured, passed,
    unit: BASE_UNIT[kind], message,
  };
}

/** The direction an unbound assertion means in this entry: the only one with I/O. */
function resolveDirection(a: Assertion, entry: FioJob): Direction | string {
  if (a.dir) return a.dir;
  const withIo = directionsWithIo(entry);
  // unified_rw_reporting=both repeats read and write as mixed: the plain directions win.
  const dirs = withIo.length > 1 ? withIo.filter((d) => d !== 'mixed') : withIo;
  if (dirs.length === 1) return dirs[0];
  if (dirs.length === 0) return `job ${a.job} did no I/O`;
  return `job ${a.job} did ${dirs.join(' and ')}: name the direction (${dirs.map((d) => `${a.job}.${d}.${a.metric}`).join(' or ')})`;
}

function evaluateOne(a: Assertion, jobs: readonly FioJob[]): AssertionOutcome {
  const entries = jobs.filter((j) => j.jobname === a.job);
  if (entries.length === 0) return outcome(a, a.dir ?? null, null, `no job named '${a.job}' in the result`);
  if (entries.length > 1) {
    return outcome(a, a.dir ?? null, null, `${entries.length} entries are named '${a.job}' (numjobs without group_reporting?)`);
  }
  const entry = entries[0];
  const metric = parseMetric(a.metric)!;
  let dir: Direction | null = null;
  if (metric.kind !== 'error') {
    const resolved = resolveDirection(a, entry);
    if (!['read', 'write', 'trim', 'sync', 'mixed'].includes(resolved)) return outcome(a, null, null, resolved);
    dir = resolved as Direction;
  }
  const m = measure(entry, dir, metric);
  if ('missing' in m) return outcome(a, dir, null, m.missing);
  const kind = metricValueKind(metric);
  const passed = compare(m.value, a.op, a.wanted);
  const wanted = `${a.op} ${formatValue(a.wanted, kind, a.wantedUnit)}`;
  return outcome(a, dir, m.value, `measured ${formatValue(m.value, kind, a.wantedUnit)}, wanted ${wanted}`, passed);
}

/**
 * Judges each assertion (text or parsed) against `result`. A job or metric that is missing from
 * the result fails its assertion with a message saying so.
 */
export function evaluateAssertions(result: FioJson, assertions: ReadonlyArray<Assertion | string>): AssertionOutcome[] {
  return assertions.map((text) => {
    const a = typeof text === 'string' ? parseAssertion(text) : text;
    return a.analysis ? evaluateAnalysis(a, result, compare) : evaluateOne(a, result.jobs);
  });
}

/** `result` with the outcomes under `volbench.assertions` (the rest of the object is shared). */
export function withAssertions<T extends FioJson>(result: T, outcomes: readonly AssertionOutcome[]): T {
  // Real fio JSON has no "volbench" key: the outcomes get one of their own.
  if (!result.volbench) return { ...result, volbench: { assertions: [...outcomes] } } as unknown as T;
  return { ...result, volbench: { ...result.volbench, assertions: [...outcomes] } };
}

/**
 * `result` judged: with the outcomes of `assertions` under `volbench.assertions`, or as it is
 * when there are none. The one place a run's result gets its assertions.
 */
export function judged<T extends FioJson>(result: T, assertions: ReadonlyArray<Assertion | string>): T {
  return assertions.length === 0 ? result : withAssertions(result, evaluateAssertions(result, assertions));
}

/** A one-line account of an outcome: "PASS expr (measured …)" or "FAIL expr: measured …, wanted …". */
export function describeOutcome(o: AssertionOutcome): string {
  return o.passed ? `PASS ${o.expr} (${o.message})` : `FAIL ${o.expr}: ${o.message}`;
}
