/**
 * `volbench.job_file` of a document folded from several runs made one after another (a suite's
 * tests, an analysis's points and probes): one job file with every run's jobs in order, the first
 * job of each later run waiting for the run before it (stonewall), as they ran.
 */
import { VolbenchError } from '../errors.js';
import { MAX_INSTANCES } from '../jobspec/options.js';
import { parseJobFile, parseSpec, printJobFile, type JobOptions } from '../jobspec/index.js';
import type { VolbenchSection } from './fio-result.js';

/**
 * The runs' job files as one. Undefined when a run has none (a document from before the field);
 * null when one is null, or when the runs hold more jobs than one job file may (fio's 4096).
 */
export function mergedJobFile(files: ReadonlyArray<string | null | undefined>): string | null | undefined {
  if (files.length === 1) return files[0];
  if (files.some((f) => f === undefined)) return undefined;
  if (files.some((f) => f === null) || files.length > MAX_INSTANCES) return null;
  const jobs: Array<{ options: JobOptions }> = [];
  try {
    (files as string[]).forEach((file, run) => {
      parseSpec(parseJobFile(file, {})).jobs.forEach(({ options }, i) =>
        jobs.push({ options: run > 0 && i === 0 ? { ...options, stonewall: true } : options }));
    });
    return jobs.length > MAX_INSTANCES ? null : printJobFile({ jobs });
  } catch (err) {
    // A document read from elsewhere may hold any text there.
    if (err instanceof VolbenchError) return null;
    throw err;
  }
}

/** `section` with `file` as its job file (left out when undefined). */
export function withJobFile(section: VolbenchSection, file: string | null | undefined): VolbenchSection {
  const out = { ...section };
  if (file === undefined) delete out.job_file;
  else out.job_file = file;
  return out;
}
