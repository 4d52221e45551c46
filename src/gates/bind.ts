/**
 * Checks assertions against the spec they will judge, before any I/O: the job exists and has
 * one entry in fio's output, the direction is one the job does, and the metric will be there.
 * Fills in the direction when the job does only one.
 */
import { VolbenchError } from '../errors.js';
import { directionsUsed } from '../jobspec/directions.js';
import type { JobOptions, ParsedSpec } from '../jobspec/types.js';
import type { Assertion } from './assertion.js';
import { parseMetric, type Direction, type Metric } from './metrics.js';

function refuse(a: Assertion, why: string, accepted?: string): VolbenchError {
  return new VolbenchError('EINVALID_ARGS', `assertion '${a.expr}': ${why}`, {
    field: '--assert',
    ...(accepted ? { accepted } : {}),
  });
}

/** The directions fio reports with I/O for these options. */
export function jobDirections(o: JobOptions): Direction[] {
  const [reads, writesRw, trims] = directionsUsed(o);
  const data: Direction[] = [];
  const writes = writesRw && !o.verify_only;
  // fio counts verify reads as reads.
  const verifies = writes && o.verify !== 'none' && o.do_verify;
  if (reads || o.verify_only || verifies) data.push('read');
  if (writes) data.push('write');
  if (trims) data.push('trim');
  const dirs: Direction[] = o.unified_rw_reporting === 'mixed' ? ['mixed'] : data;
  if (o.unified_rw_reporting === 'both') dirs.push('mixed');
  if (o.fsync > 0 || o.fdatasync > 0) dirs.push('sync');
  return dirs;
}

/** The direction an assertion without one means: the only data direction the job does. */
function defaultDirection(a: Assertion, o: JobOptions, dirs: Direction[]): Direction {
  const data = dirs.filter((d) => d !== 'sync' && !(d === 'mixed' && o.unified_rw_reporting === 'both'));
  if (data.length === 1) return data[0];
  const options = data.map((d) => `${a.job}.${d}.${a.metric}`).join(' or ');
  throw refuse(a, `job ${a.job} (rw=${o.rw}) reports ${data.join(' and ')}: name the direction, ${options}`);
}

/** Whether the job's output will hold this latency statistic. */
function latencyProblem(metric: Metric, o: JobOptions, dir: Direction): string | null {
  if (metric.kind !== 'latency' && metric.kind !== 'percentile') return null;
  const latency = metric.latency;
  if (dir === 'sync') {
    if (latency !== 'lat_ns') return `the sync direction has only lat_ns`;
    if (metric.kind === 'percentile' && !o.clat_percentiles && !o.lat_percentiles) return 'sync percentiles need clat_percentiles or lat_percentiles';
    return null;
  }
  const disabled = latency === 'clat_ns' ? o.disable_clat : latency === 'lat_ns' ? o.disable_lat : o.disable_slat;
  if (disabled) return `the job sets disable_${latency.replace('_ns', '')}=1`;
  if (metric.kind !== 'percentile') return null;
  const option = `${latency.replace('_ns', '')}_percentiles`;
  const on = latency === 'clat_ns' ? o.clat_percentiles : latency === 'lat_ns' ? o.lat_percentiles : o.slat_percentiles;
  return on ? null : `${latency} percentiles need ${option}=1 on the job (fio keeps no ${latency} histogram without it)`;
}

function findJob(a: Assertion, spec: ParsedSpec): JobOptions {
  const names = spec.jobs.map((j) => j.options.name);
  const matches = spec.jobs.filter((j) => j.options.name === a.job);
  if (matches.length === 0) {
    const known = [...new Set(names)].join(', ');
    throw refuse(a, `there is no job named '${a.job}' (jobs: ${known})`, `one of: ${known}`);
  }
  if (matches.length > 1) throw refuse(a, `${matches.length} jobs are named '${a.job}'; name jobs uniquely to assert on them`);
  const o = matches[0].options;
  if (o.numjobs > 1 && !o.group_reporting) {
    throw refuse(a, `job ${a.job} has numjobs=${o.numjobs} without group_reporting, so fio reports ${o.numjobs} entries; add group_reporting to assert on their total`);
  }
  return o;
}

/** One assertion checked against `spec`, with its direction filled in. */
export function bindAssertion(a: Assertion, spec: ParsedSpec): Assertion {
  if (a.analysis) throw refuse(a, `a gate on ${a.analysis}.${a.metric} needs a ${a.analysis} run (volbench ${a.analysis}), not a plain run`);
  // A job whose name ends in ".read" (etc.) reads as job + direction; take the job when it exists.
  if (a.dir && !spec.jobs.some((j) => j.options.name === a.job) && spec.jobs.some((j) => j.options.name === `${a.job}.${a.dir}`)) {
    a = { ...a, job: `${a.job}.${a.dir}` };
    delete a.dir;
  }
  const o = findJob(a, spec);
  const metric = parseMetric(a.metric)!;
  if (metric.kind === 'error') return a;
  const dirs = jobDirections(o);
  const dir = a.dir ?? defaultDirection(a, o, dirs);
  if (!dirs.includes(dir)) {
    throw refuse(a, `job ${a.job} (rw=${o.rw}) has no ${dir} direction`, `one of: ${dirs.join(', ')}`);
  }
  if (dir === 'sync' && metric.kind !== 'latency' && metric.kind !== 'percentile') {
    throw refuse(a, `the sync direction has no ${metric.name}, only lat_ns statistics`);
  }
  const problem = latencyProblem(metric, o, dir);
  if (problem) throw refuse(a, problem);
  return { ...a, dir };
}

/** Every assertion checked against `spec`; the first problem is thrown (EINVALID_ARGS). */
export function bindAssertions(spec: ParsedSpec, assertions: readonly Assertion[]): Assertion[] {
  return assertions.map((a) => bindAssertion(a, spec));
}
