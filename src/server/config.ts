/**
 * What an operator decides when starting the service, with the defaults `volbench serve` and the
 * tests share. Limits are per run, in the units their names say.
 */
import { join } from 'node:path';
import { homedir, totalmem } from 'node:os';

import type { StudyConfig } from './studies/study-config.js';


/** What the service serves over TLS: PEM text, as Node's tls.createServer takes it. */
export interface TlsIdentity {
  cert: string;
  key: string;
}

/** The report renderer's budgets (reports/report-renderer.ts), in its units. */
export interface ReportBudgets {
  /** Longest one render may take, in ms. */
  timeoutMs: number;
  /** Largest answer, in bytes. */
  maxBytes: number;
  /** Heap of one render thread (V8's old generation), in bytes. */
  memoryBytes: number;
  /** Renders at once, each on a thread of its own. */
  concurrency: number;
  /** Renders that may wait for a thread; one more is answered 429. */
  queueLimit: number;
}

export interface ServerConfig {
  /** Where the SQLite database (and a generated token) live. */
  dataDir: string;
  /** The bearer token every route but /v1/healthz needs. */
  token: string;
  /** Directories or block devices runs may use; the first is the default for jobs without a path. */
  targetRoots: string[];
  /** Block devices among targetRoots that runs may write to. */
  allowBlockWrite?: string[];
  /** Runs on different devices that may run at once. */
  maxConcurrent?: number;
  /** Runs that may wait in the queue; one more is answered 429. */
  queueLimit?: number;
  /** Longest a run may take (its stages' startdelay + ramp_time + runtime, times a suite's loops), in seconds. */
  maxRuntimeSec?: number;
  /** Most bytes one run's jobs may address (sum of their regions), 0 for no limit. */
  maxSizeBytes?: number;
  /** Most job instances (threads) in one run. */
  maxInstances?: number;
  /**
   * Most memory one run's engine may take (I/O buffers: bs × iodepth × numjobs), 0 for no limit;
   * also the bound on the runs going at once together with what stuck jobs still hold.
   */
  maxMemoryBytes?: number;
  /**
   * Most threads the process leaves stuck in calls that never returned (jobs given up on, probes
   * past their deadline); past it no job is given up on and no run is taken. Per process.
   */
  maxStuckThreads?: number;
  /** Finished runs kept in the store; older ones are deleted. */
  keepRuns?: number;
  /** Largest request body. */
  bodyLimitBytes?: number;
  /**
   * Client connections kept at once; past it a new one takes the place of the oldest with no
   * request in flight (connections.ts). Default: the descriptor limit less a quarter of it (at
   * most 1,024 less), for the service's own files.
   */
  maxConnections?: number;
  /** How long a connection may stay open without sending a byte, in ms (default 10 s). */
  silentTimeoutMs?: number;
  /** Longest ?wait a request may ask for, in seconds. */
  maxWaitSec?: number;
  /** Every POST waits for its run (as ?wait does): for hosts that freeze between requests (Lambda). */
  waitForEveryRun?: boolean;
  /** Longest one report may take to render, in seconds (fractions allowed). */
  reportTimeoutSec?: number;
  /** Largest report the service answers with, in bytes. */
  reportMaxBytes?: number;
  /** Memory (the V8 heap of its thread) one report render may use, in bytes. */
  reportMemoryBytes?: number;
  /** Reports rendered at once, each on a thread of its own. */
  reportConcurrency?: number;
  /** Reports that may wait for a thread; one more is answered 429. */
  reportQueueLimit?: number;
  /** Serve HTTPS with this certificate and key (PEM text; `readTlsFiles` reads them from files); plain HTTP without. */
  tls?: TlsIdentity;
  /** Whether and what to log (pino JSON lines, stdout unless a stream is given). */
  logger?: boolean | LogOptions;
  /** Studies (/v1/studies): off without it (`serve --studies`). */
  studies?: StudyConfig;
}

export interface LogOptions {
  level: string;
  /** Where log lines go instead of stdout (the tests read them). */
  stream?: { write(line: string): unknown };
}

export const DEFAULTS = {
  maxConcurrent: 4,
  queueLimit: 32,
  maxRuntimeSec: 600,
  maxSizeBytes: 64 * 1024 ** 3,
  maxInstances: 64,
  maxStuckThreads: 64,
  /** A quarter of the machine's memory. */
  maxMemoryBytes: Math.floor(totalmem() / 4),
  keepRuns: 1000,
  bodyLimitBytes: 1024 * 1024,
  maxWaitSec: 3600,
  reportTimeoutSec: 30,
  reportMaxBytes: 20 * 1024 * 1024,
  reportMemoryBytes: 256 * 1024 * 1024,
  reportConcurrency: 2,
  reportQueueLimit: 8,
} as const;

export type Limits = Required<Pick<ServerConfig,
  'maxConcurrent' | 'queueLimit' | 'maxRuntimeSec' | 'maxSizeBytes' | 'maxInstances' | 'maxMemoryBytes' | 'maxStuckThreads' | 'keepRuns' | 'bodyLimitBytes' | 'maxWaitSec'
  | 'reportTimeoutSec' | 'reportMaxBytes' | 'reportMemoryBytes' | 'reportConcurrency' | 'reportQueueLimit'>>;

export function limitsOf(config: ServerConfig): Limits {
  return {
    maxConcurrent: config.maxConcurrent ?? DEFAULTS.maxConcurrent,
    queueLimit: config.queueLimit ?? DEFAULTS.queueLimit,
    maxRuntimeSec: config.maxRuntimeSec ?? DEFAULTS.maxRuntimeSec,
    maxSizeBytes: config.maxSizeBytes ?? DEFAULTS.maxSizeBytes,
    maxInstances: config.maxInstances ?? DEFAULTS.maxInstances,
    maxMemoryBytes: config.maxMemoryBytes ?? DEFAULTS.maxMemoryBytes,
    maxStuckThreads: config.maxStuckThreads ?? DEFAULTS.maxStuckThreads,
    keepRuns: config.keepRuns ?? DEFAULTS.keepRuns,
    bodyLimitBytes: config.bodyLimitBytes ?? DEFAULTS.bodyLimitBytes,
    maxWaitSec: config.maxWaitSec ?? DEFAULTS.maxWaitSec,
    reportTimeoutSec: config.reportTimeoutSec ?? DEFAULTS.reportTimeoutSec,
    reportMaxBytes: config.reportMaxBytes ?? DEFAULTS.reportMaxBytes,
    reportMemoryBytes: config.reportMemoryBytes ?? DEFAULTS.reportMemoryBytes,
    reportConcurrency: config.reportConcurrency ?? DEFAULTS.reportConcurrency,
    reportQueueLimit: config.reportQueueLimit ?? DEFAULTS.reportQueueLimit,
  };
}

/** The report renderer's budgets in its units. */
export function reportBudgetsOf(limits: Limits): ReportBudgets {
  return {
    timeoutMs: Math.round(limits.reportTimeoutSec * 1000),
    maxBytes: limits.reportMaxBytes,
    memoryBytes: limits.reportMemoryBytes,
    concurrency: limits.reportConcurrency,
    queueLimit: limits.reportQueueLimit,
  };
}

/** `$XDG_DATA_HOME/volbench`, i.e. ~/.local/share/volbench when XDG_DATA_HOME is unset. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_DATA_HOME && env.XDG_DATA_HOME.startsWith('/') ? env.XDG_DATA_HOME : join(homedir(), '.local', 'share');
  return join(base, 'volbench');
}
