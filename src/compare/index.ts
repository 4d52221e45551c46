/**
 * Comparing two fio results (volbench's or real fio's) job by job: `volbench compare A B`.
 */
export { compareResults, DEFAULT_COMPARE_METRICS } from './compare.js';
export type { CompareOptions, Comparison, ComparisonRow } from './compare.js';
export { formatComparison } from './table.js';
export { parseFioJsonText } from './read-result.js';
