/**
 * runJobs: the library's one path from a spec to fio's JSON, which the CLI and the HTTP service
 * share. Parse, plan (every check before any I/O, under the caller's rules), run stage by stage
 * in the native engine, measure disk statistics around it, build the report and judge the
 * run's assertions on it.
 */
import { baselineRun, CliffWatch, untilBaselineSpec, type UntilBaseline } from './until-baseline.js';
import { finishRun } from './finish.js';
import { engineSpec } from '../engine/engines.js';
import { runNativeGroup } from '../engine/run-native.js';
import { HIST_BUCKETS, type NativeExpect, type NativeJobPlan, type NativeJobResult } from '../engine/native-types.js';
import { VolbenchError } from '../errors.js';
import { planRun, type PlanOptions, type RunPlan } from '../plan/index.js';
import {
  diskUtilDelta, diskUtilDevices, identifyTarget, snapshotDiskStats, snapshotFromTexts, type DiskStatsSnapshot, type ExcludedInterval,
} from '../device/index.js';
import { EbsStatsWatch, type EbsReads } from '../device/ebs-stats-watch.js';
import { buildReport, type FioResult } from '../fio-output/index.js';
import { collectEntries } from '../fio-output/entries.js';
import { volumeOf } from '../cloud/index.js';
import type { ReportJob, TargetIdentity } from '../fio-output/types.js';
import { parseSpec, printJobFile } from '../jobspec/index.js';
import type { JobSpec, ParsedSpec } from '../jobspec/types.js';
import { VERSION } from '../version.js';
import { summarizeProgress, type RunProgress } from './progress.js';
import { createdFiles, type RunFiles } from './run-files.js';
import type { HeldTargets } from '../plan/held-targets.js';
import { withEbsStats, type StageReads } from './ebs-stats-attach.js';

/** How a planned run is followed and stopped. */
export interface RunControl {
  onProgress?: (progress: RunProgress) => void;
  /** Aborting stops all I/O within a few hundred ms; the result holds what ran, marked cancelled. */
  signal?: AbortSignal;
  /**
   * Stops the run once its series shows the volume's burst cliff and enough of the level after
   * it (the jobs not marked cancelled, a note saying when), and matches the burst analysis to the
   * volume's burst model. runJobs and runParsed also make the jobs run long enough
   * (untilBaselineSpec); a caller of runPlan plans the spec that untilBaselineSpec returns.
   */
  untilBaseline?: UntilBaseline;
  /**
   * Where the run records the files it creates, by identity: a suite or a sweep passes one
   * through its runs, and removes only what it recorded (RunFiles).
   */
  files?: RunFiles;
  /**
   * The directories and files the plans of a sweep's points or a suite's tests share: told
   * what each stage laid out and opened, which the next plan must find (planRun's `held`).
   */
  held?: HeldTargets;
  /**
   * fio's --status-interval: every this many ms while the run goes on, `onStatus` gets the
   * report as of then (fio's full output, each job's statistics so far; jobs of later stonewall
   * stages, and those not started yet, at zero).
   */
  statusIntervalMs?: number;
  onStatus?: (result: FioResult) => void;
}

/** The planning rules (cwd, default target, limits, assertions, ...) and the run's control. */
export interface RunJobsOptions extends PlanOptions, RunControl {}

/**
 * A result for an instance that never started (a later stage of a cancelled run), or, not
 * `cancelled`, one that has not started yet (a status report's).
 */
function notStarted(plan: NativeJobPlan, cancelled = true): NativeJobResult {
  const lat = { n: 0, min: 0, max: 0, mean: 0, m2: 0 };
  const dir = () => ({
    ioBytes: 0, totalIos: 0, shortIos: 0, dropIos: 0, runtimeNs: 0,
    slat: { ...lat }, clat: { ...lat }, lat: { ...lat },
    slatHist: new Float64Array(HIST_BUCKETS), clatHist: new Float64Array(HIST_BUCKETS), latHist: new Float64Array(HIST_BUCKETS),
    bw: { ...lat }, iops: { ...lat },
  });
  return {
    jobName: plan.jobName, instance: plan.instance, engine: plan.engines[0].name, error: 0, errorSyscall: '',
    errorMessage: '', cancelled, stuckIos: 0, bufferBytes: 0, hugePageBytes: 0, registeredBuffers: false, registeredFiles: false, startedAtMs: Date.now(), runtimeNs: 0, elapsedNs: 0, tid: 0,
    opened: { dev: 0n, ino: 0n, rdev: 0n }, moreOpened: plan.moreFiles.map(() => ({ dev: 0n, ino: 0n, rdev: 0n })),
    dirs: [dir(), dir(), dir()], sync: { totalIos: 0, lat: { ...lat }, latHist: new Float64Array(HIST_BUCKETS) },
    usrNs: 0, sysNs: 0, ctx: 0, majf: 0, minf: 0,
    iodepthLevel: [0, 0, 0, 0, 0, 0, 0], iodepthSubmit: [0, 0, 0, 0, 0, 0, 0], iodepthComplete: [0, 0, 0, 0, 0, 0, 0],
    latencyDepth: plan.ioDepth,
    series: [],
  };
}

