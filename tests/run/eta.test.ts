/**
 * What is left of a stage, and fio's status characters, from the engine's reports.
 *
 * Broke: the ETA was the stage's elapsed time scaled by its share done, so a layout counted as
 * run time (a 10 s job after a 33 s layout read 38 s at 10 %), and every job showed `r`.
 * Expected: a time_based job has what is left of its runtime; a job bound by size its bytes left
 * at its rate; a layout its bytes left at its rate, before the jobs' whole runtime; fio's table
 * of characters per rw.
 */
import { describe, expect, it } from 'vitest';

import type { NativeJobPlan, NativeProgress } from '../../src/engine/native-types.js';
import { jobFraction, jobLeftMs, layoutLeftMs, stageLeftMs, type FileLayout } from '../../src/run/eta.js';
import { runningChar, runString } from '../../src/run/status-chars.js';
import { requires } from '../helpers/requires.js';

requires();

const S = 1e9;

/** A plan with what the ETA and the status characters read; the rest is no concern of theirs. */
function plan(over: Partial<NativeJobPlan> = {}): NativeJobPlan {
  return {
    path: '/data/a.bin', isBlockDevice: false, layoutBytes: 1 << 30, layoutFill: true, ioBytesPerLoop: 1 << 30, loops: 1,
    timeBased: true, runtimeNs: 10 * S, rampNs: 0, startDelayNs: 0, random: [1, 1, 0], readPct: 100, trimPct: 0, ...over,
  } as NativeJobPlan;
}

function report(over: Partial<NativeProgress> = {}): NativeProgress {
  return { jobName: 'j', instance: 0, phase: 'running', elapsedMs: 0, ios: [0, 0, 0], bytes: [0, 0, 0], ...over };
}

const layout = (over: Partial<FileLayout> = {}): FileLayout => ({
  path: '/data/a.bin', doneBytes: 256 << 20, totalBytes: 1 << 30, elapsedMs: 2000, ended: false, ...over,
});

describe('what a job has left', () => {
  it('a time_based job: the engine\'s time to its runtime\'s end, its share done by the same', () => {
    expect(jobLeftMs(plan(), report({ endsInMs: 6200, elapsedMs: 3000 }))).toBe(6200);
    expect(jobFraction(plan(), report({ endsInMs: 6000 }))).toBeCloseTo(0.4, 5);
  });

  it('before its runtime begins: all of it, after what is left of its start delay and ramp', () => {
    expect(jobLeftMs(plan({ rampNs: 2 * S, startDelayNs: 1 * S }), report({ phase: 'pending' }))).toBe(13_000);
    expect(jobLeftMs(plan({ rampNs: 2 * S }), report({ phase: 'ramp', elapsedMs: 500 }))).toBe(11_500);
    expect(jobFraction(plan(), report({ phase: 'layout' }))).toBe(0);
  });

  it('a job bound by size: its bytes left at its rate, its runtime as a cap; unknown before a byte', () => {
    const sized = plan({ timeBased: false, runtimeNs: 0, ioBytesPerLoop: 1000, loops: 2 });
    expect(jobLeftMs(sized, report({ elapsedMs: 1000, bytes: [500, 0, 0] }))).toBe(3000);
    expect(jobFraction(sized, report({ bytes: [500, 0, 0] }))).toBe(0.25);
    expect(jobLeftMs(sized, report({ elapsedMs: 0 }))).toBeNull();
    const capped = plan({ timeBased: false, runtimeNs: 2 * S, ioBytesPerLoop: 1000, loops: 2 });
    expect(jobLeftMs(capped, report({ elapsedMs: 1000, bytes: [500, 0, 0], endsInMs: 1000 }))).toBe(1000);
  });

  it('a job done has nothing left', () => {
    expect(jobLeftMs(plan(), report({ phase: 'done' }))).toBe(0);
    expect(jobFraction(plan(), report({ phase: 'done' }))).toBe(1);
  });
});

describe('what a layout has left', () => {
  it('its bytes left at its rate so far, and files not begun at the same rate; allocations take none', () => {
    const plans = [plan(), plan({ path: '/data/b.bin', layoutBytes: 512 << 20 }), plan({ path: '/data/c.bin', layoutFill: false })];
    const reports = [report({ phase: 'layout' }), report({ phase: 'pending' }), report({ phase: 'pending' })];
    // 256 MiB in 2 s: 768 MiB left of a, 512 MiB of b, nothing of c (allocated).
    expect(layoutLeftMs(plans, reports, [layout()])).toBe(6000 + 4000);
  });

  it('unknown before the first chunk is written', () => {
    expect(layoutLeftMs([plan()], [report({ phase: 'layout' })], [layout({ doneBytes: 0, elapsedMs: 0 })])).toBeNull();
  });

  it("the stage: the layout, then its slowest job's whole runtime", () => {
    const plans = [plan(), plan({ runtimeNs: 4 * S })];
    const reports = [report({ phase: 'layout' }), report({ phase: 'layout' })];
    expect(stageLeftMs(plans, reports, [layout()])).toBe(6000 + 10_000);
    // Laid out: the jobs' own clocks alone.
    const running = [report({ endsInMs: 7000 }), report({ endsInMs: 1000 })];
    expect(stageLeftMs(plans, running, [layout({ doneBytes: 1 << 30, ended: true })])).toBe(7000);
  });
});

describe("fio's status characters", () => {
  it('per rw: r/R, w/W, m/M, d/D; randrw with rwmixread=100 is a read', () => {
    expect(runningChar(plan({ readPct: 100, random: [1, 1, 0] }))).toBe('r');
    expect(runningChar(plan({ readPct: 100, random: [0, 0, 0] }))).toBe('R');
    expect(runningChar(plan({ readPct: 0, random: [1, 1, 0] }))).toBe('w');
    expect(runningChar(plan({ readPct: 0, random: [0, 0, 0] }))).toBe('W');
    expect(runningChar(plan({ readPct: 70, random: [1, 1, 0] }))).toBe('m');
    expect(runningChar(plan({ readPct: 70, random: [0, 0, 0] }))).toBe('M');
    expect(runningChar(plan({ trimPct: 100, random: [0, 0, 1] }))).toBe('d');
    expect(runningChar(plan({ trimPct: 100, random: [0, 0, 0] }))).toBe('D');
  });

  it("condensed as fio's run string; a layout is no finishing", () => {
    const plans = [plan({ readPct: 0 }), plan({ readPct: 0 }), plan(), plan(), plan()];
    const reports = [report(), report(), report({ phase: 'ramp' }), report({ phase: 'done' }), report({ phase: 'layout' })];
    expect(runString(plans, reports)).toBe('w(2),/(1),_(1),P(1)');
  });
});
