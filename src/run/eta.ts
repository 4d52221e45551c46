/**
 * What is left of a stage, from what each job has left, never from the stage's pace so far: a
 * layout that took half the stage's time says nothing about the run after it. A time_based job
 * has its runtime minus its time in the run left (exact once it has begun, from the engine's own
 * deadline); a job bound by size has its bytes left at its rate so far; the stage's layout has its
 * bytes left at the layout's rate. fio's eta.c reckons a time_based job from its runtime the same
 * way.
 */
import type { NativeJobPlan, NativeProgress } from '../engine/native-types.js';

/** A file's layout in a progress report: each file once, in the order it was laid out. */
export interface FileLayout {
  path: string;
  doneBytes: number;
  /** What the layout writes or allocates: 0 when the file was already large enough. */
  totalBytes: number;
  elapsedMs: number;
  ended: boolean;
}

const ms = (ns: number): number => ns / 1e6;

/** Bytes per ms of a layout so far, or null before it has written a chunk. */
function layoutRate(l: FileLayout): number | null {
  return l.doneBytes > 0 && l.elapsedMs > 0 ? l.doneBytes / l.elapsedMs : null;
}

/**
 * Ms until the stage's files are laid out: the file being laid out at its rate so far, and
 * files not yet begun (jobs still pending with a layout planned) at that same rate when they are
 * filled (an allocation takes no time to speak of). Null while that rate is not known yet.
 */
export function layoutLeftMs(plans: readonly NativeJobPlan[], reports: readonly NativeProgress[], layouts: readonly FileLayout[]): number | null {
  const current = layouts.find((l) => !l.ended);
  const rate = current ? layoutRate(current) : (layouts.map(layoutRate).find((r) => r !== null) ?? null);
  let left = 0;
  if (current && current.totalBytes > current.doneBytes) {
    if (rate === null) return null;
    left += (current.totalBytes - current.doneBytes) / rate;
  }
  const begun = new Set(layouts.map((l) => l.path));
  const waiting = new Map<string, number>();
  reports.forEach((p, i) => {
    const plan = plans[i];
    if (p.phase !== 'pending' || p.layout || begun.has(plan.path) || plan.isBlockDevice || !plan.layoutFill) return;
    waiting.set(plan.path, Math.max(waiting.get(plan.path) ?? 0, plan.layoutBytes));
  });
  for (const bytes of waiting.values()) {
    if (bytes === 0) continue;
    if (rate === null) return null;
    left += bytes / rate;
  }
  return left;
}

/** Ms a job bound by size has left at its rate so far; null before it has moved a byte. */
function sizeLeftMs(plan: NativeJobPlan, p: NativeProgress): number | null {
  const total = plan.ioBytesPerLoop * plan.loops;
  const done = p.bytes[0] + p.bytes[1] + p.bytes[2];
  const measuredMs = p.elapsedMs - ms(plan.startDelayNs + plan.rampNs);
  if (total <= 0 || done <= 0 || measuredMs <= 0) return null;
  return Math.max(0, ((total - done) * measuredMs) / done);
}

function boundByTime(plan: NativeJobPlan): boolean {
  return plan.timeBased || (plan.runtimeNs > 0 && plan.ioBytesPerLoop === 0);
}

/**
 * Ms a job instance has left once its file is laid out, or null when nothing says yet. A job
 * that has not begun its runtime has all of it left, with its start delay and ramp before it.
 */
export function jobLeftMs(plan: NativeJobPlan, p: NativeProgress): number | null {
  if (p.phase === 'done') return 0;
  const bySize = boundByTime(plan) ? null : sizeLeftMs(plan, p);
  if (p.endsInMs !== undefined) return bySize === null ? p.endsInMs : Math.min(bySize, p.endsInMs);
  if (bySize !== null) return bySize;
  if (plan.runtimeNs <= 0 || !boundByTime(plan)) return null;
  const before = Math.max(0, ms(plan.startDelayNs + plan.rampNs) - p.elapsedMs);
  return before + ms(plan.runtimeNs);
}

/** Ms until the stage ends: its layout, then its slowest job; null when either is unknown. */
export function stageLeftMs(plans: readonly NativeJobPlan[], reports: readonly NativeProgress[], layouts: readonly FileLayout[]): number | null {
  const layout = layoutLeftMs(plans, reports, layouts);
  if (layout === null) return null;
  let slowest = 0;
  for (const [i, p] of reports.entries()) {
    const left = jobLeftMs(plans[i], p);
    if (left === null) return null;
    slowest = Math.max(slowest, left);
  }
  return Math.round(layout + slowest);
}

/** Share of a job instance done, 0..1: of its runtime (time_based) or of its bytes. */
export function jobFraction(plan: NativeJobPlan, p: NativeProgress): number {
  if (p.phase === 'done') return 1;
  const runtimeMs = ms(plan.runtimeNs);
  const byTime = runtimeMs > 0 && p.endsInMs !== undefined ? 1 - p.endsInMs / runtimeMs : 0;
  if (boundByTime(plan)) return Math.min(1, Math.max(0, byTime));
  const total = plan.ioBytesPerLoop * plan.loops;
  const bySize = total > 0 ? (p.bytes[0] + p.bytes[1] + p.bytes[2]) / total : 0;
  return Math.min(1, Math.max(0, bySize, byTime));
}
