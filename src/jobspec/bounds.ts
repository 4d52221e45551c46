/**
 * The bounds of a spec that cost nothing to check, checked before its shape: how many jobs it
 * has, and whether a section has more keys than volbench has option names. A body of tens of
 * thousands of jobs or keys is refused before any of them is validated or parsed.
 */
import { VolbenchError } from '../errors.js';
import { optionNameError, findOption, SUPPORTED_NAMES } from './option-lookup.js';
import { MAX_INSTANCES } from './options.js';

export interface SpecBounds {
  /**
   * A caller's limit on jobs, below fio's 4096 (a server's instances per run): more jobs are
   * ELIMIT_EXCEEDED, since each job is at least one instance.
   */
  maxJobs?: number;
}

/** A caller's job limit exceeded: `where` is the spec or the job file, `field` the first job over it. */
export function jobLimitError(max: number, field: string, where: string): VolbenchError {
  return new VolbenchError('ELIMIT_EXCEEDED', `${field}: ${where} has more than ${max} jobs, each at least one job instance`,
    { field, accepted: `at most ${max} instances per run` });
}

function checkJobCount(jobs: unknown[], bounds: SpecBounds): void {
  if (jobs.length > MAX_INSTANCES) {
    throw new VolbenchError('EINVALID_SPEC', `jobs: ${jobs.length} jobs, more than ${MAX_INSTANCES}`, {
      field: 'jobs',
      accepted: `at most ${MAX_INSTANCES} jobs, as fio (MAX_JOBS)`,
    });
  }
  if (bounds.maxJobs !== undefined && jobs.length > bounds.maxJobs) throw jobLimitError(bounds.maxJobs, 'jobs', 'the spec');
}

/**
 * Keys in one JSON object are distinct, so a section with more keys than there are option
 * names holds one volbench does not take: refused as parseSpec would, naming the first.
 */
function checkSectionKeys(section: unknown, scope: string): void {
  if (typeof section !== 'object' || section === null) return;
  const keys = Object.keys(section);
  if (keys.length <= SUPPORTED_NAMES.length) return;
  const unknown = keys.find((key) => findOption(key) === undefined);
  if (unknown !== undefined) throw optionNameError(unknown, scope);
}

/** Throws a VolbenchError when `spec` is out of bounds; anything else is left to the shape check. */
export function checkSpecBounds(spec: unknown, bounds: SpecBounds = {}): void {
  if (typeof spec !== 'object' || spec === null) return;
  const { global, jobs } = spec as { global?: unknown; jobs?: unknown };
  if (Array.isArray(jobs)) checkJobCount(jobs, bounds);
  checkSectionKeys(global, 'global');
  if (Array.isArray(jobs)) jobs.forEach((job, i) => checkSectionKeys(job, `jobs[${i}]`));
}
