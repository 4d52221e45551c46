/**
 * The analyses as the library exports them: the best queue depth (sweep), speed along the
 * volume (uniformity) and seek and rotation (rotational), each resolving to one fio document
 * with its findings under `volbench.<analysis>`.
 */
export { runSweep, prepareSweep, runPreparedSweep, sweepValues, DEFAULT_MAX_DEPTH } from './sweep.js';
export type { SweepOptions, SweepPointEvent, SweepOver, PreparedSweep, AnalysisShape } from './sweep.js';
export { runUniformity, prepareUniformity, runPreparedUniformity } from './uniformity.js';
export type { UniformityOptions, UniformityChunkEvent, PreparedUniformity } from './uniformity.js';
export { runRotational, prepareRotational, runPreparedRotational } from './rotational.js';
export type { RotationalOptions, RotationalBatchEvent, PreparedRotational } from './rotational.js';
export { scorePoints, optimumIndex, harmonicScore, DEFAULT_ALPHA } from './optimum.js';
export { estimateRotation, madFilter } from './rotational-stats.js';
export { analyseBurst, analyseJobBurst, MIN_CLIFF_POINTS } from './burst.js';
export type { BurstOptions } from './burst.js';
export { findCliff } from './cliff.js';
export { untilBaselineSpec, CliffWatch } from './until-baseline.js';
export type { UntilBaseline } from './until-baseline.js';
export type { Cliff, RatePoint } from './cliff.js';
export { formatAnalysis, formatSweep, formatUniformity, formatRotational } from './format.js';
export type {
  VolbenchSweep, VolbenchSweepPoint, VolbenchSweepOptimum, VolbenchUniformity, VolbenchUniformityChunk, VolbenchRotational,
  VolbenchBurst, VolbenchBurstCatalog, VolbenchJobAnalysis,
} from './types.js';
