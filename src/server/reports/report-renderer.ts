/**
 * Reports rendered off the event loop: the price/performance reports and a run's result in
 * fio's formats. An HTML report of a long run of many jobs draws hundreds of charts, and a
 * stored result of one is megabytes of JSON to parse and print; on the event loop either held
 * every other request for as long (17 s for one 64-job run's HTML). Each render runs on a
 * worker thread of its own, within budgets the operator can change:
 * - a deadline: the thread is terminated when a render runs past it;
 * - a heap: the thread's V8 heap limit (resourceLimits); a render that outgrows it ends the
 *   thread, and every byte it held goes with it. The budget is the old generation; the young
 *   one is held to YOUNG_GENERATION_MB (V8's own size for it let a thread take twice its
 *   budget and more), and the thread's code and state take some more: measured, a render
 *   thread stays within the budget + REPORT_THREAD_OVERHEAD_BYTES;
 * - an answer size: a larger price/performance report is not sent (a result always is);
 * - threads: at most `concurrency` renders at once, at most `queueLimit` waiting for one; one
 *   more is refused at once (429), so many requests cannot take the memory between them.
 * A render over a budget answers 422 `report-too-large` naming it. Requests for the same report
 * (format, runs and prices) while one is waiting or rendering share it; a render whose every
 * requester has gone is dropped, or its thread ended. Idle threads end after IDLE_MS.
 */
import type { Worker } from 'node:worker_threads';

import type { ReportBudgets } from '../config.js';
import type { ReportStats } from '../runs/metrics.js';
import { reportQueueFull, reportTooLarge, shuttingDown, type ReportBudgetName } from '../problems/service-problems.js';
import { renderTask, type InputsTask, type PublishTask, type ReportTask, type ResultTask } from './report-task.js';
import type { RenderReply, RenderRequest } from './report-worker.js';
import { startModuleThread } from './worker-thread.js';


/** What a route asks for; the renderer adds the answer budget. */
export type ReportRequest = PublishTask | InputsTask | ResultTask;

/**
 * The answer budget: a price/performance report's is --report-max-size; a run's own result in
 * fio's formats is its data, bounded by the run's limits (instances, runtime), and always sent.
 */
function maxBytesOf(request: ReportRequest, budgets: ReportBudgets): number {
  return request.kind === 'result' ? Number.MAX_SAFE_INTEGER : budgets.maxBytes;
}

/** Requests that ask for the same answer share one render. */
function keyOf(task: ReportRequest): string {
  if (task.kind === 'inputs') return JSON.stringify(['inputs', task.format, task.key, task.pricesFile, task.rankBy, task.units]);
  return task.kind === 'publish'
    ? JSON.stringify(['publish', task.format, task.runs.map((r) => r.id), task.pricesFile])
    : JSON.stringify(['result', task.format, task.run.id]);
}

const MiB = 1024 * 1024;
/** The young generation of a render thread's heap, in MiB: V8's default for it is far larger. */
const YOUNG_GENERATION_MB = 16;
/**
 * What a render thread takes beyond its budget, at most, as measured (bench/report-load.mjs
 * distinct, --report-memory 64m to 256m, one or two threads): its young generation, code and
 * Node's own state, and its share of the answers on their way out.
 */
export const REPORT_THREAD_OVERHEAD_BYTES = 80 * MiB;
/** An idle thread keeps ECharts loaded for the next render this long, then ends. */
const IDLE_MS = 30_000;
/** A new thread loads its modules before its first render's deadline starts: bounded too. */
const STARTUP_MS = 60_000;
const QUEUE_RETRY_AFTER_SEC = 5;
/**
 * Results up to this size (all the report's runs together) make a report other than HTML that
 * is drawn in a few milliseconds: at once, on the event loop, as a thread's round trip would
 * take longer. HTML always goes to a thread (ECharts draws each chart for tens of ms).
 */
export const INLINE_MAX_BYTES = 256 * 1024;

interface Waiter {
  resolve: (body: Buffer) => void;
  reject: (err: unknown) => void;
}

