/**
 * Shared pieces of the tests that run real I/O through the library: a scratch directory per
 * test file (on tmpfs by default, named with the pid) and small readers of a FioResult.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';

import { AUTO_ENGINES, ENGINE_NAMES, type EngineName } from '../../src/engine/engines.js';
import { VolbenchError, runJobs } from '../../src/index.js';
import type { FioDirStats, FioJob, FioResult } from '../../src/fio-output/fio-result.js';
import type { JobSpec, RawOptionValue } from '../../src/jobspec/types.js';

export const KiB = 1024;
export const MiB = 1024 * 1024;

export type { EngineName };
export { AUTO_ENGINES };
export const ALL_ENGINES: readonly EngineName[] = ENGINE_NAMES;

/** A directory of its own for one test file; `remove()` deletes it and everything in it. */
export class ScratchDir {
  readonly dir: string;

  constructor(label: string, baseDir = '/dev/shm') {
    this.dir = mkdtempSync(join(baseDir, `volbench-${label}-${process.pid}-`));
  }

  path(name: string): string {
    return join(this.dir, name);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export type Job = Record<string, RawOptionValue>;

/** Runs one job and returns the result with its only fio job entry. */
export async function runJob(job: Job, global?: Job): Promise<{ result: FioResult; job: FioJob }> {
  const spec: JobSpec = { ...(global ? { global } : {}), jobs: [job] };
  const result = await runJobs(spec);
  expect(result.jobs).toHaveLength(1);
  return { result, job: result.jobs[0] };
}

/** A direction's stats, failing the test when the job entry lacks it. */
export function dir(job: FioJob, name: 'read' | 'write' | 'trim' | 'mixed'): FioDirStats {
  const stats = job[name];
  if (stats === undefined) throw new Error(`job ${job.jobname} has no ${name} section`);
  return stats;
}

/** Calls `fn`, which must throw a VolbenchError, and returns that error. */
export function thrownVolbenchError(fn: () => unknown): VolbenchError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(VolbenchError);
    return err as VolbenchError;
  }
  throw new Error('expected a VolbenchError, but nothing was thrown');
}

/** Awaits a promise that must reject with a VolbenchError, and returns that error. */
export async function volbenchError(promise: Promise<unknown>): Promise<VolbenchError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(VolbenchError);
    return err as VolbenchError;
  }
  throw new Error('expected a VolbenchError, but the promise resolved');
}
