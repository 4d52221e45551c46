/**
 * Pipeline gates: `<job>[.<dir>].<metric> <op> <value>`, e.g.
 *
 *   RND4K-Q32T1-read.iops >= 3000
 *   RND4K-Q1T1-read.clat_ns.p99 <= 2ms
 *   mixed-job.write.bw > 200MiB/s
 *
 * parseAssertion checks only the text; bindAssertions (bind.ts) checks it against a spec.
 */
import { VolbenchError } from '../errors.js';
import { DIRECTIONS, METRICS_ACCEPTED, metricValueKind, parseMetric, type Direction } from './metrics.js';
import { BASE_UNIT, parseValue, type ParsedValue, type ValueKind } from './values.js';
import { ANALYSIS_ACCEPTED, analysisSubject, analysisUnit, parseAnalysisValue, type AnalysisName } from './analysis.js';

import { OPS, type ComparisonOp } from './compare.js';

export { compare, OPS } from './compare.js';
export type { ComparisonOp } from './compare.js';

export const ASSERTION_ACCEPTED =
  '<job>[.<dir>].<metric> <op> <value>, where dir is read, write, trim, sync or mixed, metric is ' +
  `${METRICS_ACCEPTED}, and op is one of ${OPS.join(' ')}; e.g. 'RND4K-Q32T1-read.iops >= 3000'; or ${ANALYSIS_ACCEPTED}`;

export interface Assertion {
  /** The text as given, trimmed. */
  expr: string;
  job: string;
  /** As written, or filled in by bindAssertions; unset means "the only direction with I/O". */
  dir?: Direction;
  /** Canonical metric name: iops, bw, io_bytes, error, clat_ns.p99, lat_ns.mean, ... */
  metric: string;
  op: ComparisonOp;
  /** In the metric's base unit: IOPS, B/s, bytes, ns, errno. */
  wanted: number;
  /** The unit the value was written in ('' when none), to print measured values alike. */
  wantedUnit: string;
  /** Set for a gate on an analysis's result (gates/analysis.ts): `job` is then the analysis. */
  analysis?: AnalysisName;
}

function malformed(expr: string, why: string): VolbenchError {
  return new VolbenchError('EINVALID_ARGS', `assertion '${expr}': ${why}`, { field: '--assert', accepted: ASSERTION_ACCEPTED });
}

/**
 * Longest assertion accepted. A gate names a job (fio caps job names at 255 characters), a
 * metric and a value; 1000 characters is room to spare, and a bound keeps a hostile text cheap.
 */
export const MAX_ASSERTION_LENGTH = 1000;

const OPERATOR_START = '<>=!';

/**
 * Splits `lhs op rhs` at the first comparison operator, blanks around it dropped. A scan rather
 * than a regex: a lazy subject followed by `\s*` backtracks quadratically on long runs of blanks.
 */
function splitAtOperator(expr: string): [string, ComparisonOp, string] | null {
  let at = 0;
  while (at < expr.length && !OPERATOR_START.includes(expr[at])) at++;
  if (at === expr.length) return null;
  const two = expr.slice(at, at + 2);
  const op = (OPS as readonly string[]).includes(two) ? two : expr[at];
  if (!(OPS as readonly string[]).includes(op)) return null;
  return [expr.slice(0, at).trimEnd(), op as ComparisonOp, expr.slice(at + op.length).trimStart()];
}

/** The first characters of a text too long to show whole. */
function shortened(text: string): string {
  return text.length <= 60 ? text : `${text.slice(0, 60)}…`;
}

/**
 * `<job>[.<dir>].<metric>`: the metric is found from the right (it may hold dots: `clat_ns.p99.9`),
 * then an optional direction, and what is left is the job name (which may hold dots too).
 */
function splitSubject(subject: string): { job: string; dir?: Direction; metric: string } | null {
  const parts = subject.split('.');
  for (let take = Math.min(3, parts.length - 1); take >= 1; take--) {
    const metric = parseMetric(parts.slice(parts.length - take).join('.'));
    if (!metric) continue;
    const rest = parts.slice(0, parts.length - take);
    const last = rest[rest.length - 1] as Direction;
    if (rest.length > 1 && DIRECTIONS.includes(last)) return { job: rest.slice(0, -1).join('.'), dir: last, metric: metric.name };
    return { job: rest.join('.'), metric: metric.name };
  }
  return null;
}

/** The value of an assertion, its errors naming the assertion. */
function parseWanted(expr: string, text: string, kind: ValueKind): ParsedValue {
  try {
    return parseValue(text, kind, '--assert');
  } catch (err) {
    if (!(err instanceof VolbenchError)) throw err;
    throw new VolbenchError(err.code, `assertion '${expr}': ${err.message}`, { field: '--assert', ...(err.accepted ? { accepted: err.accepted } : {}) });
  }
}

/** Parses one assertion; a VolbenchError (EINVALID_ARGS) says what is wrong and what is accepted. */
export function parseAssertion(text: string): Assertion {
  if (text.length > MAX_ASSERTION_LENGTH) {
    throw new VolbenchError('EINVALID_ARGS',
      `assertion '${shortened(text)}' is ${text.length} characters long, more than ${MAX_ASSERTION_LENGTH}`,
      { field: '--assert', accepted: `${ASSERTION_ACCEPTED}, at most ${MAX_ASSERTION_LENGTH} characters` });
  }
  const expr = text.trim();
  const split = splitAtOperator(expr);
  if (!split || split[0] === '') {
    throw malformed(expr, split ? 'no job and metric before the operator' : `no comparison operator (${OPS.join(' ')})`);
  }
  const [subject, op, valueText] = split;
  if (valueText === '') throw malformed(expr, `no value after '${op}'`);
  if (/[<>=!]/.test(valueText)) throw malformed(expr, `more than one comparison operator`);
  const analysis = analysisSubject(subject);
  if (analysis) {
    const wanted = parseAnalysisValue(analysis.analysis, analysis.metric, valueText, expr);
    return { expr, job: analysis.analysis, metric: analysis.metric, op, wanted: wanted.value, wantedUnit: wanted.unit, analysis: analysis.analysis };
  }
  const parts = splitSubject(subject);
  if (!parts && parseMetric(subject)) throw malformed(expr, `'${subject}' names a metric but no job: write <job>.${subject}`);
  if (!parts || parts.job === '') {
    throw malformed(expr, `'${subject}' does not end in a known metric (${METRICS_ACCEPTED})`);
  }
  const metric = parseMetric(parts.metric)!;
  if (metric.kind === 'error' && parts.dir) throw malformed(expr, 'error is a whole-job metric and takes no direction');
  const parsed = parseWanted(expr, valueText, metricValueKind(metric));
  return {
    expr,
    job: parts.job,
    ...(parts.dir ? { dir: parts.dir } : {}),
    metric: parts.metric,
    op,
    wanted: parsed.value,
    wantedUnit: parsed.unit,
  };
}

/** The unit an assertion's wanted and measured numbers are held in. */
export function baseUnit(assertion: Assertion): string {
  if (assertion.analysis) return analysisUnit(assertion.analysis, assertion.metric);
  return BASE_UNIT[metricValueKind(parseMetric(assertion.metric)!)];
}
