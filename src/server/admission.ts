/**
 * From a spec to a run the queue can hold, or a problem. Everything is checked here, before the
 * run is stored: the spec parses, every path falls under a target root, block devices are
 * written only where the operator allowed it, and the run fits the server's limits. The library
 * plans the run (all of its own target checks) so a run that is accepted starts. Suite runs
 * come here too, with the suite's spec (suite-admission.ts).
 */
import { planRun, startsStage, type RunPlan } from '../plan/index.js';
import { directionsUsed } from '../jobspec/directions.js';
import { instancePath } from '../plan/targets.js';
import { parseSpec } from '../jobspec/index.js';
import type { JobOptions, JobSpec, ParsedSpec } from '../jobspec/types.js';
import type { Limits } from './config.js';
import { queueKeyOf } from './device-key.js';
import { authorizePath, checkPathText, type PathScope } from './path-policy.js';
import { HttpProblem } from './problem.js';
import type { TargetRoot } from './roots.js';

export interface AdmissionContext extends PathScope {
  limits: Limits;
  /** Block devices this service's own running runs hold (PlanOptions.heldDevices). */
  heldDevices?: ReadonlySet<string>;
}

export interface AdmittedSpec {
  parsed: ParsedSpec;
  /** Working directory for the library: the default root (when a directory). */
  cwd: string;
  /** Configured root paths the run uses. */
  roots: string[];
  /** Regular files the run opens or writes (targets and logs): removed after an interrupted run if it made them. */
  files: string[];
  queueKeys: string[];
}

const LOG_OPTIONS = ['write_bw_log', 'write_iops_log', 'write_lat_log'] as const;
const NS_PER_S = 1e9;

/** `jobs[i].name` when the job's own section sets it, `global.name` when only [global] does. */
function fieldOf(spec: JobSpec, job: number, option: string): string {
  if (spec.jobs[job] && option in spec.jobs[job]) return `jobs[${job}].${option}`;
  if (spec.global && option in spec.global) return `global.${option}`;
  return `jobs[${job}].${option}`;
}

function limitProblem(field: string, detail: string, accepted: string): HttpProblem {
  return new HttpProblem(422, 'limit-exceeded', 'Run exceeds a server limit', detail, { field, accepted });
}

/** A job without a path runs in the default root: its directory, or the device it names. */
function applyDefaultTarget(o: JobOptions, root: TargetRoot): void {
  if (o.filename !== undefined || o.directory !== undefined) return;
  if (root.kind === 'directory') o.directory = root.realPath;
  else o.filename = root.realPath;
}

function checkJobPathTexts(spec: JobSpec, o: JobOptions, i: number): void {
  if (o.directory !== undefined) checkPathText(o.directory, fieldOf(spec, i, 'directory'));
  const inDirectory = o.directory !== undefined;
  if (o.filename !== undefined) checkPathText(o.filename, fieldOf(spec, i, 'filename'), inDirectory);
  else checkPathText(o.name, fieldOf(spec, i, 'name'), inDirectory);
  // Log prefixes may be relative: a bare write_bw_log is the job's name, in the default root.
  for (const option of LOG_OPTIONS) {
    const prefix = o[option];
    if (prefix !== undefined) checkPathText(prefix, fieldOf(spec, i, option), true);
  }
}

/** The spec field that put a job's target where it is. */
function targetField(spec: JobSpec, o: JobOptions, i: number): string {
  return fieldOf(spec, i, o.filename !== undefined ? 'filename' : 'directory');
}

/**
 * --max-runtime bounds the whole run. Stages (stonewall groups) run one after another, the jobs
 * of a stage together, and a suite runs all of its stages `repeats` times (its loops). A job
 * takes startdelay + ramp_time + runtime, a stage its longest job. Jobs that run until their
 * size is done (no runtime) share what the timed stages leave, equally by stage, as their
 * runtime: like fio's runtime, it stops them in time.
 */