interface Job {
  key: string;
  task: ReportTask;
  waiters: Set<Waiter>;
  thread: RenderThread | null;
}

interface RenderThread {
  worker: Worker;
  job: Job | null;
  /** Why the service ended the thread (its deadline), for the job's answer. */
  ended: ReportBudgetName | 'abandoned' | null;
  timer: NodeJS.Timeout | null;
  exited: Promise<void>;
}

let nextRequestId = 1;

export class ReportRenderer {
  private readonly threads = new Set<RenderThread>();
  private readonly waiting: Job[] = [];
  private readonly jobs = new Map<string, Job>();
  private closed = false;

  /** `readResult` reads a run's result on the event loop, for the small reports drawn there. */
  constructor(private readonly dataDir: string, readonly budgets: ReportBudgets, private readonly readResult: (id: string) => string | null) {}

  /**
   * The report as UTF-8 bytes, or a problem: over a budget (422), the queue full (429).
   * `storedBytes` is the size of the results it reads: a small one that is not HTML is drawn at
   * once, on the event loop (see INLINE_MAX_BYTES).
   */
  async render(request: ReportRequest, storedBytes: number, signal?: AbortSignal): Promise<Buffer> {
    if (this.closed) throw shuttingDown();
    const task: ReportTask = { ...request, maxBytes: maxBytesOf(request, this.budgets) };
    if (storedBytes <= INLINE_MAX_BYTES && !(task.kind !== 'result' && task.format === 'html')) return this.inline(task);
    return this.onThread(task, signal);
  }

  private async inline(task: ReportTask): Promise<Buffer> {
    const outcome = await renderTask(task, this.readResult);
    if (outcome.kind === 'too-large') throw this.overBudget('size', outcome.bytes);
    return Buffer.from(outcome.body.buffer, outcome.body.byteOffset, outcome.body.byteLength);
  }

  private onThread(task: ReportTask, signal: AbortSignal | undefined): Promise<Buffer> {
    const key = keyOf(task);
    let job = this.jobs.get(key);
    if (job === undefined) {
      if (!this.canStartNow() && this.waiting.length >= this.budgets.queueLimit) {
        return Promise.reject(reportQueueFull(this.budgets.queueLimit, QUEUE_RETRY_AFTER_SEC));
      }
      job = { key, task, waiters: new Set(), thread: null };
      this.jobs.set(key, job);
      this.waiting.push(job);
    }
    const promise = this.wait(job, signal);
    this.pump();
    return promise;
  }

  /** Ends every thread; renders waiting or running are answered 503. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of [...this.jobs.values()]) this.settle(job, (w) => w.reject(shuttingDown()));
    this.waiting.length = 0;
    const exits = [...this.threads].map((t) => {
      t.ended = 'abandoned';
      void t.worker.terminate();
      return t.exited;
    });
    await Promise.all(exits);
  }

  /** Threads alive, renders on them and renders waiting for one (the metrics read them). */
  stats(): ReportStats {
    let rendering = 0;
    for (const t of this.threads) if (t.job !== null) rendering++;
    return { threads: this.threads.size, rendering, waiting: this.waiting.length };
  }

