/**
 * The analyses as the library exports them: the best queue depth (sweep), speed along the
 * volume (uniformity) and seek and rotation (rotational), each resolving to one fio document
 * with its findings under `volbench.<analysis>`.
 */
export { runSweep, sweepValues, DEFAULT_MAX_DEPTH } from './sweep.js';
export type { SweepOptions, SweepPointEvent, SweepOver } from './sweep.js';
export { runUniformity } from './uniformity.js';
export type { UniformityOptions, UniformityChunkEvent } from './uniformity.js';
export { runRotational } from './rotational.js';
export type { RotationalOptions, RotationalBatchEvent } from './rotational.js';
export { scorePoints, optimumIndex, harmonicScore, DEFAULT_ALPHA } from './optimum.js';
export { estimateRotation, madFilter } from './rotational-stats.js';
export { formatAnalysis, formatSweep, formatUniformity, formatRotational } from './format.js';
export type {
  VolbenchSweep, VolbenchSweepPoint, VolbenchSweepOptimum, VolbenchUniformity, VolbenchUniformityChunk, VolbenchRotational,
} from './types.js';
