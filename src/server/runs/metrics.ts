/**
 * Prometheus metrics. Counts that the store or the queue already know (runs by status, queue
 * depth) are read when scraped, so they can never drift; durations and the last run's rates
 * are recorded as runs end. Each server has its own registry, so several can share a process.
 */
import { Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

import type { FioResult } from '../../fio-output/index.js';
import { RUN_STATUSES, type RunStatus } from '../../api/run.js';

export interface MetricsSources {
  runsByStatus: () => Map<RunStatus, number>;
  roots: () => string[];
  queuedFor: (root: string) => number;
}

const DIRECTIONS = ['read', 'write', 'trim'] as const;

export interface ReportStats {
  threads: number;
  rendering: number;
  waiting: number;
}

export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly duration: Histogram<'status'>;
  private readonly lastIops: Gauge<'target' | 'direction'>;
  private readonly lastBandwidth: Gauge<'target' | 'direction'>;

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    new Gauge({
      name: 'volbench_runs',
      help: 'Runs in the store by status',
      labelNames: ['status'],
      registers,
      collect() {
        const counts = sources.runsByStatus();
        for (const status of RUN_STATUSES) this.set({ status }, counts.get(status) ?? 0);
      },
    });
    new Gauge({
      name: 'volbench_queue_depth',
      help: 'Runs waiting for their device, per target root',
      labelNames: ['target'],
      registers,
      collect() {
        for (const root of sources.roots()) this.set({ target: root }, sources.queuedFor(root));
      },
    });
    this.duration = new Histogram({
      name: 'volbench_run_duration_seconds',
      help: 'Wall time of runs from start to end, by final status',
      labelNames: ['status'],
      buckets: [1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600],
      registers,
    });
    this.lastIops = new Gauge({
      name: 'volbench_last_run_iops',
      help: "IOPS of the last run that ended on a target, summed over its jobs, per direction",
      labelNames: ['target', 'direction'],
      registers,
    });
    this.lastBandwidth = new Gauge({
      name: 'volbench_last_run_bandwidth_bytes',
      help: 'Bandwidth in bytes/s of the last run that ended on a target, summed over its jobs, per direction',
      labelNames: ['target', 'direction'],
      registers,
    });
    // prom-client's default metrics already name what they are (process_cpu_seconds_total,
    // nodejs_heap_size_used_bytes): the prefix only says whose they are.
    collectDefaultMetrics({ register: this.registry, prefix: 'volbench_' });
  }

  /** The report renderer's threads and renders, read when scraped. */
  watchReports(stats: () => ReportStats): void {
    const registers = [this.registry];
    new Gauge({
      name: 'volbench_report_threads',
      help: 'Report render threads alive (rendering, idle, or ending)',
      registers,
      collect() {
        this.set(stats().threads);
      },
    });
    new Gauge({
      name: 'volbench_report_renders',
      help: 'Report renders by state: rendering on a thread, or waiting for one',
      labelNames: ['state'],
      registers,
      collect() {
        const { rendering, waiting } = stats();
        this.set({ state: 'rendering' }, rendering);
        this.set({ state: 'waiting' }, waiting);
      },
    });
  }

  /** The connections the service keeps (connections.ts): open now, and closed by its limits. */
  watchConnections(counts: { open: () => number; dropped: () => number; cap: number }): void {
    const registers = [this.registry];
    new Gauge({
      name: 'volbench_connections',
      help: `Client connections open (at most ${counts.cap}; past it the oldest with no request in flight makes room)`,
      registers,
      collect() {
        this.set(counts.open());
      },
    });
    new Gauge({
      name: 'volbench_connections_dropped',
      help: 'Client connections closed by the connection limits: silent too long, made room for a newer one, or refused at the cap',
      registers,
      collect() {
        this.set(counts.dropped());
      },
    });
  }

  /** `rootOf` maps a job's target path to the root it is under, for the per-target gauges. */
  recordRun(status: RunStatus, seconds: number, result: FioResult | null, rootOf: (path: string) => string | null): void {
    this.duration.observe({ status }, seconds);
    if (result === null) return;
    const sums = new Map<string, Record<(typeof DIRECTIONS)[number], { iops: number; bw: number }>>();
    result.jobs.forEach((job, i) => {
      const target = result.volbench.targets[result.volbench.jobs[i]?.target ?? -1];
      const root = target ? rootOf(target.path) : null;
      if (root === null) return;
      const sum = sums.get(root) ?? { read: { iops: 0, bw: 0 }, write: { iops: 0, bw: 0 }, trim: { iops: 0, bw: 0 } };
      for (const direction of DIRECTIONS) {
        sum[direction].iops += job[direction]?.iops ?? 0;
        sum[direction].bw += job[direction]?.bw_bytes ?? 0;
      }
      sums.set(root, sum);
    });
    for (const [target, sum] of sums) {
      for (const direction of DIRECTIONS) {
        this.lastIops.set({ target, direction }, sum[direction].iops);
        this.lastBandwidth.set({ target, direction }, sum[direction].bw);
      }
    }
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