/**
 * What a later stage must find at a path an earlier stage used: the file that stage opened
 * (planning saw the path before any stage ran), or nothing when it unlinked it (unlink=1).
 */
class StageFiles {
  private readonly seen = new Map<string, NativeExpect>();

  /** `held`: the runs after this one are told too. */
  record(plans: readonly NativeJobPlan[], results: readonly NativeJobResult[], held?: HeldTargets): void {
    plans.forEach((p, i) => {
      const files = [{ path: p.path, isBlockDevice: p.isBlockDevice, opened: results[i]?.opened }, ...p.moreFiles.map((f, k) => ({
        path: f.path, isBlockDevice: f.isBlockDevice, opened: results[i]?.moreOpened?.[k],
      }))];
      for (const { path, isBlockDevice, opened } of files) {
        if (isBlockDevice || !opened || opened.ino === 0n) continue;
        const seen: NativeExpect = p.unlinkAfter ? { kind: 'new', dev: 0n, ino: 0n, rdev: 0n } : { kind: 'file', ...opened, rdev: 0n };
        this.seen.set(path, seen);
        held?.saw(path, seen);
      }
    });
  }

  hold(plans: readonly NativeJobPlan[]): NativeJobPlan[] {
    const held = <T extends { path: string; expect: NativeExpect }>(f: T): T => (this.seen.has(f.path) ? { ...f, expect: this.seen.get(f.path)! } : f);
    return plans.map((p) => ({ ...held(p), moreFiles: p.moreFiles.map(held) }));
  }
}

/**
 * Runs the plan's stages in order. `stats` (taken just before) names the devices whose counters
 * disk_util reports: each stage's run reads them again once it has laid its files out, and
 * those layouts come back as intervals for disk_util to leave out, as fio's baseline follows
 * its layout. `ebs` reads the EBS statistics of the stage's targets before and after it.
 */
async function runStages(
  plan: RunPlan,
  options: RunControl,
  stats: DiskStatsSnapshot,
  ebs: EbsStatsWatch,
  onStatus?: (results: NativeJobResult[][], layouts: ExcludedInterval[]) => void,
): Promise<{ results: NativeJobResult[][]; layouts: ExcludedInterval[]; ebsReads: Array<StageReads | undefined> }> {
  const results: NativeJobResult[][] = plan.jobs.map(() => []);
  const statusIntervalNs = (options.statusIntervalMs ?? 0) * 1e6;
  const layouts: ExcludedInterval[] = [];
  const ebsReads: Array<StageReads | undefined> = [];
  const files = new StageFiles();
  const statPaths = stats.devices.map((d) => d.statFile);
  for (let stage = 0; stage < plan.stages; stage++) {
    const members = plan.jobs.map((job, index) => ({ job, index })).filter(({ job }) => job.stage === stage);
    const plans = files.hold(members.flatMap(({ job }) => job.instances)).map((p) => ({ ...p, statusIntervalNs }));
    let out: NativeJobResult[];
    if (options.signal?.aborted) {
      out = plans.map((p) => notStarted(p));
    } else {
      const startedAt = Date.now();
      const from = stage === 0 ? stats : await snapshotDiskStats(stats.devices.map((d) => d.name));
      const ebsTargets = members.filter(({ job }) => engineSpec(job.options.ioengine).touchesTarget).map(({ job }) => job.targetIndex);
      // Read again once the run has laid new files out (it says so before its jobs start): the
      // layout's writes are not the jobs'.
      let ebsFrom: Promise<EbsReads> = ebs.read(ebsTargets);
      await ebsFrom;
      const run = await runNativeGroup(plans, {
        signal: options.signal,
        statPaths,
        onCreated: (created) => {
          options.files?.created(plans, created);
          if (created.some((c) => c.file === 0)) ebsFrom = ebs.read(ebsTargets);
          for (const { planned, file } of createdFiles(plans, created)) options.held?.saw(planned, { kind: 'file', dev: file.dev, ino: file.ino, rdev: 0n });
        },
        onProgress: options.onProgress
          ? (reports) => options.onProgress!(summarizeProgress(plans, reports, stage, plan.stages, startedAt))
          : undefined,
        onStatus: onStatus ? (status) => onStatus(statusResults(plan, results, members, plans, status), layouts) : undefined,
      });
      out = run.jobs;
      ebsReads[stage] = { from: await ebsFrom, to: await ebs.read(ebsTargets) };
      if (run.afterLayout) layouts.push({ from, to: snapshotFromTexts(from, run.afterLayout.stats, from.takenAtMs + run.afterLayout.ms) });
    }
    files.record(plans, out, options.held);
    let at = 0;
    for (const { job, index } of members) {
      results[index] = out.slice(at, at + job.instances.length);
      at += job.instances.length;
    }
  }
  return { results, layouts, ebsReads };
}