function applyRuntimeLimit(spec: JobSpec, jobs: JobOptions[], maxSec: number, repeats: number): void {
  const budgetNs = Math.floor((maxSec * NS_PER_S) / repeats);
  const over = repeats > 1 ? ` over ${repeats} loops` : '';
  const accepted = `stages whose startdelay + ramp_time + runtime add up to at most ${maxSec}s${over} (--max-runtime)`;
  const stages: Array<{ timedNs: number; longest: number; untimed: number[] }> = [];
  jobs.forEach((o, i) => {
    if (i === 0 || startsStage(o, i)) stages.push({ timedNs: 0, longest: i, untimed: [] });
    const stage = stages[stages.length - 1];
    // time_based without runtime is the library's to refuse (it names the missing runtime).
    if (o.runtime_ns === 0 && !o.time_based) {
      stage.untimed.push(i);
      return;
    }
    const ns = o.startdelay_ns + o.ramp_time_ns + o.runtime_ns;
    if (ns > stage.timedNs) Object.assign(stage, { timedNs: ns, longest: i });
  });
  const timedNs = stages.reduce((sum, st) => sum + st.timedNs, 0);
  if (timedNs > budgetNs) {
    const longest = stages.reduce((a, b) => (b.timedNs > a.timedNs ? b : a));
    const o = jobs[longest.longest];
    const whole = stages.length > 1 || repeats > 1 ? ` (the run: ${(timedNs * repeats) / NS_PER_S}s${over})` : '';
    throw limitProblem(fieldOf(spec, longest.longest, 'runtime'),
      `job ${o.name} would run ${(o.startdelay_ns + o.ramp_time_ns + o.runtime_ns) / NS_PER_S}s${whole}, over this server's ${maxSec}s`, accepted);
  }
  const open = stages.filter((st) => st.untimed.length > 0);
  const shareNs = open.length === 0 ? 0 : Math.floor((budgetNs - timedNs) / open.length);
  for (const stage of open) {
    for (const i of stage.untimed) {
      const o = jobs[i];
      const before = o.startdelay_ns + o.ramp_time_ns;
      const allowanceNs = stage.timedNs + shareNs;
      if (before >= allowanceNs) {
        throw limitProblem(fieldOf(spec, i, 'ramp_time'), `startdelay and ramp_time of job ${o.name} leave it no runtime within ${maxSec}s`, accepted);
      }
      o.runtime_ns = allowanceNs - before;
    }
  }
}

function checkInstanceCount(spec: JobSpec, parsed: ParsedSpec, max: number): void {
  let total = 0;
  parsed.jobs.forEach(({ options }, i) => {
    total += options.numjobs;
    if (total > max) {
      throw limitProblem(fieldOf(spec, i, 'numjobs'), `the run has more than ${max} job instances (numjobs summed over jobs)`,
        `at most ${max} instances per run`);
    }
  });
}

/** Authorizes each instance's target and decides allow_block_write from its root alone. */
async function authorizeTargets(spec: JobSpec, parsed: ParsedSpec, scope: PathScope, cwd: string): Promise<Set<TargetRoot>> {
  const used = new Set<TargetRoot>();
  for (const [i, { options: o }] of parsed.jobs.entries()) {
    const field = targetField(spec, o, i);
    if (o.directory !== undefined) await authorizePath(o.directory, fieldOf(spec, i, 'directory'), scope);
    const [, writes, trims] = directionsUsed(o);
    o.allow_block_write = false;
    for (let instance = 0; instance < o.numjobs; instance++) {
      const target = await authorizePath(instancePath(o, instance, cwd), field, scope);
      used.add(target.root);
      if (!target.isBlockDevice) continue;
      if ((writes || trims) && !target.root.allowBlockWrite) {
        throw new HttpProblem(403, 'block-write-not-allowed', 'Block device writes not allowed',
          `rw=${o.rw} writes to block device ${target.root.path}; this server allows it only for devices started with --allow-block-write`, {
            field: fieldOf(spec, i, 'rw'),
            accepted: 'read-only workloads on this device',
          });
      }
      o.allow_block_write = target.root.allowBlockWrite;
    }
  }
  return used;
}

