/**
 * volbench: block storage benchmarks with fio's options, answered in fio's JSON.
 *
 *   import { runJobs, parseJobFile, parseFioArgs, formatNormal } from 'volbench';
 *   const result = await runJobs(parseJobFile(text), { onProgress, signal });
 *
 * The HTTP service is `volbench/server` and the Lambda handler `volbench/lambda`: this entry
 * loads neither, nor their dependencies (Fastify, SQLite, prom-client).
 */
// First: on a Node older than volbench needs, this import fails with the reason.
import './require-node.js';
export { VolbenchError } from './errors.js';
export type { VolbenchErrorCode, VolbenchErrorDetails } from './errors.js';
export { runJobs, runParsed, runPlan } from './run/run-jobs.js';
export type { RunJobsOptions, RunControl } from './run/run-jobs.js';
export { planRun, effectiveSpec, stagesOf, parseMaxRuntimeSec } from './plan/index.js';
export type { PlanOptions, RunPlan, PlannedJob, DefaultTarget, RunLimits, Stage, StageMember } from './plan/index.js';
export { ENGINES, engineSpec } from './engine/engines.js';
export type { EngineSpec, EngineName } from './engine/engines.js';
export type { RunProgress, DirectionRate } from './run/progress.js';
export { parseJobFile, parseFioArgs, parseSpec, printJobFile, jobSpecSchema } from './jobspec/index.js';
export type { FioArgs } from './jobspec/index.js';
export type { JobSpec, JobOptions, ParsedSpec, ParsedJob, RawOptionValue } from './jobspec/types.js';
export { formatNormal, formatJson, formatResult, buildReport } from './fio-output/index.js';
export type { FioResult, FioJob, OutputFormat, TargetIdentity, DiskUtil } from './fio-output/index.js';
export { identifyTarget } from './device/index.js';
export { setStuckThreadLimit, stuckTally } from './device/root-calls.js';
export type { NativeStuck as StuckTally, NativeStuckEntry as StuckEntry } from './engine/native-types.js';
export { RunFiles } from './run/run-files.js';
export type { FileIdentity } from './device/anchor.js';
export { listSuites, loadSuite, runSuite, describeSuite, suiteTable } from './suites/index.js';
export type { Suite, SuiteInfo, SuiteDefinition, SuiteRunOptions, SuiteOverrides, SuiteTestEvent } from './suites/index.js';
export {
  parseAssertion, bindAssertions, evaluateAssertions, withAssertions, judged, toJUnit, toGithubAnnotations,
} from './gates/index.js';
export type { Assertion, AssertionOutcome, ComparisonOp, JUnitOptions } from './gates/index.js';
export { compareResults, formatComparison, parseFioJsonText } from './compare/index.js';
export type { CompareOptions, Comparison, ComparisonRow } from './compare/index.js';
export type {
  VolbenchAssertion, VolbenchJobLoops, VolbenchLoopDir, VolbenchLoopValues, VolbenchSuiteInfo,
} from './fio-output/fio-result.js';
export {
  runSweep, runUniformity, runRotational, formatAnalysis, analyseBurst, findCliff, untilBaselineSpec,
} from './analysis/index.js';
export type {
  SweepOptions, SweepPointEvent, SweepOver, UniformityOptions, UniformityChunkEvent, RotationalOptions, RotationalBatchEvent,
  VolbenchSweep, VolbenchSweepPoint, VolbenchUniformity, VolbenchUniformityChunk, VolbenchRotational,
  BurstOptions, Cliff, RatePoint, UntilBaseline, VolbenchBurst, VolbenchBurstCatalog, VolbenchJobAnalysis,
} from './analysis/index.js';
export {
  checkPlacement, directionOf, entitlement, instanceType, loadCatalog, parseVolume, parseVolumes, priceVolume, volumeType,
  Volume, volumeFromJson, volumeOf, volumeMonthly, instanceHourly, HOURS_PER_MONTH, scaleEntitlement, emulationBanner, bindingOf, cloudFacts,
} from './cloud/index.js';
export type {
  BoundBy, BoundBySource, CloudContext, DatedPrice, Direction, Entitlement, EntitlementQuery, LabelledVolume, Limit, VolbenchEmulation, VolumeInput, VolumeJson, VolumePrice,
  VolumeSpec, VolumeTypeInfo,
} from './cloud/index.js';
export type { VolbenchEbsStats } from './fio-output/index.js';
export { finishRun } from './run/finish.js';
export type { FinishOptions } from './run/finish.js';
export {
  buildPublishReport, renderReport, renderReportFiles, renderMarkdown, renderCsv, renderJson, renderHtml, readReportFile, readReportS3, parseReportInput, REPORT_FORMATS,
  REPORT_FILES, catalogPricer,
} from './publish/index.js';
export type {
  Report, ReportContext, ReportGroup, ReportRow, ReportColumn, ReportCell, ReportInput, ReportOptions, ReportFormat, CloudVolumeFields, VolumePrice as ReportVolumePrice,
  PriceVolume,
} from './publish/index.js';
export { VERSION } from './version.js';

import { nativeAddon } from './engine/addon.js';
import type { EngineName } from './engine/engines.js';

/** Engines this kernel can set up (io_uring, libaio, psync, sync, null). */
export function availableEngines(): EngineName[] {
  return nativeAddon().engines();
}
