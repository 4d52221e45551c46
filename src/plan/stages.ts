/**
 * fio's run structure, walked in one place: jobs run in stages (a `stonewall` job waits for
 * every job before it and starts the next stage) and report in groups (a new group at each
 * `stonewall` or `new_group`). The planner, the runtime budget and the suites' tests all read
 * the structure from here.
 */
import type { JobOptions } from '../jobspec/types.js';

export interface StageMember {
  /** Index of the job in the spec. */
  index: number;
  /** fio's reporting group. */
  groupid: number;
}

export interface Stage {
  /** 0-based, in the order the stages run. */
  index: number;
  members: StageMember[];
}

type StageFields = Pick<JobOptions, 'stonewall' | 'new_group'>;

/** Whether job `index` begins a new stage. */
export function startsStage(o: StageFields, index: number): boolean {
  return index > 0 && o.stonewall;
}

/** Whether job `index` begins a new reporting group. */
export function startsGroup(o: StageFields, index: number): boolean {
  return index > 0 && (o.stonewall || o.new_group);
}

/** The stages of a run, each with its jobs and their reporting groups, in order. */
export function stagesOf(jobs: readonly StageFields[]): Stage[] {
  const stages: Stage[] = [];
  let groupid = 0;
  jobs.forEach((o, index) => {
    if (startsGroup(o, index)) groupid++;
    if (index === 0 || startsStage(o, index)) stages.push({ index: stages.length, members: [] });
    stages[stages.length - 1].members.push({ index, groupid });
  });
  return stages;
}
