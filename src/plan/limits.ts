/**
 * Limits a caller puts on a run, checked by the planner before any I/O: the service's
 * --max-runtime, --max-size and instance cap, and the same flags of `volbench run` and `suite`.
 * A run over a limit is refused with ELIMIT_EXCEEDED naming the field that put it over.
 */
import { VolbenchError } from '../errors.js';
import type { JobOptions, ParsedJob, ParsedSpec } from '../jobspec/types.js';
import { parseTimeNs } from '../jobspec/index.js';
import { stagesOf } from './stages.js';

export interface RunLimits {
  /**
   * Longest whole run, in seconds: its stages one after another, each as long as its longest
   * startdelay + ramp_time + runtime, times `repeats`. Jobs without a runtime share what the
   * timed stages leave, equally by stage, as their runtime: like fio's, it stops them in time.
   */
  maxRuntimeSec?: number;
  /** Most bytes a run's jobs may address (the sum of their regions), 0 or unset for no limit. */
  maxSizeBytes?: number;
  /** Most job instances (numjobs summed over the jobs). */
  maxInstances?: number;
  /**
   * Most memory the run's engine may take, in bytes: the I/O buffers (bs × iodepth per
   * instance) and each instance's fixed share (histograms, rings, log buffers).
   */
  maxMemoryBytes?: number;
  /** How the refusal names where maxMemoryBytes comes from (default `--max-memory`). */
  maxMemorySource?: string;
}

const NS_PER_S = 1e9;
const NS_PER_US = 1000;

/** Where option `name` of job `index` was set: the job's own section, else [global]. */
export function optionField(job: ParsedJob | undefined, index: number, name: string): string {
  return job?.fields?.[name] ?? `jobs[${index}].${name}`;
}

function limitError(field: string, message: string, accepted: string): VolbenchError {
  return new VolbenchError('ELIMIT_EXCEEDED', message, { field, accepted });
}

/** A --max-runtime (or VOLBENCH_MAX_RUNTIME) as whole seconds: fio's time syntax, seconds by default. */
export function parseMaxRuntimeSec(text: string, field: string): number {
  const sec = Math.ceil(parseTimeNs(text, { defaultUnit: 's', field }) / NS_PER_S);
  if (sec < 1) {
    throw new VolbenchError('EINVALID_ARGS', `${field} must be at least 1s, got '${text}'`, { field, accepted: 'a time of 1s or more, e.g. 600 or 10m' });
  }
  return sec;
}

/** Refuses a run of more than `max` instances: fio's own cap (EINVALID_PLAN) or a caller's limit. */
export function checkInstanceCount(spec: ParsedSpec, max: number, code: 'ELIMIT_EXCEEDED' | 'EINVALID_PLAN' = 'ELIMIT_EXCEEDED'): void {
  let total = 0;
  spec.jobs.forEach((job, i) => {
    total += job.options.numjobs;
    if (total <= max) return;
    const field = optionField(job, i, 'numjobs');
    const message = `the run has more than ${max} job instances (numjobs summed over its jobs)`;
    if (code === 'EINVALID_PLAN') throw new VolbenchError(code, message, { field, accepted: `at most ${max} instances in all, as fio` });
    throw limitError(field, message, `at most ${max} instances per run`);
  });
}

function jobNs(o: JobOptions): number {
  return o.startdelay_ns + o.ramp_time_ns + o.runtime_ns;
}

/**
 * How long a spec's timed stages take, one after another (each as long as its longest
 * startdelay + ramp_time + runtime), in seconds. Jobs that end on their size count nothing.
 */
export function timedSeconds(spec: ParsedSpec, counts: (o: JobOptions) => boolean = (o) => o.runtime_ns > 0): number {
  const options = spec.jobs.map((j) => j.options);
  let ns = 0;
  for (const { members } of stagesOf(options)) {
    ns += members.reduce((longest, { index }) => Math.max(longest, counts(options[index]) ? jobNs(options[index]) : 0), 0);
  }
  return ns / NS_PER_S;
}

/**
 * How long a spec's time_based stages take, in seconds: what a run of it will last at least.
 * Unlike timedSeconds, a runtime that only caps a job ending on its size (as the runtime
 * budget gives every such job) counts nothing.
 */
export function timeBasedSeconds(spec: ParsedSpec): number {
  return timedSeconds(spec, (o) => o.time_based && o.runtime_ns > 0);
}

/**
 * The spec with the runtime budget applied: refused when its timed stages alone take longer
 * than `maxSec` (over `repeats` passes), else every job without a runtime gets one. Returns a
 * new spec; `spec` is not changed.
 */
