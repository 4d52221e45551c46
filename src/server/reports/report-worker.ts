/**
 * The report render thread (see report-renderer.ts). It reads results through a read-only
 * connection of its own and renders one task at a time; the service ends it when a render
 * runs past its deadline, and V8 ends it when its heap outgrows its limit. It runs at a lower
 * CPU priority than the event loop, so a render never competes with the service's answers.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';

import { loadECharts } from '../../publish/render-html.js';
import { renderTask, type ReportTask } from './report-task.js';
import { ResultReader } from '../store/result-reader.js';

export interface RenderRequest {
  id: number;
  task: ReportTask;
}

export type RenderReply =
  | { id: number; kind: 'started' }
  | { id: number; kind: 'done'; body: Uint8Array }
  | { id: number; kind: 'too-large'; bytes: number }
  | { id: number; kind: 'failed'; message: string };

/** Nice 10 for this thread alone: Linux's setpriority takes a thread id. */
function lowerThreadPriority(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, 10);
  } catch {
    // Without /proc the thread keeps the process's priority.
  }
}

const port = parentPort;
if (port === null) throw new Error('report-worker.js runs as a worker thread');
lowerThreadPriority();
// Loaded once, before the first task: no render's deadline pays for it.
loadECharts();
const reader = new ResultReader((workerData as { dataDir: string }).dataDir);

port.on('message', ({ id, task }: RenderRequest) => {
  port.postMessage({ id, kind: 'started' } satisfies RenderReply);
  renderTask(task, (runId) => reader.result(runId)).then(
    (outcome) => {
      if (outcome.kind === 'done') port.postMessage({ id, ...outcome } satisfies RenderReply, [outcome.body.buffer as ArrayBuffer]);
      else port.postMessage({ id, ...outcome } satisfies RenderReply);
    },
    (err: unknown) => port.postMessage({ id, kind: 'failed', message: err instanceof Error ? err.message : String(err) } satisfies RenderReply),
  );
});
