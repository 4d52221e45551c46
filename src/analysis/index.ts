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
export { scorePoints, optimumIndex, harmonicScore, DEFAULT_ALPHA } from '../findings/optimum.js';
export { estimateRotation, madFilter } from '../findings/rotational-stats.js';
export { analyseBurst, analyseJobBurst, MIN_CLIFF_POINTS } from '../findings/burst.js';
export type { BurstOptions } from '../findings/burst.js';
export { findCliff } from '../findings/cliff.js';
export { untilBaselineSpec, CliffWatch } from '../run/until-baseline.js';
export type { UntilBaseline } from '../run/until-baseline.js';
export type { Cliff, RatePoint } from '../findings/cliff.js';
export { formatAnalysis, formatSweep, formatUniformity, formatRotational } from './format.js';
export type {
  VolbenchSweep, VolbenchSweepPoint, VolbenchSweepOptimum, VolbenchUniformity, VolbenchUniformityChunk, VolbenchRotational,
  VolbenchBurst, VolbenchBurstCatalog, VolbenchJobAnalysis,
} from '../fio-output/analysis-sections.js';
