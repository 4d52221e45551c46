/**
 * The files a run made or used, by identity, kept with the run through a suite's tests and a
 * sweep's points. Whatever removes them later (unlink at a sweep's end, a suite cut short, the
 * service's cleanup after an interrupted run) removes a file recorded here and only while its
 * name still leads to that very file (removeFiles): a directory swapped for a link, or another
 * file put in its place, is left alone.
 */
import type { NativeCreatedFile, NativeJobPlan, NativeJobResult, NativePathRef } from '../engine/native-types.js';
import type { FileIdentity } from '../device/anchor.js';

export class RunFiles {
  /** By the path as planned (a job's filename resolved against cwd, a log's name). */
  private readonly byPath = new Map<string, FileIdentity>();

  /** `onCreated`: told of each file the run creates as soon as it exists (the service records them). */
  constructor(private readonly onCreated?: (files: FileIdentity[]) => void) {}

  /** Files a stage's layout created (the engine's report), for the stage's plans. */
  created(plans: readonly NativeJobPlan[], created: readonly NativeCreatedFile[]): void {
    const made: FileIdentity[] = [];
    for (const c of created) {
      const plan = plans[c.job];
      const named = plan === undefined ? null : fileOf(plan, c.file);
      if (named === null || named.ref?.realPath === undefined) continue;
      const file = { path: named.ref.realPath, dev: c.dev, ino: c.ino };
      this.byPath.set(named.path, file);
      made.push(file);
    }
    if (made.length > 0) this.onCreated?.(made);
  }

  /** The targets a stage's jobs opened. */
  opened(plans: readonly NativeJobPlan[], results: readonly NativeJobResult[]): void {
    plans.forEach((plan, i) => {
      const files = [{ file: plan, opened: results[i]?.opened }, ...plan.moreFiles.map((file, k) => ({ file, opened: results[i]?.moreOpened?.[k] }))];
      for (const { file, opened } of files) {
        if (file.isBlockDevice || !opened || opened.ino === 0n || file.target.realPath === undefined) continue;
        this.byPath.set(file.path, { path: file.target.realPath, dev: opened.dev, ino: opened.ino });
      }
    });
  }

  /** What was recorded at these paths (as planned); a path never recorded has nothing to remove. */
  of(paths: Iterable<string>): FileIdentity[] {
    return [...paths].flatMap((p) => this.byPath.get(p) ?? []);
  }
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
