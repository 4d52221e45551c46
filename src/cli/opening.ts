/**
 * What fio prints as a run starts, before its report: a line per job (rw, block sizes, engine,
 * depth; "..." for a job's further instances), its version, "Starting N processes", a "Laying
 * out IO file" line per file a job creates or extends, and a note per job whose synchronous
 * engine caps its depth at 1. volbench's jobs are threads, but fio runs a job as a process unless
 * told otherwise (--thread), and these lines are fio's.
 */
import { engineSpec, AUTO_ENGINES, type EngineName } from '../engine/engines.js';
import { blockSizes } from '../plan/native-plan.js';
import type { PlannedJob, RunPlan } from '../plan/index.js';
import { num2str } from '../fio-output/num2str.js';
import { VERSION } from '../version.js';

const SYNC_NOTE = 'note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1';

function sizeText(bytes: number): string {
  return num2str(bytes, 4, 1, true, 'byte');
}

/** The engine a job runs on: its own, or the first automatic one this kernel sets up. */
function engineOf(job: PlannedJob, available: readonly EngineName[]): EngineName {
  return job.options.ioengine ?? AUTO_ENGINES.find((e) => available.includes(e)) ?? AUTO_ENGINES[0];
}

function jobLine(job: PlannedJob, engine: EngineName): string {
  const tables = blockSizes(job.options);
  const range = (d: number): string => {
    const sizes = tables[d].map((e) => e.bs);
    return `${sizeText(Math.min(...sizes))}-${sizeText(Math.max(...sizes))}`;
  };
  return `${job.jobname}: (g=${job.groupid}): rw=${job.options.rw}, bs=(R) ${range(0)}, (W) ${range(1)}, (T) ${range(2)}, ` +
    `ioengine=${engine}, iodepth=${job.options.iodepth}`;
}

/** fio's line for the files one job thread lays out: `(1 file / 32MiB)`, `(4 files / total 64MiB)`. */
function layoutLine(jobname: string, files: number, bytes: number): string {
  const mib = Math.floor(bytes / 2 ** 20);
  return files === 1 ? `${jobname}: Laying out IO file (1 file / ${mib}MiB)` : `${jobname}: Laying out IO files (${files} files / total ${mib}MiB)`;
}

/**
 * The lines that lay out files, and the notes: what fio says of a job as its thread starts. A
 * file is laid out once, by the first job that needs it; a later job sharing it says so again
 * only when it needs the file larger (fio extends it then).
 */
export function startNotes(plan: RunPlan, available: readonly EngineName[]): string[] {
  const lines: string[] = [];
  const laidOut = new Map<string, number>();
  for (const job of plan.jobs) {
    for (const notes of job.layouts) {
      const grown = notes.filter((note) => note.toBytes > (laidOut.get(note.path) ?? 0));
      for (const note of grown) laidOut.set(note.path, note.toBytes);
      if (grown.length > 0) lines.push(layoutLine(job.jobname, grown.length, grown.reduce((n, note) => n + note.toBytes, 0)));
    }
  }
  // fio notes it once per thread.
  for (const job of plan.jobs) {
    if (!engineSpec(engineOf(job, available)).asynchronous && job.options.iodepth > 1) lines.push(...job.instances.map(() => SYNC_NOTE));
  }
  return lines;
}

/** Everything fio prints before the run's report, as lines. */
export function openingLines(plan: RunPlan, available: readonly EngineName[]): string[] {
  const lines: string[] = [];
  for (const job of plan.jobs) {
    lines.push(jobLine(job, engineOf(job, available)));
    if (job.instances.length > 1) lines.push('...');
  }
  const threads = plan.jobs.reduce((n, j) => n + j.instances.length, 0);
  lines.push(`volbench-${VERSION}`, `Starting ${threads} process${threads === 1 ? '' : 'es'}`);
  return [...lines, ...startNotes(plan, available)];
}