/**
 * Every job's results for a status report during `members`' stage: the stages before it as they
 * ended, its own as of the report, the later ones not started.
 */
function statusResults(
  plan: RunPlan, done: NativeJobResult[][], members: ReadonlyArray<{ index: number }>, plans: NativeJobPlan[],
  status: Array<NativeJobResult | null>,
): NativeJobResult[][] {
  const out = plan.jobs.map((job, i) => (done[i].length ? done[i] : job.instances.map((p) => notStarted(p, false))));
  let at = 0;
  for (const { index } of members) {
    out[index] = plan.jobs[index].instances.map((_, k) => status[at + k] ?? notStarted(plans[at + k], false));
    at += plan.jobs[index].instances.length;
  }
  return out;
}

/**
 * Runs a plan from planRun and resolves to fio's JSON, with the plan's assertions judged under
 * `volbench.assertions`. Plan shortly before running: the plan's checks hold as of then. A
 * signal aborted before a stage starts leaves that stage's jobs cancelled, never started.
 */
export async function runPlan(plan: RunPlan, options: RunControl = {}): Promise<FioResult> {
  try {
    return await runPlanned(plan, options);
  } finally {
    plan.release();
  }
}

/** The control that stops the run at its cliff, and what it saw; the caller's signal still cancels. */
function watchedControl(options: RunControl): { control: RunControl; watch: CliffWatch | null } {
  if (!options.untilBaseline) return { control: options, watch: null };
  const watch = new CliffWatch(baselineRun(options.untilBaseline.volume).unit);
  const stop = new AbortController();
  if (options.signal?.aborted) stop.abort();
  options.signal?.addEventListener('abort', () => stop.abort(), { once: true });
  const onProgress = (p: RunProgress): void => {
    options.onProgress?.(p);
    if (!stop.signal.aborted && watch.feed(p)) stop.abort();
  };
  return { control: { ...options, signal: stop.signal, onProgress }, watch };
}

/**
 * The spec as it ran, as a fio job file: null when a value cannot be written in one (a ';' in a
 * description), which the run does not fail for.
 */
function jobFileOf(spec: ParsedSpec): string | null {
  try {
    return printJobFile(spec);
  } catch (err) {
    if (err instanceof VolbenchError) return null;
    throw err;
  }
}

/** Each result entry's stage and target: its first member's (an entry's members share a stage); null where it touches no device. */
function entryStages(plan: RunPlan, jobs: ReportJob[]): Array<{ stage: number; targetIndex: number } | null> {
  return collectEntries(jobs).map((e) => {
    const job = plan.jobs[jobs.indexOf(e.members[0]?.job)];
    return job && engineSpec(job.options.ioengine).touchesTarget ? { stage: job.stage, targetIndex: job.targetIndex } : null;
  });
}

/** What the report is built from besides the results. */
interface ReportContext {
  startedAtMs: number;
  statsBefore: DiskStatsSnapshot;
  targets: TargetIdentity[];
  notes: string[];
}

/** The report's jobs: each planned job with its instances' results. */
function reportJobs(plan: RunPlan, results: NativeJobResult[][], notes: readonly string[]): ReportJob[] {
  return plan.jobs.map((job, i) => ({
    jobname: job.jobname,
    groupid: job.groupid,
    options: job.options,
    ownOptions: job.ownOptions,
    instances: results[i],
    targetIndex: job.targetIndex,
    layouts: job.layouts,
    notes: [...job.notes, ...notes],
  }));
}

/** fio's document for `jobs` (final, or a status report's), disk_util up to `statsAfter`. */
function reportOf(plan: RunPlan, jobs: ReportJob[], ctx: ReportContext, statsAfter: DiskStatsSnapshot, layouts: ExcludedInterval[]): FioResult {
  return buildReport({
    startedAtMs: ctx.startedAtMs,
    ...(plan.globalOptions ? { globalOptions: plan.globalOptions } : {}),
    jobs,
    diskUtil: diskUtilDelta(ctx.statsBefore, statsAfter, layouts),
    targets: ctx.targets,
    volbenchVersion: VERSION,
    jobFile: jobFileOf(plan.spec),
  });
}

