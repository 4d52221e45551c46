/**
 * Named suites: fio job files shipped in the package (suites/*.fio), run test by test with
 * KDiskMark-style loops and folded into one fio document.
 */
export { suiteDefinitions } from './catalog.js';
export type { SuiteDefinition, SuiteTarget } from './catalog.js';
export { fleetDefaultSuite, manifestTests, QUESTION_METRICS, suiteManifest } from './manifest.js';
export type { ManifestSuite, SuiteQuestion } from './manifest.js';
export { listSuites, loadSuite, suitesDirectory } from './load.js';
export type { Suite, SuiteInfo } from './load.js';
export { describeSuite } from './describe.js';
export { applyOverrides, checkSuiteTarget, sizedSpec } from './overrides.js';
export type { SuiteOverrides } from './overrides.js';
export { runSuite, prepareSuite, runPrepared, suiteTests } from './run-suite.js';
export type { SuiteRunOptions, SuiteTestEvent, PreparedSuite } from './run-suite.js';
export { mergeSuiteRuns, combineDiskUtil } from './merge.js';
export type { LoopRun, TestRuns } from './merge.js';
export { bestLoop, loopValues, jobLoops } from './loops.js';
export { suiteTable } from './table.js';
