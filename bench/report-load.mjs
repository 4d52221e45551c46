#!/usr/bin/env node
// What heavy reports do to the rest of the service: /v1/healthz latency and the server's peak
// memory while the report of a stored 64-job, 600 s run (tests/fixtures/publish) is asked for.
//
//   node bench/report-load.mjs [one|ids50|same50|distinct] [-- serve flags...]
//
//   one       one HTML report of the run
//   ids50     one request naming the run fifty times (?run=ID&run=ID...)
//   same50    fifty requests for the run's HTML report at once
//   distinct  fifty requests at once over three copies of the run: one or two runs each, every
//             format in turn (renders that cannot share, so the threads and the queue fill)
//
// A `volbench serve` child (dist/, its store holding three copies of the run) answers; a thread
// of this process GETs /v1/healthz one request at a time, 10 ms apart, first idle (100
// requests), then for as long as the reports take. Prints the idle p99, the p99 and the longest
// wait during, the seconds the reports took, their statuses and the server's peak RSS (VmHWM).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { brotliDecompressSync } from 'node:zlib';

import { REPO, percentile, spawnServe } from './lib.mjs';

const MODES = ['one', 'ids50', 'same50', 'distinct'];
const mode = process.argv[2] ?? 'same50';
if (!MODES.includes(mode)) throw new Error(`usage: report-load.mjs [${MODES.join('|')}] [-- serve flags]`);
const serveFlags = process.argv.slice(3).filter((a) => a !== '--');

const { openDatabase } = await import(join(REPO, 'dist', 'server', 'store', 'database.js'));
const { RunStore } = await import(join(REPO, 'dist', 'server', 'store', 'runs.js'));

const dataDir = mkdtempSync(join('/dev/shm', 'volbench-report-load-data-'));
const root = mkdtempSync(join('/dev/shm', 'volbench-report-load-root-'));
const result = brotliDecompressSync(readFileSync(join(REPO, 'tests', 'fixtures', 'publish', 'jobs64-null-600s.json.br'))).toString();

/** Three finished runs holding the fixture, stored before the service starts. */
function storeRuns() {
  const db = openDatabase(dataDir);
  const store = new RunStore(db, { keepRuns: 100, dataDir, logError: (err) => { throw err; } });
  const ids = ['r0', 'r1', 'r2'];
  for (const id of ids) {
    const now = Date.now();
    store.insert({ id, spec: { jobs: [{ name: 'stored' }] }, jobFile: null, suite: null, analysis: null, asserts: [], volume: null,
      defaultRoot: null, roots: [], queueKeys: [], createdAt: now }, {});
    store.markRunning(id, now, {});
    store.finish(id, { status: 'finished', finishedAt: now, error: null, result, assertions: [], gate: null }, {});
  }
  store.close();
  db.close();
  return ids;
}

const PROBE = `
const http = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let stop = false;
parentPort.on('message', () => { stop = true; });
const once = () => new Promise((resolve) => {
  const t0 = performance.now();
  http.get(workerData.url, { agent }, (res) => { res.resume(); res.on('end', () => resolve(performance.now() - t0)); })
    .on('error', () => resolve(performance.now() - t0));
});
(async () => {
  const samples = [];
  while (!stop && (workerData.count === 0 || samples.length < workerData.count)) {
    samples.push(await once());
    await new Promise((r) => setTimeout(r, 10));
  }
  agent.destroy();
  parentPort.postMessage(samples);
})();`;

function probe(url, count) {
  const worker = new Worker(PROBE, { eval: true, workerData: { url, count } });
  const done = new Promise((resolve) => worker.once('message', resolve));
  return async () => {
    if (count === 0) worker.postMessage('stop');
    const samples = await done;
    await worker.terminate();
    return samples.sort((a, b) => a - b);
  };
}

/** A GET whose body is read and dropped: the client spends no CPU on megabytes of reports. */
function statusOf(url, agent, headers) {
  return new Promise((resolve, reject) => {
    http.get(url, { agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
      res.on('error', reject);
    }).on('error', reject);
  });
}

function peakRssMib(pid) {
  return Math.round(Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024);
}

function paths([a, b, c]) {
  const formats = ['html', 'md', 'csv', 'json'];
  return {
    one: [`/v1/runs/${a}/report?format=html`],
    ids50: [`/v1/report?${Array(50).fill(`run=${a}`).join('&')}&format=html`],
    same50: Array(50).fill(`/v1/runs/${a}/report?format=html`),
    distinct: Array.from({ length: 50 }, (_, i) => {
      const runs = [[a], [b], [c], [a, b], [b, c], [a, c]][i % 6];
      return `/v1/report?${runs.map((r) => `run=${r}`).join('&')}&format=${formats[i % 4]}`;
    }),
  }[mode];
}

const token = `report-load-${process.pid}`;
const ids = storeRuns();
const serve = await spawnServe(['--data-dir', dataDir, '--target-root', root, ...serveFlags], token);
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
try {
  const idle = await probe(`${serve.url}/v1/healthz`, 100)();
  const rssBefore = peakRssMib(serve.pid);
  const during = probe(`${serve.url}/v1/healthz`, 0);
  const started = performance.now();
  const statuses = {};
  await Promise.all(paths(ids).map(async (path) => {
    const status = await statusOf(`${serve.url}${path}`, agent, { authorization: `Bearer ${token}` });
    statuses[status] = (statuses[status] ?? 0) + 1;
  }));
  const seconds = (performance.now() - started) / 1000;
  const samples = await during();
  console.log(JSON.stringify({
    mode, idleP99Ms: +percentile(idle, 99).toFixed(1), duringP99Ms: +percentile(samples, 99).toFixed(1),
    longestWaitMs: Math.round(samples[samples.length - 1]), probes: samples.length, seconds: +seconds.toFixed(1),
    statuses, rssBeforeMiB: rssBefore, peakRssMiB: peakRssMib(serve.pid),
  }));
} finally {
  agent.destroy();
  serve.child.kill('SIGTERM');
  // A server whose event loop is drawing a report hears SIGTERM only when it is done.
  const stuck = setTimeout(() => serve.child.kill('SIGKILL'), 10_000);
  await serve.exited;
  clearTimeout(stuck);
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(root, { recursive: true, force: true });
}
