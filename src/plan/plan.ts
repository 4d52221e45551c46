/**
 * The plan stage: from parsed options to what runs. Applies the caller's rules (a default
 * target, limits, which block devices may be written), assigns fio's reporting groups and
 * stonewall stages, resolves every instance's target (with all checks made before any I/O),
 * binds the run's assertions and produces the native plans.
 */
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';

import type { NativeJobPlan } from '../engine/native-types.js';
import { VolbenchError } from '../errors.js';
import { bindAssertions, parseAssertion, type Assertion } from '../gates/index.js';
import { parseCpuList } from '../jobspec/cpu-list.js';
import { MAX_INSTANCES } from '../jobspec/options.js';
import type { JobOptions, ParsedSpec } from '../jobspec/types.js';
import { directionsUsed } from '../jobspec/directions.js';
import { engineSpec, enginesFor } from '../engine/engines.js';
import { checkInstanceCount, checkRunMemory, checkRunSize, withRuntimeBudget, type JobMemory, type RunLimits } from './limits.js';
import { blockSizes, instanceMemoryBytes, logPaths, maxBlockSize, nativePlan } from './native-plan.js';
import { randomMapFor } from './random-map.js';
import { stagesOf } from './stages.js';
import { TargetProber, resolveInstanceTargets, resolveLogTarget, writesTarget, type ResolveContext } from './targets.js';
import { Anchors, type AnchorRoot } from '../device/anchor.js';
import type { HeldTargets } from './held-targets.js';
import type { LogPaths, LogTargets } from './native-plan.js';
import { checkPlacement, volumeOf, type CloudContext } from '../cloud/index.js';
import { SteadyGroups, untilSteady } from './steady.js';

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
  /** Per instance: the files it lays out (creates or extends) before its I/O. */
  layouts: LayoutNote[][];
  /** What the job will do otherwise than its options say (fio's warnings, e.g. blockalign). */
  notes: string[];
}

/** A file a job creates or extends before its I/O, as fio says "Laying out IO file". */
export interface LayoutNote {
  path: string;
  fromBytes: number;
  toBytes: number;
}

export interface RunPlan {
  /** The spec as it runs: the caller's default target and runtime budget applied. */
  spec: ParsedSpec;
  jobs: PlannedJob[];
  stages: number;
  /**
   * Distinct target paths: every file of every job, the first instance's first file of each
   * job among them (PlannedJob.targetIndex).
   */
  targetPaths: string[];
  globalOptions?: Array<[string, string]>;
  /** Bound to the spec: judged on the result. */
  assertions: Assertion[];
  /** The volume (and instance) measured: the result gains volbench.cloud and each job's entitlement. */
  cloud?: CloudContext;
  /**
   * Closes the directories the plan holds for the engine to open beneath. runPlan calls it when
   * the run ends; a plan that is never run should be released by its maker. Idempotent.
   */
  release(): void;
}

/** Where jobs that name neither filename nor directory do their I/O. */
export type DefaultTarget = { directory: string } | { filename: string };

export interface PlanOptions {
  /** Directory relative file names resolve against (default: process.cwd()). */
  cwd?: string;
  /** Jobs without filename or directory run here (default: fio's, a file in cwd). */
  defaultTarget?: DefaultTarget;
  limits?: RunLimits;
  /** How many times the caller runs the spec (a suite's loops): the runtime limit covers them all. */
  repeats?: number;
  /**
   * Whether a block device (its resolved path) may be written. When given it decides for every
   * job, in place of the spec's allow_block_write; mounted or held devices are refused anyway.
   */
  allowBlockWrite?: (devicePath: string) => boolean;
  /**
   * Block devices (resolved paths) the caller holds claimed itself, through a run of its own
   * still going: the probe for an exclusive holder would find that run, so it is skipped for
   * them. Their mounts, holders and swap are still checked, and the run that uses them later
   * is planned again, with every check, when it starts.
   */
  heldDevices?: ReadonlySet<string>;
  /** Judged on the result (`volbench.assertions`); refused before any I/O when they cannot apply. */
  assertions?: ReadonlyArray<Assertion | string>;
  /**
   * The only places the run may open: every target and log must be beneath a directory root or
   * be a device root, and the engine opens it beneath the root's held descriptor. Without
   * roots, each path is opened beneath its own directory, held from planning on.
   */
  roots?: readonly AnchorRoot[];
  /**
   * Runs every job until its steady state holds, or for this many seconds at most (the CLI's
   * --until-steady): time-based with this runtime, and fio's steadystate check with
   * iops_slope:0.1% over 30 s (at most half the time) where the job gives none.
   */
  untilSteadySec?: number;
  /**
   * The directories (and files) earlier plans of the same work used, held for this one: a
   * sweep's points, a suite's tests, a service's run from admission to start. Paths are resolved
   * and opened beneath the directories held there, never by name again (HeldTargets). The
   * caller releases it once the last of them has run.
   */
  held?: HeldTargets;
  /**
   * fio's --readonly: a job that would write or trim, lay a file out or remove one is refused
   * before any file is opened.
   */
  readonly?: boolean;
  /** Files the run must never open under any name (a service's store): their dev and ino. */
  forbidden?: ReadonlyArray<{ dev: bigint; ino: bigint }>;
  /**
   * The volume (and the instance it is attached to) the targets are on, as the catalog knows
   * them: checked here, before any I/O; the result says what that volume should have delivered
   * to each job (`volbench.cloud`, `volbench.jobs[].entitlement`) before assertions are judged.
   */
  cloud?: CloudContext;
}

