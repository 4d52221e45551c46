/**
 * A latency probe on a thread of its own: GETs one URL one request at a time, a pause between
 * them, and records each answer's wall time. Its own event loop keeps the test's other work
 * (reading megabytes of reports) out of what it measures.
 */
import { Worker } from 'node:worker_threads';

const PROBE = `
const http = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let stop = false;
parentPort.on('message', () => { stop = true; });
function once() {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const req = http.get(workerData.url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ ms: performance.now() - t0, status: res.statusCode }));
    });
    req.on('error', (err) => resolve({ ms: performance.now() - t0, status: 0, error: err.message }));
  });
}
(async () => {
  const samples = [];
  while (!stop && (workerData.count === 0 || samples.length < workerData.count)) {
    samples.push(await once());
    await new Promise((r) => setTimeout(r, workerData.pauseMs));
  }
  agent.destroy();
  parentPort.postMessage(samples);
})();
`;

export interface Sample {
  ms: number;
  status: number;
  error?: string;
}

export interface Probe {
  /** Stops after the request in flight; the samples taken. */
  stop(): Promise<Sample[]>;
}

/** Probes until stop(), or `count` requests when count > 0 (then stop() waits for them). */
export function startProbe(url: string, pauseMs: number, count = 0): Probe {
  const worker = new Worker(PROBE, { eval: true, workerData: { url, pauseMs, count } });
  const done = new Promise<Sample[]>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    async stop() {
      if (count === 0) worker.postMessage('stop');
      const samples = await done;
      await worker.terminate();
      return samples;
    },
  };
}

/** The p-th percentile (0-100) of `values`, nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
