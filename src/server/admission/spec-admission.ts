/**
 * From a spec to a run the queue can hold, or a problem. Everything is checked here, before the
 * run is stored: the spec parses, every path falls under a target root, block devices are
 * written only where the operator allowed it, and the run fits the server's limits. The rules
 * themselves (default target, runtime budget, size and instance limits, which devices may be
 * written) are the library's planning options; this module adds what only the service knows,
 * its roots. The library plans the run (all of its own target checks), so a run that is
 * accepted starts. Suite runs come here too, with the suite's spec (suite-admission.ts).
 */
import type { CloudContext } from '../../cloud/index.js';
import {
  blockWriteAllowed, effectiveSpec, optionField, planRun, writesTarget, type HeldTargets, type PlanOptions, type RunPlan,
} from '../../plan/index.js';
import { instancePaths } from '../../plan/targets.js';
import { checkInstanceNameLength } from '../../plan/name-length.js';
import { parseSpec } from '../../jobspec/index.js';
import type { JobOptions, JobSpec, ParsedSpec } from '../../jobspec/types.js';
import { engineSpec } from '../../engine/engines.js';
import type { Assertion } from '../../gates/index.js';
import type { Limits } from '../config.js';
import { queueKeyOf } from './device-key.js';
import { authorizePath, checkPathText, reservedInodes, type PathScope } from './path-policy.js';
import { blockWriteNotAllowed, logNotAFile } from '../problems/service-problems.js';
import { anchorRoots, type TargetRoot } from './roots.js';
import { ROOT_MEMORY_SHARE, rootMemoryBytes } from './held-memory.js';

export interface AdmissionContext extends PathScope {
  limits: Limits;
  /** Block devices this service's own running runs hold (PlanOptions.heldDevices). */
  heldDevices?: ReadonlySet<string>;
  /**
   * Submits only: given the run's queue keys (resolved from its paths, before it is planned)
   * and throws when the queue cannot take it. Planning probes every target and is the slow part
   * of admission; a run the full queue refuses anyway is refused without it.
   */
  queueGate?: (queueKeys: () => Promise<string[]>) => Promise<void>;
  /**
   * The directories the run's paths are in, held from its admission until it ends: its plan at
   * start (and a suite's tests, an analysis's runs) resolve beneath them, never by name again.
   */
  held?: HeldTargets;
}

export interface AdmittedSpec {
  /** The run as planned now; its spec is the effective one (default target, budget applied). */
  plan: RunPlan;
  /** The rules it was planned under: a suite plans each test again under them as it starts. */
  planOptions: PlanOptions;
  /** Configured root paths the run uses. */
  roots: string[];
  queueKeys: string[];
}

const LOG_OPTIONS = ['write_bw_log', 'write_iops_log', 'write_lat_log'] as const;

function checkJobPathTexts(spec: ParsedSpec, i: number): void {
  const job = spec.jobs[i];
  const o = job.options;
  // Every name of a list: each is a file (or a directory) of the job.
  for (const directory of o.directory ?? []) checkPathText(directory, optionField(job, i, 'directory'));
  const inDirectory = o.directory !== undefined;
  if (o.filename !== undefined) o.filename.forEach((name) => checkPathText(name, optionField(job, i, 'filename'), inDirectory));
  else checkPathText(o.name, optionField(job, i, 'name'), inDirectory);
  // Log prefixes may be relative: a bare write_bw_log is the job's name, in the default root.
  for (const option of LOG_OPTIONS) {
    const prefix = o[option];
    if (prefix !== undefined) checkPathText(prefix, optionField(job, i, option), true);
  }
}

/** The spec field that put a job's target where it is. */
function targetField(spec: ParsedSpec, o: JobOptions, i: number): string {
  return optionField(spec.jobs[i], i, o.filename !== undefined ? 'filename' : 'directory');
}

/**
 * Authorizes each instance's target against the roots, before the library looks at any. A write
 * to a block device the plan would refuse (the block-write opt-in, decided by the plan's rule
 * with this service's `mayWrite`) is refused here first, with the service's own problem.
 */
async function authorizeTargets(spec: ParsedSpec, scope: PathScope, cwd: string, mayWrite: (device: string) => boolean): Promise<Set<TargetRoot>> {
  const used = new Set<TargetRoot>();
  for (const [i, { options: o }] of spec.jobs.entries()) {
    const field = targetField(spec, o, i);
    for (const directory of o.directory ?? []) await authorizePath(directory, optionField(spec.jobs[i], i, 'directory'), scope);
    for (let instance = 0; instance < o.numjobs; instance++) {
      // Every file of the instance, each as a job's one target is.
      for (const path of instancePaths(o, instance, cwd)) {
        checkInstanceNameLength(o, path, (option) => optionField(spec.jobs[i], i, option));
        const target = await authorizePath(path, field, scope);
        used.add(target.root);
        if (target.isBlockDevice && writesTarget(o) && !blockWriteAllowed(o, target.resolvedPath, mayWrite)) {
          throw blockWriteNotAllowed(o.rw, target.root.path, optionField(spec.jobs[i], i, 'rw'));
        }
      }
    }
  }
  return used;
}

