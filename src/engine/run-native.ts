/**
 * Runs one stonewall group of job instances in the native engine, with progress and an
 * AbortSignal. The event loop is never blocked: the engine works on its own threads.
 */
import type { NativeCreatedFile, NativeJobPlan, NativeJobResult, NativeProgress, NativeRunResult } from './native-types.js';
import { nativeAddon } from './addon.js';

export interface NativeRunOptions {
  onProgress?: (progress: NativeProgress[]) => void;
  /** The files the layout created, as soon as it has (before the jobs start). */
  onCreated?: (created: NativeCreatedFile[]) => void;
  signal?: AbortSignal;
  /** sysfs `stat` files the run reads once its files are laid out (disk_util's baseline). */
  statPaths?: string[];
  /** The plans' status reports (statusIntervalNs): per plan, its statistics as of the report, or null. */
  onStatus?: (results: Array<NativeJobResult | null>) => void;
}

export async function runNativeGroup(plans: NativeJobPlan[], options: NativeRunOptions = {}): Promise<NativeRunResult> {
  const addon = nativeAddon();
  const { onProgress, onCreated, onStatus, signal } = options;
  const { id, promise } = addon.runJobs(plans, (progress, created, status) => {
    if (status) {
      onStatus?.(status);
      return;
    }
    if (created.length > 0) onCreated?.(created);
    onProgress?.(progress);
  }, options.statPaths ?? []);
  if (!signal) return promise;
  const abort = (): void => addon.cancel(id);
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
  try {
    return await promise;
  } finally {
    signal.removeEventListener('abort', abort);
  }
}
