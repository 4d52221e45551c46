/**
 * Who may spend money through the service: studies create instances and volumes that bill, so
 * they are off unless the operator turns them on (`serve --studies`), under a token of their
 * own, a cap on each study's estimate and on the studies open at once, and lists of the regions,
 * instance types and volume types allowed. The service's AWS credentials are its own (the SDK's
 * standard chain), never anything a request carries.
 *
 * Plain data: `volbench serve` hands it to the service's process as a message.
 */

/** Where a member's bundle comes from, per architecture (x64, arm64): a file, or a key in the study bucket (the Lambda form). */
export interface StudyPackages {
  files?: Partial<Record<'x64' | 'arm64', string>>;
  keys?: Partial<Record<'x64' | 'arm64', string>>;
}

export interface StudyConfig {
  /** The bearer token of /v1/studies: not the run token. */
  token: string;
  /** The bucket a study lives in unless the request names another of `buckets`. */
  bucket: string;
  /** Other buckets a request may name. */
  buckets?: string[];
  /** The most a study's estimate may be, in USD. */
  maxCostUsd: number;
  /** Studies not yet done or failed at once. */
  maxConcurrent: number;
  /** Regions allowed; the first is the default. */
  regions: string[];
  /** Instance types allowed; none: any the catalog knows. */
  instanceTypes?: string[];
  /** Volume types allowed; none: any of the catalog's AWS types. */
  volumeTypes?: string[];
  packages: StudyPackages;
  /** How the studies are advanced: the service's own loop, or a schedule's calls (Lambda: `tick()`). */
  driver: 'loop' | 'schedule';
  /** Where the service lists its studies: its SQLite store, or objects in the bucket (Lambda has no store). */
  index: 'store' | 'bucket';
  /** The driver loop's longest wait between calls of a study, in ms (default 5000; 10000 while members run). */
  pollMs?: number;
  runningPollMs?: number;
  /** The lease's length, in seconds (default 60). */
  leaseSec?: number;
}

export const STUDY_DEFAULTS = {
  maxCostUsd: 20,
  maxConcurrent: 2,
  instance: 'm6i.large',
} as const;