/** Every path the plan will open, checked again now that the library has resolved them. */
async function authorizePlan(plan: RunPlan, scope: PathScope): Promise<void> {
  for (const [i, job] of plan.jobs.entries()) {
    for (const instance of job.instances) {
      for (const path of [instance.path, ...instance.moreFiles.map((f) => f.path)]) {
        await authorizePath(path, targetField(plan.spec, job.options, i), scope);
      }
      const logs: Array<[string, (typeof LOG_OPTIONS)[number]]> = [
        [instance.bwLogPath, 'write_bw_log'],
        [instance.iopsLogPath, 'write_iops_log'],
        [instance.latLogPath, 'write_lat_log'],
        [instance.clatLogPath, 'write_lat_log'],
        [instance.slatLogPath, 'write_lat_log'],
      ];
      for (const [log, option] of logs.filter(([p]) => p !== '')) {
        const field = optionField(plan.spec.jobs[i], i, option);
        const authorized = await authorizePath(log, field, scope);
        // A log is text written with plain writes: never onto a device root or a special file,
        // whatever a symlink in a root says (the block device checks guard targets, not logs).
        if (authorized.root.kind === 'block_device' || (authorized.exists && !authorized.isRegularFile)) {
          throw logNotAFile(log, authorized.resolvedPath, field);
        }
      }
    }
  }
}

interface JobPaths {
  options: JobOptions;
  /** Each instance's target path. */
  paths: string[];
}

/**
 * The devices the run's jobs work on. A job whose engine touches no device (null) takes the
 * engine's own key instead: such runs burn CPU, so they queue one at a time like any other.
 */
async function queueKeysOf(jobs: readonly JobPaths[]): Promise<string[]> {
  const touching = jobs.filter((j) => engineSpec(j.options.ioengine).touchesTarget);
  const paths = new Set(touching.flatMap((j) => j.paths));
  const keys = await Promise.all([...paths].map(queueKeyOf));
  if (touching.length < jobs.length) keys.push(ENGINE_ONLY_KEY);
  return [...new Set(keys)].sort();
}

/** The planned run's keys: the paths its instances will open. */
function queueKeys(plan: RunPlan): Promise<string[]> {
  return queueKeysOf(plan.jobs.map((j) => ({ options: j.options, paths: j.instances.flatMap((p) => [p.path, ...p.moreFiles.map((f) => f.path)]) })));
}

/** The same keys before planning: the paths fio's rules give each instance (the plan's own). */
function specQueueKeys(spec: ParsedSpec, cwd: string): Promise<string[]> {
  return queueKeysOf(spec.jobs.map(({ options: o }) => ({ options: o, paths: Array.from({ length: o.numjobs }, (_, i) => instancePaths(o, i, cwd)).flat() })));
}

const ENGINE_ONLY_KEY = 'engine:null';

/** The library's rules as this service sets them, for a run whose default target is `base`. */
export function planOptionsFor(base: TargetRoot, ctx: AdmissionContext, repeats: number): PlanOptions {
  const { limits } = ctx;
  const cwd = base.kind === 'directory' ? base.realPath : (ctx.roots.find((r) => r.kind === 'directory')?.realPath ?? '/');
  const writable = new Set(ctx.roots.filter((r) => r.kind === 'block_device' && r.allowBlockWrite).map((r) => r.realPath));
  return {
    cwd,
    defaultTarget: base.kind === 'directory' ? { directory: base.realPath } : { filename: base.realPath },
    limits: {
      maxRuntimeSec: limits.maxRuntimeSec, maxSizeBytes: limits.maxSizeBytes, maxInstances: limits.maxInstances,
      // A run may take what one root's runs may (held-memory.ts), not the whole budget.
      maxMemoryBytes: rootMemoryBytes(limits.maxMemoryBytes),
      maxMemorySource: `${ROOT_MEMORY_SHARE * 100}% of --max-memory, what one root's runs may take at once`,
    },
    repeats,
    // Decided by the root alone, whatever the spec's allow_block_write says.
    allowBlockWrite: (device) => writable.has(device),
    heldDevices: ctx.heldDevices,
    // Opened by the engine beneath the roots' held descriptors, never by name.
    roots: anchorRoots(ctx.roots),
    forbidden: reservedInodes(ctx.reserved),
    ...(ctx.held ? { held: ctx.held } : {}),
  };
}

export interface AdmitOptions {
  /** How many times the run goes through the spec (a suite's loops). */
  repeats?: number;
  /** The run's assertions bound to the spec it will run, or the problem saying why they cannot be. */
  bind?: (spec: ParsedSpec) => Assertion[];
  /** The volume the run measures (checked by the caller): the result gains its entitlements. */
  cloud?: CloudContext;
}

/** Admits `spec`; jobs without filename or directory go to `base` (?target=, else the first root). */
export async function admitSpec(spec: JobSpec, base: TargetRoot, ctx: AdmissionContext, options: AdmitOptions = {}): Promise<AdmittedSpec> {
  const planOptions: PlanOptions = { ...planOptionsFor(base, ctx, options.repeats ?? 1), ...(options.cloud ? { cloud: options.cloud } : {}) };
  const effective = effectiveSpec(parseSpec(spec), planOptions);
  const assertions = options.bind?.(effective) ?? [];
  effective.jobs.forEach((_, i) => checkJobPathTexts(effective, i));
  const used = await authorizeTargets(effective, ctx, planOptions.cwd!, planOptions.allowBlockWrite!);
  await ctx.queueGate?.(() => specQueueKeys(effective, planOptions.cwd!));
  const plan = await planRun(effective, { ...planOptions, assertions });
  try {
    await authorizePlan(plan, ctx);
    return {
      plan,
      planOptions,
      roots: ctx.roots.filter((r) => used.has(r)).map((r) => r.path),
      queueKeys: await queueKeys(plan),
    };
  } catch (err) {
    plan.release();
    throw err;
  }
}
