export { planRun, effectiveSpec, withDefaultTarget, planMemoryBytes } from './plan.js';
export type { PlannedJob, RunPlan, PlanOptions, DefaultTarget, LayoutNote } from './plan.js';
export { startsStage, startsGroup, stagesOf } from './stages.js';
export type { Stage, StageMember } from './stages.js';
export { parseMaxRuntimeSec, optionField, timeBasedSeconds, timedSeconds } from './limits.js';
export { parseUntilSteadySec } from './steady.js';
export { blockWriteAllowed, writesTarget } from './targets.js';
export type { RunLimits } from './limits.js';
export { HeldTargets } from './held-targets.js';
