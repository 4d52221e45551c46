/**
 * How far a suite has got and what it has left, over all its tests and loops: the run going now
 * has its own ETA (run/eta.ts); each run after it is reckoned from what the same test took in
 * its last loop (its layout left out: later loops reuse the files), else from its runtime (a
 * time_based test takes it, a test bound by size at most that), else from the runs so far.
 * Layouts of tests yet to come are not foreseen: their files are planned as each test starts.
 */
import type { ParsedJob } from '../jobspec/types.js';
import type { RunProgress } from '../run/progress.js';

/** Where a suite is, as each progress report of its current run comes. */
export interface SuiteProgress {
  suite: string;
  /** 1-based index of the test and of its loop, and the job names of the test. */
  test: number;
  tests: number;
  loop: number;
  loops: number;
  jobs: string[];
  /** Since the suite began. */
  elapsedMs: number;
  /** Share of the whole suite done, 0..1. */
  fraction: number;
  /** Ms until the whole suite ends, or null while a run's length is unknown. */
  etaMs: number | null;
  /** The current run's own report. */
  run: RunProgress;
}

/** What a test takes by its options: its longest job's delay, ramp and runtime; null when a job has no runtime. */
export function plannedTestMs(jobs: readonly ParsedJob[]): number | null {
  let longest = 0;
  for (const { options: o } of jobs) {
    if (!(o.runtime_ns > 0)) return null;
    longest = Math.max(longest, (o.startdelay_ns + o.ramp_time_ns + o.runtime_ns) / 1e6);
  }
  return longest;
}

export class SuiteClock {
  private readonly measured: Array<number | null>;
  private runsDone = 0;
  private current = { test: 0, loop: 1 };
  private last: RunProgress | null = null;

  constructor(
    private readonly planned: ReadonlyArray<number | null>,
    private readonly loops: number,
    private readonly startedAt = Date.now(),
  ) {
    this.measured = planned.map(() => null);
  }

  /** A run begins: test `test` (0-based), loop `loop` (1-based). */
  begin(test: number, loop: number): void {
    this.current = { test, loop };
    this.last = null;
  }

  /** A run ended after `durationMs`: what a later loop of its test will take, its layout left out. */
  end(durationMs: number): void {
    const layoutMs = this.last?.layouts.reduce((sum, l) => sum + l.elapsedMs, 0) ?? 0;
    this.measured[this.current.test] = Math.max(0, durationMs - layoutMs);
    this.runsDone++;
  }

  private estimate(test: number): number | null {
    const known = this.measured[test] ?? this.planned[test];
    if (known !== null) return known;
    const seen = this.measured.filter((m): m is number => m !== null);
    return seen.length ? seen.reduce((a, b) => a + b, 0) / seen.length : null;
  }

  /** Ms the runs after the current one will take, or null when one of them is unknown. */
  private afterCurrentMs(): number | null {
    const { test, loop } = this.current;
    let sum = 0;
    for (let t = test; t < this.planned.length; t++) {
      const runs = t === test ? this.loops - loop : this.loops;
      if (runs === 0) continue;
      const each = this.estimate(t);
      if (each === null) return null;
      sum += runs * each;
    }
    return sum;
  }

  /** Takes the current run's report; the suite's elapsed time, share done and ETA. */
  progress(run: RunProgress): Pick<SuiteProgress, 'elapsedMs' | 'fraction' | 'etaMs'> {
    this.last = run;
    const elapsedMs = Date.now() - this.startedAt;
    const after = this.afterCurrentMs();
    const etaMs = run.etaMs === null || after === null ? null : run.etaMs + after;
    const total = this.planned.length * this.loops;
    const byCount = (this.runsDone + run.fraction) / Math.max(1, total);
    const fraction = etaMs === null ? byCount : elapsedMs / Math.max(1, elapsedMs + etaMs);
    return { elapsedMs, fraction: Math.min(1, Math.max(0, fraction)), etaMs };
  }
}