/** Status reports: each as soon as its disk statistics are read, in order, none after the run's end. */
function statusReporter(plan: RunPlan, options: RunControl, ctx: ReportContext, devices: string[]) {
  if (!options.onStatus || !options.statusIntervalMs) return { report: undefined, end: async () => {} };
  let chain = Promise.resolve();
  let ended = false;
  const report = (results: NativeJobResult[][], layouts: ExcludedInterval[]): void => {
    chain = chain.then(async () => {
      const now = await snapshotDiskStats(devices);
      if (!ended) options.onStatus!(reportOf(plan, reportJobs(plan, results, ctx.notes), ctx, now, [...layouts]));
    }).catch(() => {});
  };
  return { report, end: async () => { await chain; ended = true; } };
}

async function runPlanned(plan: RunPlan, options: RunControl): Promise<FioResult> {
  const { control, watch } = watchedControl(options);
  const startedAtMs = Date.now();
  const before = await Promise.all(plan.targetPaths.map((p) => identifyTarget(p)));
  // An engine that touches no device (null) adds nothing to disk_util or the EBS statistics; every file of the others does.
  const touchedPaths = new Set(plan.jobs.filter((j) => engineSpec(j.options.ioengine).touchesTarget)
    .flatMap((j) => j.instances.flatMap((p) => [p.path, ...p.moreFiles.map((f) => f.path)])));
  const touched = (i: number): boolean => touchedPaths.has(plan.targetPaths[i]);
  const devices = diskUtilDevices(before.filter((_, i) => touched(i)));
  const statsBefore = await snapshotDiskStats(devices);
  const status = statusReporter(plan, options, { startedAtMs, statsBefore, targets: before, notes: [] }, devices);
  const ebs = await EbsStatsWatch.start(before.map((t, i) => (touched(i) ? t : null)));
  let stages;
  try {
    stages = await runStages(plan, control, statsBefore, ebs, status.report);
  } finally {
    ebs.close();
  }
  await status.end();
  const { results, layouts, ebsReads } = stages;
  // Stopped at the cliff, not cancelled: the run did what --until-baseline asked.
  const seen = watch?.seen && !options.signal?.aborted ? watch.seen : null;
  if (seen) results.forEach((rs) => rs.forEach((r) => (r.cancelled = false)));
  const stopNote = seen
    ? [`stopped ${seen.atS} s in, after the burst cliff at ${Math.round(seen.cliffAtS * 10) / 10} s and the level after it (--until-baseline)`]
    : [];
  const statsAfter = await snapshotDiskStats(devices);
  // Identify again: files laid out by the run now exist and have their size. By name, after the
  // I/O: a name swapped meanwhile (for a FIFO, for a link to another device) must neither throw
  // the result away nor report another device, so only an answer about the same device counts.
  const targets = await Promise.all(plan.targetPaths.map(async (p, i) => {
    const after = await identifyTarget(p).catch(() => null);
    const same = after !== null && after.device === before[i].device && after.isBlockDevice === before[i].isBlockDevice;
    return same ? after : before[i];
  }));
  const jobs = reportJobs(plan, results, stopNote);
  const result = reportOf(plan, jobs, { startedAtMs, statsBefore, targets, notes: stopNote }, statsAfter, layouts);
  const measured = withEbsStats(result, ebs, ebsReads, entryStages(plan, jobs));
  const until = options.untilBaseline?.volume;
  return finishRun(measured, { cloud: plan.cloud, volume: until ? volumeOf(until) : undefined, assertions: plan.assertions });
}

/** Plans (every check before any I/O) and runs a parsed spec. */
export async function runParsed(parsed: ParsedSpec, options: RunJobsOptions = {}): Promise<FioResult> {
  const spec = options.untilBaseline ? untilBaselineSpec(parsed, options.untilBaseline, options.limits?.maxRuntimeSec) : parsed;
  return runPlan(await planRun(spec, options), options);
}

/**
 * Runs a spec (`{ global, jobs }` with fio's option names) and resolves to fio's JSON object,
 * with volbench's own facts under `"volbench"`. Bad specs and unusable targets reject with a
 * VolbenchError before any I/O; I/O errors end their job with fio's `error` set instead.
 */
export async function runJobs(spec: JobSpec, options: RunJobsOptions = {}): Promise<FioResult> {
  if (options.signal?.aborted) throw new VolbenchError('ECANCELLED', 'the run was cancelled before it started');
  return runParsed(parseSpec(spec), options);
}
