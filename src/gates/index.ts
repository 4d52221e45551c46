/**
 * Pipeline gates: assertions on a result's numbers, judged after a run, reported in the
 * result itself, as JUnit XML and as GitHub Actions annotations.
 */
export { parseAssertion, compare, baseUnit, ASSERTION_ACCEPTED, OPS } from './assertion.js';
export type { Assertion, ComparisonOp } from './assertion.js';
export { bindAssertion, bindAssertions, jobDirections } from './bind.js';
export { evaluateAssertions, withAssertions, judged, describeOutcome } from './evaluate.js';
export type { AssertionOutcome } from './evaluate.js';
export { toJUnit, escapeXml } from './junit.js';
export type { JUnitOptions } from './junit.js';
export { toGithubAnnotations, githubAnnotation } from './github.js';
export {
  parseMetric, measure, latencyPercentile, directionsWithIo, higherIsBetter, metricValueKind, percentileKey,
  METRICS_ACCEPTED, DIRECTIONS,
} from './metrics.js';
export type { Direction, DataDirection, Metric, Measurement } from './metrics.js';
export { parseValue, formatValue, formatTimeNs, BASE_UNIT } from './values.js';
export type { ValueKind, ParsedValue } from './values.js';
export { ANALYSIS_NAMES, analysisMetricsAccepted, analysisSubject } from './analysis.js';
export type { AnalysisName } from './analysis.js';
