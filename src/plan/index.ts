export { planRun, startsStage } from './plan.js';
export type { PlannedJob, RunPlan, PlanOptions } from './plan.js';
export { AUTO_ENGINES } from './native-plan.js';