  private wait(job: Job, signal: AbortSignal | undefined): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject };
      job.waiters.add(waiter);
      signal?.addEventListener('abort', () => {
        if (!job.waiters.delete(waiter)) return;
        reject(signal.reason);
        if (job.waiters.size === 0) this.abandon(job);
      }, { once: true });
    });
  }

  /** No one waits for `job` any more: out of the queue, or its thread ended. */
  private abandon(job: Job): void {
    this.jobs.delete(job.key);
    const at = this.waiting.indexOf(job);
    if (at >= 0) this.waiting.splice(at, 1);
    if (job.thread !== null) this.endThread(job.thread, 'abandoned');
  }

  private canStartNow(): boolean {
    return this.idleThread() !== undefined || this.threads.size < this.budgets.concurrency;
  }

  private idleThread(): RenderThread | undefined {
    for (const t of this.threads) if (t.job === null && t.ended === null) return t;
    return undefined;
  }

  private pump(): void {
    while (this.waiting.length > 0 && !this.closed) {
      const thread = this.idleThread() ?? (this.threads.size < this.budgets.concurrency ? this.startThread() : undefined);
      if (thread === undefined) return;
      this.run(thread, this.waiting.shift()!);
    }
  }

  private run(thread: RenderThread, job: Job): void {
    if (thread.timer !== null) clearTimeout(thread.timer);
    thread.job = job;
    job.thread = thread;
    // Until the thread says it started: a new one is still loading its modules.
    thread.timer = setTimeout(() => this.endThread(thread, 'deadline'), STARTUP_MS + this.budgets.timeoutMs);
    const request: RenderRequest = { id: nextRequestId++, task: job.task };
    thread.worker.postMessage(request);
  }

  private startThread(): RenderThread {
    const worker = startModuleThread('report-worker', import.meta.url, {
      workerData: { dataDir: this.dataDir },
      resourceLimits: {
        maxOldGenerationSizeMb: Math.max(16, Math.floor(this.budgets.memoryBytes / MiB)),
        maxYoungGenerationSizeMb: YOUNG_GENERATION_MB,
      },
      // The thread prices with the file the service uses, handed over with each task.
      env: Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'VOLBENCH_PRICES')),
    });
    let exited!: () => void;
    const thread: RenderThread = { worker, job: null, ended: null, timer: null, exited: new Promise((r) => { exited = r; }) };
    this.threads.add(thread);
    worker.on('message', (reply: RenderReply) => this.onReply(thread, reply));
    worker.on('error', (err: Error & { code?: string }) => {
      // The heap limit: V8 ends the thread, and the render is over its memory budget.
      if (thread.ended === null) thread.ended = err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'memory' : null;
      if (thread.ended === null && thread.job !== null) this.settle(thread.job, (w) => w.reject(err));
    });
    worker.on('exit', () => {
      if (thread.timer !== null) clearTimeout(thread.timer);
      this.threads.delete(thread);
      const { job, ended } = thread;
      thread.job = null;
      if (job !== null) {
        this.settle(job, (w) => w.reject(ended === 'deadline' || ended === 'memory'
          ? this.overBudget(ended)
          : new Error('the report render thread ended before its answer')));
      }
      exited();
      this.pump();
    });
    return thread;
  }

  private onReply(thread: RenderThread, reply: RenderReply): void {
    const job = thread.job;
    if (job === null) return;
    if (reply.kind === 'started') {
      if (thread.timer !== null) clearTimeout(thread.timer);
      thread.timer = setTimeout(() => this.endThread(thread, 'deadline'), this.budgets.timeoutMs);
      return;
    }
    if (thread.timer !== null) clearTimeout(thread.timer);
    thread.job = null;
    if (reply.kind === 'done') {
      const body = Buffer.from(reply.body.buffer, reply.body.byteOffset, reply.body.byteLength);
      this.settle(job, (w) => w.resolve(body));
    } else if (reply.kind === 'too-large') {
      this.settle(job, (w) => w.reject(this.overBudget('size', reply.bytes)));
    } else {
      this.settle(job, (w) => w.reject(new Error(`the report could not be rendered: ${reply.message}`)));
    }
    thread.timer = setTimeout(() => this.endThread(thread, 'abandoned'), IDLE_MS);
    thread.timer.unref();
    this.pump();
  }

  private endThread(thread: RenderThread, why: ReportBudgetName | 'abandoned'): void {
    if (thread.ended !== null) return;
    thread.ended = why;
    void thread.worker.terminate();
  }

  private settle(job: Job, answer: (w: Waiter) => void): void {
    if (this.jobs.get(job.key) === job) this.jobs.delete(job.key);
    job.thread = null;
    for (const w of job.waiters) answer(w);
    job.waiters.clear();
  }

  private overBudget(budget: ReportBudgetName, bytes?: number): Error {
    return reportTooLarge(budget, this.budgets, bytes);
  }
}
