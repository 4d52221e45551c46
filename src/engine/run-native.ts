/**
 * Runs one stonewall group of job instances in the native engine, with progress and an
 * AbortSignal. The event loop is never blocked: the engine works on its own threads.
 */
import type { NativeCreatedFile, NativeJobPlan, NativeJobResult, NativeProgress } from './native-types.js';
import { nativeAddon } from './addon.js';

export interface NativeRunOptions {
  onProgress?: (progress: NativeProgress[]) => void;
  /** The files the layout created, as soon as it has (before the jobs start). */
  onCreated?: (created: NativeCreatedFile[]) => void;
  signal?: AbortSignal;
}

export async function runNativeGroup(plans: NativeJobPlan[], options: NativeRunOptions = {}): Promise<NativeJobResult[]> {
  const addon = nativeAddon();
  const { onProgress, onCreated, signal } = options;
  const { id, promise } = addon.runJobs(plans, (progress, created) => {
    if (created.length > 0) onCreated?.(created);
    onProgress?.(progress);
  });
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
