/**
 * What a member runs, through the library as `volbench suite` and `volbench run --volume` do: its
 * suite, or its job file, on its own device and nothing else, with the volume (and instance) the
 * spec names so the result carries its entitlements; and before a suite that reads, the
 * precondition the controller planned (src/fleet/precondition.ts's job). Every check is made
 * before any I/O (`prepareWorkload`): a spec the member cannot run is refused, naming the field,
 * before the stack is told the member is up.
 */
import { realpathSync, statSync } from 'node:fs';

import type { StudyMemberSpec, StudySpec } from '../../api/study-objects.js';
import { knownInstance, parseVolume, type CloudContext } from '../../cloud/index.js';
import { VolbenchError } from '../../errors.js';
import { analyseBurst } from '../../findings/burst.js';
import type { FioResult } from '../../fio-output/fio-result.js';
import { parseJobFile, parseSpec } from '../../jobspec/index.js';
import type { ParsedSpec } from '../../jobspec/types.js';
import { planRun, stagesOf } from '../../plan/index.js';
import type { RunProgress } from '../../run/progress.js';
import { runJobs, runParsed } from '../../run/run-jobs.js';
import { prepareSuite, runPrepared, type PreparedSuite, type SuiteRunOptions, type SuiteTestEvent } from '../../suites/index.js';
import { preconditionJob } from '../precondition.js';

/** The member's device (a file in tests), resolved once. */
export interface Target {
  path: string;
  realPath: string;
  kind: 'block_device' | 'file';
}

export type Prepared =
  | { kind: 'suite'; suite: PreparedSuite; options: SuiteRunOptions }
  | { kind: 'job'; spec: ParsedSpec; stageNames: string[][]; options: SuiteRunOptions };

export interface RunHooks {
  signal?: AbortSignal;
  onProgress?: (p: RunProgress) => void;
  onTest?: (e: SuiteTestEvent) => void;
  onStage?: (index: number, total: number, names: string[]) => void;
}

/** The target, which must exist: a block device, or (tests) a regular file. */
export function openTarget(path: string): Target {
  let stats;
  try {
    stats = statSync(path);
  } catch (err) {
    throw new VolbenchError('ETARGET', `the member's device ${path} cannot be used: ${(err as Error).message}`, { field: '--device', accepted: 'the data volume\'s block device' });
  }
  if (!stats.isBlockDevice() && !stats.isFile()) {
    throw new VolbenchError('ETARGET', `the member's device ${path} is neither a block device nor a file`, { field: '--device', accepted: 'the data volume\'s block device' });
  }
  return { path, realPath: realpathSync(path), kind: stats.isBlockDevice() ? 'block_device' : 'file' };
}

/** The volume and instance the spec names, as `--volume` and `--instance` would give them. */
export function cloudOf(spec: StudySpec, entry: StudyMemberSpec, volumeId?: string): CloudContext {
  const volume = parseVolume(entry.volume, { field: `spec.members.${entry.label}.volume` });
  return {
    volume,
    ...(knownInstance(spec.instance_type) ? { instance: spec.instance_type } : { instanceType: spec.instance_type }),
    region: spec.region,
    ...(volumeId ? { volumeId } : {}),
  };
}

/** A job file's jobs must run on the member's device: one that names another target is refused. */
function checkJobTargets(spec: ParsedSpec, target: Target, label: string): void {
  spec.jobs.forEach(({ options: o }, i) => {
    const files = o.filename ?? [];
    const elsewhere = o.directory !== undefined || files.some((f) => f !== target.path && f !== target.realPath);
    if (elsewhere) {
      throw new VolbenchError('ETARGET', `the spec's job ${o.name} for ${label} names its own target (${o.directory ?? files.join(':')}): a member runs on its device only`, {
        field: `spec.members.${label}.job.jobs[${i}]`, accepted: 'no filename or directory (the member\'s device is the target)',
      });
    }
  });
}

/** Every check before any I/O: the suite or job file, its target, its gates, the volume. */
export async function prepareWorkload(entry: StudyMemberSpec, target: Target, cloud: CloudContext): Promise<Prepared> {
  const options: SuiteRunOptions = {
    allowBlockWrite: (device) => device === target.realPath,
    cloud,
    ...(entry.assert?.length ? { assertions: entry.assert } : {}),
  };
  if (entry.suite !== undefined) {
    const suiteOptions: SuiteRunOptions = { ...options, filename: target.path, ...(entry.runtime !== undefined ? { runtime: entry.runtime } : {}) };
    return { kind: 'suite', suite: await prepareSuite(entry.suite, suiteOptions), options: suiteOptions };
  }
  const jobOptions: SuiteRunOptions = { ...options, defaultTarget: { filename: target.path } };
  const parsed = parseSpec(parseJobFile(entry.job!, {}));
  checkJobTargets(parsed, target, entry.label);
  const plan = await planRun(parsed, jobOptions);
  plan.release();
  const stageNames = stagesOf(plan.spec.jobs.map((j) => j.options)).map(({ members }) => members.map(({ index }) => plan.spec.jobs[index].options.name));
  return { kind: 'job', spec: plan.spec, stageNames, options: jobOptions };
}

/** The precondition: the device's first `bytes`, written once in 1 MiB writes. */
export async function precondition(target: Target, bytes: number, hooks: RunHooks): Promise<FioResult> {
  const job = preconditionJob(target.path, bytes);
  return runJobs(job, { allowBlockWrite: (device) => device === target.realPath, signal: hooks.signal, onProgress: hooks.onProgress });
}

/** Runs the prepared workload; fio's JSON with its burst analysis, as the fleet's results carry it. */
export async function runWorkload(prepared: Prepared, hooks: RunHooks): Promise<FioResult> {
  const control = { signal: hooks.signal, onProgress: hooks.onProgress };
  if (prepared.kind === 'suite') {
    return analyseBurst(await runPrepared(prepared.suite, { ...prepared.options, ...control, onTest: hooks.onTest }));
  }
  let stage = -1;
  const onProgress = (p: RunProgress) => {
    if (p.stage !== stage) {
      stage = p.stage;
      hooks.onStage?.(stage, p.stages, prepared.stageNames[stage] ?? []);
    }
    hooks.onProgress?.(p);
  };
  return analyseBurst(await runParsed(prepared.spec, { ...prepared.options, ...control, onProgress }));
}
