/**
 * The plan stage: from parsed options to what runs. Assigns fio's reporting groups and
 * stonewall stages, resolves every instance's target (with all checks made before any I/O),
 * and produces the native plans.
 */
import type { NativeEngineName, NativeJobPlan } from '../engine/native-types.js';
import { VolbenchError } from '../errors.js';
import { MAX_INSTANCES } from '../jobspec/options.js';
import type { JobOptions, ParsedSpec } from '../jobspec/types.js';
import { directionsUsed } from '../jobspec/directions.js';
import { AUTO_ENGINES, blockSizes, logPaths, nativePlan } from './native-plan.js';
import { TargetProber, resolveInstanceTarget } from './targets.js';

export interface PlannedJob {
  jobname: string;
  /** fio's reporting group: a new one at each stonewall or new_group. */
  groupid: number;
  /** Jobs of one stage run together; stages run one after another (stonewall). */
  stage: number;
  options: JobOptions;
  ownOptions: Array<[string, string]>;
  targetIndex: number;
  instances: NativeJobPlan[];
}

export interface RunPlan {
  jobs: PlannedJob[];
  stages: number;
  /** Distinct target paths (first instance of each job), indexed by PlannedJob.targetIndex. */
  targetPaths: string[];
  globalOptions?: Array<[string, string]>;
}

export interface PlanOptions {
  cwd?: string;
  /**
   * Block devices (resolved paths) the caller holds claimed itself, through a run of its own
   * still going: the probe for an exclusive holder would find that run, so it is skipped for
   * them. Their mounts, holders and swap are still checked, and the run that uses them later
   * is planned again, with every check, when it starts.
   */
  heldDevices?: ReadonlySet<string>;
}

/** Whether job `index` begins a new stage: jobs of a stage run together, stages one after another. */
export function startsStage(o: JobOptions, index: number): boolean {
  return index > 0 && o.stonewall;
}

function checkJob(o: JobOptions, field: string): void {
  if (o.time_based && o.runtime_ns === 0) {
    throw new VolbenchError('EINVALID_PLAN', 'time_based needs a runtime', {
      field: `${field}.runtime`,
      accepted: 'runtime=<time>, e.g. runtime=60s',
    });
  }
  if (o.verify !== 'none') {
    const used = directionsUsed(o);
    const writeSizes = new Set(blockSizes(o)[1].map((e) => e.bs));
    if (used[2]) {
      throw new VolbenchError('EINVALID_PLAN', `verify=${o.verify} cannot be used with rw=${o.rw}`, {
        field: `${field}.verify`,
        accepted: 'verify with read, write and mixed workloads',
      });
    }
    if ((used[1] || o.verify_only) && writeSizes.size !== 1) {
      throw new VolbenchError('EINVALID_PLAN', 'verify needs one write block size (no bssplit or bs range for writes)', {
        field: `${field}.bssplit`,
        accepted: 'a single bs for writes',
      });
    }
    const verifyBs = used[1] || o.verify_only ? blockSizes(o)[1][0].bs : blockSizes(o)[0][0].bs;
    if (verifyBs < 64) {
      throw new VolbenchError('EINVALID_PLAN', `verify needs blocks of at least 64 bytes, bs is ${verifyBs}`, {
        field: `${field}.bs`,
      });
    }
  }
}

function enginesFor(o: JobOptions): NativeEngineName[] {
  return o.ioengine ? [o.ioengine] : AUTO_ENGINES;
}

export async function planRun(spec: ParsedSpec, options: PlanOptions = {}): Promise<RunPlan> {
  let instances = 0;
  for (const [index, { options: o }] of spec.jobs.entries()) {
    instances += o.numjobs;
    if (instances > MAX_INSTANCES) {
      throw new VolbenchError('EINVALID_PLAN', `the run has more than ${MAX_INSTANCES} job instances (numjobs summed over its jobs)`, {
        field: `jobs[${index}].numjobs`,
        accepted: `at most ${MAX_INSTANCES} instances in all, as fio`,
      });
    }
  }
  const cwd = options.cwd ?? process.cwd();
  const prober = new TargetProber();
  const jobs: PlannedJob[] = [];
  const targetIndex = new Map<string, number>();
  const targetPaths: string[] = [];
  let groupid = 0;
  let stage = 0;
  let jobNumber = 1;
  for (const [index, job] of spec.jobs.entries()) {
    const o = job.options;
    const field = `jobs[${index}]`;
    checkJob(o, field);
    if (index > 0 && (o.stonewall || o.new_group)) groupid++;
    if (startsStage(o, index)) stage++;
    const instances: NativeJobPlan[] = [];
    let firstPath = '';
    for (let i = 0; i < o.numjobs; i++) {
      const target = await resolveInstanceTarget(o, i, { cwd, field, prober, heldDevices: options.heldDevices });
      if (i === 0) firstPath = target.path;
      instances.push(nativePlan(o, i, target, enginesFor(o), logPaths(o, jobNumber++, cwd)));
    }
    if (!targetIndex.has(firstPath)) {
      targetIndex.set(firstPath, targetPaths.length);
      targetPaths.push(firstPath);
    }
    jobs.push({
      jobname: o.name,
      groupid,
      stage,
      options: o,
      ownOptions: job.ownOptions,
      targetIndex: targetIndex.get(firstPath)!,
      instances,
    });
  }
  return { jobs, stages: stage + 1, targetPaths, ...(spec.globalOptions ? { globalOptions: spec.globalOptions } : {}) };
}