export function withRuntimeBudget(spec: ParsedSpec, maxSec: number, repeats = 1): ParsedSpec {
  const budgetNs = Math.floor((maxSec * NS_PER_S) / repeats);
  const over = repeats > 1 ? ` over ${repeats} loops` : '';
  const accepted = `stages whose startdelay + ramp_time + runtime add up to at most ${maxSec}s${over} (--max-runtime)`;
  const options = spec.jobs.map((j) => j.options);
  const stages = stagesOf(options).map(({ members }) => {
    // time_based without runtime is the planner's to refuse (it names the missing runtime).
    const timed = members.filter(({ index }) => options[index].runtime_ns > 0 || options[index].time_based);
    const longest = timed.reduce<number | null>((a, { index }) => (a === null || jobNs(options[index]) > jobNs(options[a]) ? index : a), null);
    const untimed = members.filter((m) => !timed.includes(m)).map((m) => m.index);
    return { timedNs: longest === null ? 0 : jobNs(options[longest]), longest, untimed };
  });
  const timedNs = stages.reduce((sum, st) => sum + st.timedNs, 0);
  if (timedNs > budgetNs) {
    const worst = stages.reduce((a, b) => (b.timedNs > a.timedNs ? b : a));
    const i = worst.longest!;
    const whole = stages.length > 1 || repeats > 1 ? ` (the run: ${(timedNs * repeats) / NS_PER_S}s${over})` : '';
    throw limitError(optionField(spec.jobs[i], i, 'runtime'),
      `job ${options[i].name} would run ${jobNs(options[i]) / NS_PER_S}s${whole}, over the limit of ${maxSec}s`, accepted);
  }
  const open = stages.filter((st) => st.untimed.length > 0);
  // Whole microseconds, fio's unit of time: the runtime it gives can be written in a job file.
  const shareNs = open.length === 0 ? 0 : Math.floor((budgetNs - timedNs) / open.length / NS_PER_US) * NS_PER_US;
  const runtimes = new Map<number, number>();
  for (const stage of open) {
    for (const i of stage.untimed) {
      const o = options[i];
      const before = o.startdelay_ns + o.ramp_time_ns;
      const allowanceNs = stage.timedNs + shareNs;
      if (before >= allowanceNs) {
        throw limitError(optionField(spec.jobs[i], i, 'ramp_time'), `startdelay and ramp_time of job ${o.name} leave it no runtime within ${maxSec}s`, accepted);
      }
      runtimes.set(i, allowanceNs - before);
    }
  }
  if (runtimes.size === 0) return spec;
  return {
    ...spec,
    jobs: spec.jobs.map((job, i) => (runtimes.has(i) ? { ...job, options: { ...job.options, runtime_ns: runtimes.get(i)! } } : job)),
  };
}

/** The memory one job needs, and what its size comes from, for the message that refuses it. */
export interface JobMemory {
  bytes: number;
  /** e.g. "bs 64m × iodepth 8 × numjobs 2". */
  why: string;
}

/** Refuses a run whose jobs need more than `maxBytes` of memory in all; `needs` per job. */
export function checkRunMemory(spec: ParsedSpec, needs: readonly JobMemory[], maxBytes: number, source = '--max-memory'): void {
  const total = needs.reduce((sum, n) => sum + n.bytes, 0);
  if (maxBytes <= 0 || total <= maxBytes) return;
  const worst = needs.reduce((a, n, i) => (n.bytes > needs[a].bytes ? i : a), 0);
  const o = spec.jobs[worst].options;
  const field = optionField(spec.jobs[worst], worst, o.iodepth > 1 ? 'iodepth' : 'bs');
  throw limitError(field,
    `the run needs ${total} bytes of memory, over the limit of ${maxBytes}; job ${o.name} takes ${needs[worst].bytes} (${needs[worst].why})`,
    `bs × iodepth × numjobs adding up to at most ${maxBytes} bytes per run (${source})`);
}

/** Refuses a run whose instances address more than `maxBytes` in all; `regions` per job. */
export function checkRunSize(spec: ParsedSpec, regions: readonly number[], maxBytes: number): void {
  if (maxBytes <= 0) return;
  let total = 0;
  regions.forEach((bytes, i) => {
    total += bytes;
    if (total > maxBytes) {
      throw limitError(optionField(spec.jobs[i], i, 'size'), `the run's jobs address ${total} bytes, over the limit of ${maxBytes}`,
        `sizes adding up to at most ${maxBytes} bytes per run (--max-size)`);
    }
  });
}
