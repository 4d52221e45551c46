/**
 * The files a run made, by identity, kept with the run through a suite's tests and a sweep's
 * points. Whatever removes them later (unlink at a sweep's end, a suite cut short, the
 * service's cleanup after an interrupted run) removes a file recorded here and only while its
 * name still leads to that very file (removeFiles): a directory swapped for a link, or another
 * file put in its place, is left alone.
 */
import type { NativeCreatedFile, NativeJobPlan, NativePathRef } from '../engine/native-types.js';
import type { FileIdentity } from '../device/anchor.js';
import type { FioResult } from '../fio-output/fio-result.js';

export class RunFiles {
  /** By the path as planned (a job's filename resolved against cwd, a log's name). */
  private readonly byPath = new Map<string, FileIdentity>();

  /** `onCreated`: told of each file the run creates as soon as it exists (the service records them). */
  constructor(private readonly onCreated?: (files: FileIdentity[]) => void) {}

  /**
   * Files a stage's layout created (the engine's report), for the stage's plans: the only files
   * recorded. A file a run opened but did not create (one that was there, or one a later point
   * of a sweep found) is never recorded, so nothing removes it.
   */
  created(plans: readonly NativeJobPlan[], created: readonly NativeCreatedFile[]): void {
    const made = createdFiles(plans, created);
    for (const { planned, file } of made) this.byPath.set(planned, file);
    if (made.length > 0) this.onCreated?.(made.map((m) => m.file));
  }

  /** What was recorded at these paths (as planned); a path never recorded has nothing to remove. */
  of(paths: Iterable<string>): FileIdentity[] {
    return [...paths].flatMap((p) => this.byPath.get(p) ?? []);
  }
}

/** The result with `notes` added to its last job's: what a removal after the runs left in place (leftInPlaceNotes). */
export function withNotes(result: FioResult, notes: readonly string[]): FioResult {
  const jobs = result.volbench.jobs;
  if (notes.length === 0 || jobs.length === 0) return result;
  const last = jobs[jobs.length - 1];
  const noted = { ...last, notes: [...(last.notes ?? []), ...notes] };
  return { ...result, volbench: { ...result.volbench, jobs: [...jobs.slice(0, -1), noted] } };
}

/** The files the engine reports created, each with the path it was planned as. */
export function createdFiles(plans: readonly NativeJobPlan[], created: readonly NativeCreatedFile[]): Array<{ planned: string; file: FileIdentity }> {
  return created.flatMap((c) => {
    const plan = plans[c.job];
    const named = plan === undefined ? null : fileOf(plan, c.file);
    if (named === null || named.ref?.realPath === undefined) return [];
    return [{ planned: named.path, file: { path: named.ref.realPath, dev: c.dev, ino: c.ino, stamp: c.stamp ?? '' } }];
  });
}

/** File `n` of a plan as the engine numbers them: 0 the target, 1 to 5 its logs, 6 on its other files. */
function fileOf(plan: NativeJobPlan, n: number): { path: string; ref: NativePathRef | null } | null {
  if (n >= 6) {
    const more = plan.moreFiles[n - 6];
    return more === undefined ? null : { path: more.path, ref: more.target };
  }
  const logs: Array<[string, NativePathRef | null]> = [
    [plan.bwLogPath, plan.bwLog], [plan.iopsLogPath, plan.iopsLog], [plan.latLogPath, plan.latLog],
    [plan.clatLogPath, plan.clatLog], [plan.slatLogPath, plan.slatLog],
  ];
  if (n === 0) return { path: plan.path, ref: plan.target };
  const log = logs[n - 1];
  return log === undefined ? null : { path: log[0], ref: log[1] };
}
