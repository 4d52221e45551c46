/**
 * progress.json, kept current: what the member is doing (its step), which test of how many, the
 * loop, the whole workload's share done and the seconds it expects are left, and the last
 * second's IOPS and p99 completion latency. Built from the library's own callbacks (a suite's
 * test events, the engine's progress about once a second) and written every few seconds, at once
 * when the step or the test changes. One write at a time, the newest waiting: a slow S3 never
 * holds the run back, and a failed write only costs a line in the log.
 */
import type { MemberProgress, MemberStep } from '../../api/study-objects.js';
import type { RunProgress } from '../../run/progress.js';
import type { SuiteTestEvent } from '../../suites/index.js';

export interface ProgressOptions {
  label: string;
  /** Writes the document (MemberObjects.put('progress', ...)). */
  write: (body: string) => Promise<unknown>;
  /** At most one write per this many ms while nothing but the rates moved (default 5000). */
  everyMs?: number;
  log: (line: string) => void;
  now?: () => number;
}

interface Position {
  test?: string;
  testIndex?: number;
  testsTotal?: number;
  loop?: number;
  loops?: number;
}

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

export class ProgressReporter {
  private step: MemberStep = 'booting';
  private position: Position = {};
  private rates: Pick<MemberProgress, 'percent' | 'eta_s' | 'iops' | 'clat_p99_us'> = {};
  private stepStartedAt: number;
  private lastWriteAt = 0;
  private writing: Promise<void> | undefined;
  private pending = false;
  private failures = 0;
  private readonly everyMs: number;
  private readonly now: () => number;

  constructor(private readonly opts: ProgressOptions) {
    this.everyMs = opts.everyMs ?? 5000;
    this.now = opts.now ?? Date.now;
    this.stepStartedAt = this.now();
  }

  /** A new step: written at once. */
  enter(step: MemberStep): void {
    this.step = step;
    this.stepStartedAt = this.now();
    this.position = {};
    this.rates = step === 'done' ? { percent: 100, eta_s: 0 } : {};
    this.schedule(true);
  }

  /** A suite's test (or loop) starts: written at once. */
  test(e: SuiteTestEvent): void {
    this.position = { test: e.jobs.join(', '), testIndex: e.test, testsTotal: e.tests, loop: e.loop, loops: e.loops };
    this.schedule(true);
  }

  /** A job file's stage starts (its job names): written at once. */
  stage(index: number, total: number, names: string[]): void {
    this.position = { test: names.join(', '), testIndex: index + 1, testsTotal: total };
    this.schedule(true);
  }

  /** The engine's progress (about once a second): written when the last write is old enough. */
  progress(p: RunProgress): void {
    const share = this.share(p);
    const elapsedS = (this.now() - this.stepStartedAt) / 1000;
    const p99ns = Math.max(p.read.clat_p99_ns, p.write.clat_p99_ns, p.trim.clat_p99_ns);
    this.rates = {
      percent: round(Math.min(100, Math.max(0, share * 100))),
      ...(share > 0.01 ? { eta_s: Math.round((elapsedS * (1 - share)) / share) } : {}),
      iops: Math.round(p.read.iops + p.write.iops + p.trim.iops),
      ...(p99ns > 0 ? { clat_p99_us: round(p99ns / 1000) } : {}),
    };
    this.schedule(false);
  }

  /** Waits for the writes under way and the one waiting. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  /** The document as it stands. */
  document(): MemberProgress {
    const pos = this.position;
    return {
      label: this.opts.label,
      at: new Date(this.now()).toISOString(),
      step: this.step,
      ...(pos.test ? { test: pos.test.slice(0, 200) } : {}),
      ...(pos.testIndex ? { test_index: pos.testIndex } : {}),
      ...(pos.testsTotal ? { tests_total: pos.testsTotal } : {}),
      ...(pos.loop ? { loop: pos.loop } : {}),
      ...(pos.loops ? { loops: pos.loops } : {}),
      ...this.rates,
    };
  }

  /** The whole step's share done: a suite's tests and loops, a job file's stages, each's fraction. */
  private share(p: RunProgress): number {
    const pos = this.position;
    if (pos.testIndex && pos.testsTotal) {
      const loops = pos.loops ?? 1;
      const runsDone = (pos.testIndex - 1) * loops + ((pos.loop ?? 1) - 1);
      return (runsDone + p.fraction) / (pos.testsTotal * loops);
    }
    return p.stages > 0 ? (p.stage + p.fraction) / p.stages : p.fraction;
  }

  private schedule(now: boolean): void {
    if (!now && this.now() - this.lastWriteAt < this.everyMs) return;
    this.pending = true;
    if (!this.writing) this.writing = this.drain();
  }

  private async drain(): Promise<void> {
    while (this.pending) {
      this.pending = false;
      this.lastWriteAt = this.now();
      try {
        await this.opts.write(`${JSON.stringify(this.document())}\n`);
        this.failures = 0;
      } catch (err) {
        // Said once per run of failures: the next write may go through.
        if (this.failures++ === 0) this.opts.log(`progress.json not written: ${(err as Error).message}`);
      }
    }
    this.writing = undefined;
  }
}