/** Every path the plan will open, checked again now that the library has resolved them. */
async function authorizePlan(spec: JobSpec, plan: RunPlan, scope: PathScope): Promise<string[]> {
  const files: string[] = [];
  for (const [i, job] of plan.jobs.entries()) {
    for (const instance of job.instances) {
      const target = await authorizePath(instance.path, targetField(spec, job.options, i), scope);
      if (!target.isBlockDevice) files.push(instance.path);
      const logs: Array<[string, (typeof LOG_OPTIONS)[number]]> = [
        [instance.bwLogPath, 'write_bw_log'],
        [instance.iopsLogPath, 'write_iops_log'],
        [instance.latLogPath, 'write_lat_log'],
        [instance.clatLogPath, 'write_lat_log'],
        [instance.slatLogPath, 'write_lat_log'],
      ];
      for (const [log, option] of logs.filter(([p]) => p !== '')) {
        const field = fieldOf(spec, i, option);
        const authorized = await authorizePath(log, field, scope);
        // A log is text written with plain writes: never onto a device root or a special file,
        // whatever a symlink in a root says (the block device checks guard targets, not logs).
        if (authorized.root.kind === 'block_device' || (authorized.exists && !authorized.isRegularFile)) {
          throw new HttpProblem(403, 'log-not-a-file', 'Log path is not a regular file',
            `${log} (resolves to ${authorized.resolvedPath}) is not a regular file; logs are written only as files`, {
              field,
              accepted: 'a new or regular file under a directory root',
            });
        }
        files.push(log);
      }
    }
  }
  return [...new Set(files)];
}

function checkSize(spec: JobSpec, plan: RunPlan, maxBytes: number): void {
  if (maxBytes <= 0) return;
  let total = 0;
  for (const [i, job] of plan.jobs.entries()) {
    if (job.options.ioengine === 'null') continue;
    for (const instance of job.instances) total += Math.max(instance.regionBytes, instance.layoutBytes);
    if (total > maxBytes) {
      throw limitProblem(fieldOf(spec, i, 'size'), `the run's jobs address ${total} bytes, over this server's ${maxBytes}`,
        `sizes adding up to at most ${maxBytes} bytes per run (--max-size)`);
    }
  }
}

async function queueKeys(plan: RunPlan): Promise<string[]> {
  const paths = new Set(plan.jobs.filter((j) => j.options.ioengine !== 'null').flatMap((j) => j.instances.map((p) => p.path)));
  const keys = await Promise.all([...paths].map(queueKeyOf));
  return [...new Set(keys)].sort();
}

/**
 * Admits `spec`; jobs without filename or directory go to `base` (?target=, else the first
 * root). `repeats` is how many times the run goes through the spec (a suite's loops).
 */
export async function admitSpec(spec: JobSpec, base: TargetRoot, ctx: AdmissionContext, repeats = 1): Promise<AdmittedSpec> {
  const parsed = parseSpec(spec);
  checkInstanceCount(spec, parsed, ctx.limits.maxInstances);
  parsed.jobs.forEach(({ options }, i) => {
    applyDefaultTarget(options, base);
    checkJobPathTexts(spec, options, i);
  });
  applyRuntimeLimit(spec, parsed.jobs.map((j) => j.options), ctx.limits.maxRuntimeSec, repeats);
  const cwd = base.kind === 'directory' ? base.realPath : (ctx.roots.find((r) => r.kind === 'directory')?.realPath ?? '/');
  const used = await authorizeTargets(spec, parsed, ctx, cwd);
  const plan = await planRun(parsed, { cwd, heldDevices: ctx.heldDevices });
  const files = await authorizePlan(spec, plan, ctx);
  checkSize(spec, plan, ctx.limits.maxSizeBytes);
  return {
    parsed,
    cwd,
    roots: ctx.roots.filter((r) => used.has(r)).map((r) => r.path),
    files,
    queueKeys: await queueKeys(plan),
  };
}