/**
 * How many CPUs the machine has, online or not (fio's _SC_NPROCESSORS_CONF): from
 * /sys/devices/system/cpu/present, else the online ones Node sees; 0 when neither answers.
 */
function machineCpuCount(): number {
  try {
    const present = parseCpuList(readFileSync('/sys/devices/system/cpu/present', 'utf8').trim(), 'present');
    if (present.length > 0) return present[present.length - 1] + 1;
  } catch {
    // Not Linux's sysfs, or a format not met before: the online count below.
  }
  return cpus().length;
}

function checkJob(o: JobOptions, field: string): void {
  // As fio: a CPU this machine does not have is an error, not a CPU skipped.
  const cpuCount = o.cpus_allowed.length > 0 ? machineCpuCount() : 0;
  const missing = cpuCount > 0 ? o.cpus_allowed.find((n) => n >= cpuCount) : undefined;
  if (missing !== undefined) {
    throw new VolbenchError('EINVALID_PLAN', `cpus_allowed: CPU ${missing} is not on this machine, which has ${cpuCount}`, {
      field: `${field}.cpus_allowed`,
      accepted: `CPUs 0 to ${cpuCount - 1}`,
    });
  }
  if (o.time_based && o.runtime_ns === 0) {
    throw new VolbenchError('EINVALID_PLAN', 'time_based needs a runtime', {
      field: `${field}.runtime`,
      accepted: 'runtime=<time>, e.g. runtime=60s',
    });
  }
  if (o.verify !== 'none' && fileCount(o) > 1) {
    throw new VolbenchError('EUNSUPPORTED_OPTION', `verify=${o.verify} with several files per job is not supported by volbench yet`, {
      field: `${field}.verify`,
      accepted: 'verify on a job of one file (no filename list, nrfiles=1)',
    });
  }
  if (o.rate_process === 'poisson') {
    // fio's mean gap is a second over the rate in I/Os of the smallest size: a byte rate under
    // one such I/O a second has none (fio divides by zero).
    const tables = blockSizes(o);
    const short = o.rate.findIndex((bytes, d) => bytes > 0 && bytes < Math.min(...tables[d].map((e) => e.bs)));
    if (short >= 0) {
      throw new VolbenchError('EINVALID_PLAN', `rate_process=poisson needs a rate of at least one block a second; rate is ${o.rate[short]} bytes/s`, {
        field: `${field}.rate`,
        accepted: 'a rate of at least the smallest block size per second, or rate_iops',
      });
    }
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

const READONLY_ACCEPTED = 'with --readonly, jobs that only read (rw=read, randread) files and devices that already hold their region';

/** --readonly: what the job's options would write, refused as fio refuses it (init.c fixup_options). */
function checkReadonly(o: JobOptions, field: string): void {
  if (writesTarget(o)) {
    throw new VolbenchError('EINVALID_PLAN', `rw=${o.rw} writes or trims, and --readonly refuses every write and trim`, {
      field: `${field}.rw`, accepted: READONLY_ACCEPTED,
    });
  }
  if (o.unlink) {
    throw new VolbenchError('EINVALID_PLAN', 'unlink=1 removes the job\'s files, and --readonly refuses every change to them', {
      field: `${field}.unlink`, accepted: READONLY_ACCEPTED,
    });
  }
}

/** --readonly: a file the job would create or extend first, as fio refuses to extend one. */
function checkReadonlyLayout(files: ReadonlyArray<{ path: string; layoutBytes: number; existingBytes: number }>, field: string): void {
  const grows = files.find((f) => f.layoutBytes > f.existingBytes);
  if (grows === undefined) return;
  const what = grows.existingBytes === 0 ? 'created' : 'extended';
  throw new VolbenchError('ETARGET', `${grows.path} would have to be laid out (${what} to ${grows.layoutBytes} bytes), and --readonly refuses every write`, {
    field: `${field}.size`, path: grows.path, accepted: READONLY_ACCEPTED,
  });
}

/** The files each instance of a job works on. */
function fileCount(o: JobOptions): number {
  return o.filename?.length ?? o.nrfiles;
}

/**
 * Files a run opens at most, over all its instances: each is a descriptor held for the whole
 * run, and a probe before it.
 */
export const MAX_RUN_FILES = 65536;

function checkFileCount(spec: ParsedSpec): void {
  const files = spec.jobs.reduce((n, { options: o }) => n + fileCount(o) * o.numjobs, 0);
  if (files <= MAX_RUN_FILES) return;
  const index = spec.jobs.findIndex(({ options: o }) => fileCount(o) > 1);
  const o = spec.jobs[Math.max(index, 0)].options;
  throw new VolbenchError('EINVALID_PLAN', `the run would open ${files} files, more than ${MAX_RUN_FILES}`, {
    field: `jobs[${Math.max(index, 0)}].${o.filename ? 'filename' : 'nrfiles'}`,
    accepted: `at most ${MAX_RUN_FILES} files in a run (files per job × numjobs, over all jobs)`,
  });
}

/** The spec with jobs that name no path sent to `target`. Returns a new spec. */
export function withDefaultTarget(spec: ParsedSpec, target: DefaultTarget): ParsedSpec {
  return {
    ...spec,
    jobs: spec.jobs.map((job) => {
      const o = job.options;
      if (o.filename !== undefined || o.directory !== undefined) return job;
      const given = 'directory' in target ? { directory: [target.directory] } : { filename: [target.filename] };
      return { ...job, options: { ...o, ...given } };
    }),
  };
}

/**
 * The spec as it will run under `options`: the default target and the runtime budget applied,
 * the instance count and memory checked. planRun starts from this; a caller that checks paths
 * itself before any is probed (the service) checks this spec's.
 */
export function effectiveSpec(
  spec: ParsedSpec, options: Pick<PlanOptions, 'defaultTarget' | 'limits' | 'repeats' | 'untilSteadySec'> = {},
): ParsedSpec {
  const { defaultTarget, limits = {}, repeats = 1, untilSteadySec } = options;
  checkInstanceCount(spec, MAX_INSTANCES, 'EINVALID_PLAN');
  checkFileCount(spec);
  if (limits.maxInstances !== undefined) checkInstanceCount(spec, limits.maxInstances);
  if (limits.maxMemoryBytes !== undefined) checkRunMemory(spec, memoryNeeds(spec), limits.maxMemoryBytes, limits.maxMemorySource);
  const steady = untilSteadySec === undefined ? spec : untilSteady(spec, untilSteadySec);
  const targeted = defaultTarget ? withDefaultTarget(steady, defaultTarget) : steady;
  return limits.maxRuntimeSec === undefined ? targeted : withRuntimeBudget(targeted, limits.maxRuntimeSec, repeats);
}

/**
 * Bytes each job addresses, for --max-size. The null engine's jobs count too, though they touch
 * nothing: their size is the work they do, and a limit that skips them bounds nothing.
 */
function addressedBytes(jobs: readonly PlannedJob[]): number[] {
  const fileBytes = (f: { regionBytes: number; layoutBytes: number }): number => Math.max(f.regionBytes, f.layoutBytes);
  return jobs.map((job) => job.instances.reduce((sum, p) => sum + fileBytes(p) + p.moreFiles.reduce((n, f) => n + fileBytes(f), 0), 0));
}

/** What a planned run's engine takes in all: its jobs' I/O buffers and fixed shares. */
export function planMemoryBytes(plan: RunPlan): number {
  return memoryNeeds(plan.spec).reduce((sum, n) => sum + n.bytes, 0);
}

/** What each job's instances take in the engine: checked before any target is looked at. */
function memoryNeeds(spec: ParsedSpec): JobMemory[] {
  return spec.jobs.map(({ options: o }) => ({
    bytes: instanceMemoryBytes(o) * o.numjobs,
    why: `bs ${maxBlockSize(o)} × iodepth ${o.iodepth} × numjobs ${o.numjobs}`,
  }));
}

const LOG_OPTION: Record<keyof LogPaths, string> = {
  bw: 'write_bw_log', iops: 'write_iops_log', lat: 'write_lat_log', clat: 'write_lat_log', slat: 'write_lat_log',
};

/** Where the engine opens each log, checked as a written target file is (resolveLogTarget). */
async function logTargets(paths: LogPaths, o: JobOptions, jobField: string, ctx: ResolveContext): Promise<LogTargets> {
  const logs = {} as LogTargets;
  for (const kind of Object.keys(paths) as Array<keyof LogPaths>) {
    const path = paths[kind];
    logs[kind] = path === '' ? null : await resolveLogTarget(path, `${jobField}.${LOG_OPTION[kind]}`, o, ctx);
  }
  return logs;
}

export async function planRun(parsed: ParsedSpec, options: PlanOptions = {}): Promise<RunPlan> {
  const anchors = new Anchors(options.roots);
  try {
    return await planWith(parsed, options, anchors);
  } catch (err) {
    anchors.release();
    throw err;
  }
}

async function planWith(parsed: ParsedSpec, options: PlanOptions, anchors: Anchors): Promise<RunPlan> {
  // Plain figures are made a Volume here, once; a Volume passes as it is.
  const cloud = options.cloud ? { ...options.cloud, volume: volumeOf(options.cloud.volume) } : undefined;
  if (cloud) checkPlacement(cloud.volume, cloud.instance);
  const spec = effectiveSpec(parsed, options);
  const assertions = bindAssertions(spec, (options.assertions ?? []).map((a) => (typeof a === 'string' ? parseAssertion(a) : a)));
  const cwd = options.cwd ?? process.cwd();
  const prober = new TargetProber();
  const forbidden = (options.forbidden ?? []).flatMap(({ dev, ino }) => [dev, ino]);
  const jobs: PlannedJob[] = [];
  const targetIndex = new Map<string, number>();
  const targetPaths: string[] = [];
  let jobNumber = 1;
  const steady = new SteadyGroups();
  for (const stage of stagesOf(spec.jobs.map((j) => j.options))) {
    for (const { index, groupid } of stage.members) {
      const job = spec.jobs[index];
      const o = job.options;
      const field = `jobs[${index}]`;
      checkJob(o, field);
      if (options.readonly) checkReadonly(o, field);
      const ssGroups = steady.keysFor(index, groupid, o);
      const instances: NativeJobPlan[] = [];
      const layouts: LayoutNote[][] = [];
      let firstPath = '';
      const addTarget = (path: string): void => {
        if (targetIndex.has(path)) return;
        targetIndex.set(path, targetPaths.length);
        targetPaths.push(path);
      };
      for (let i = 0; i < o.numjobs; i++) {
        const ctx: ResolveContext = {
          cwd, field, prober, anchors, heldDevices: options.heldDevices, allowBlockWrite: options.allowBlockWrite, held: options.held,
        };
        const targets = await resolveInstanceTargets(o, i, ctx);
        if (options.readonly) checkReadonlyLayout(targets.files, field);
        if (i === 0) firstPath = targets.files[0].path;
        layouts.push(targets.files.filter((t) => t.layoutBytes > t.existingBytes)
          .map((t) => ({ path: t.path, fromBytes: t.existingBytes, toBytes: t.layoutBytes })));
        const ordinal = jobNumber - 1;
        const logs = logPaths(o, jobNumber++, cwd);
        const logged = await logTargets(logs, o, field, ctx);
        const plan = nativePlan(o, i, ordinal, targets, enginesFor(o.ioengine), logs, logged, forbidden, job.fields?.randseed !== undefined);
        instances.push({ ...plan, ssGroup: ssGroups[i] });
        addTarget(firstPath);
        if (engineSpec(o.ioengine).touchesTarget) targets.files.forEach((t) => addTarget(t.path));
      }
      jobs.push({
        jobname: o.name, groupid, stage: stage.index, options: o, ownOptions: job.ownOptions,
        targetIndex: targetIndex.get(firstPath)!, instances, layouts, notes: randomMapFor(o).notes,
      });
    }
  }
  checkRunSize(spec, addressedBytes(jobs), options.limits?.maxSizeBytes ?? 0);
  const stages = jobs.reduce((n, j) => Math.max(n, j.stage + 1), 1);
  return {
    spec, jobs, stages, targetPaths, assertions, ...(spec.globalOptions ? { globalOptions: spec.globalOptions } : {}),
    ...(cloud ? { cloud } : {}),
    release: () => anchors.release(),
  };
}
