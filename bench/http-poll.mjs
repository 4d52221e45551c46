#!/usr/bin/env node
// The HTTP service's overhead, measured (a script, not a test):
//
//   node bench/http-poll.mjs [--quick] [--rounds N] [--runtime S] [--pollers N] [--interval-ms MS] [--directory DIR]
//
// While a 4k random read (QD32, direct) runs through `volbench serve`, N clients (default 50)
// poll GET /v1/runs/{id}, each every --interval-ms (default 100 ms, as a dashboard or pipeline
// would; 0 polls back to back, a stress test that measures the machine's request rate more than
// the service); the script reports that route's latency percentiles. The same job also runs
// through the library alone (runJobs in a fresh process) and through the service with nobody
// polling. The job runs on a real disk (/var/tmp by default), the service's store on /dev/shm.
// Rounds rotate the order of the three, each run in fresh processes, and the script
// prints medians: the p99 poll latency (aim: under 20 ms) and the IOPS through HTTP divided by
// the IOPS through the library (aim: at least 0.98).
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, release } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { httpCall, median, percentile, REPO as repo, spawnServe, threadCpuMs } from './lib.mjs';

function parseFlags(argv) {
  const opts = { rounds: 3, runtime: 30, pollers: 50, intervalMs: 100, directory: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') Object.assign(opts, { rounds: 1, runtime: 5 });
    else if (a === '--rounds') opts.rounds = Number(argv[++i]);
    else if (a === '--runtime') opts.runtime = Number(argv[++i]);
    else if (a === '--pollers') opts.pollers = Number(argv[++i]);
    else if (a === '--interval-ms') opts.intervalMs = Number(argv[++i]);
    else if (a === '--directory') opts.directory = argv[++i];
    else throw new Error(`unknown flag ${a}; flags: --quick, --rounds N, --runtime S, --pollers N, --interval-ms MS, --directory DIR`);
  }
  return opts;
}

function spec(directory, runtime) {
  return {
    global: { directory, size: '256m', direct: 1 },
    jobs: [{ name: 'randread-4k', rw: 'randread', bs: '4k', iodepth: 32, runtime: `${runtime}s`, time_based: 1 }],
  };
}

/** The job through the library alone, in a fresh process. */
function libraryIops(jobSpec) {
  const code = `import { runJobs } from ${JSON.stringify(join(repo, 'dist', 'index.js'))};
    const r = await runJobs(${JSON.stringify(jobSpec)});
    process.stdout.write(JSON.stringify({ iops: r.jobs[0].read.iops }));`;
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`library run failed: ${out.stderr}`);
  return JSON.parse(out.stdout).iops;
}

/** `volbench serve` in a fresh process on a fresh data directory; resolves with its URL. */
async function startServe(directory, token) {
  // The store lives apart from the device under test, as an operator would deploy it: SQLite's
  // writes queued behind the benchmark's I/O would stall the server and skew its latency.
  const dataDir = mkdtempSync(join('/dev/shm', 'volbench-bench-data-'));
  let serve;
  try {
    serve = await spawnServe(['--data-dir', dataDir, '--target-root', directory], token);
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const stop = async () => {
    serve.child.kill('SIGTERM');
    await serve.exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { url: serve.url, pid: serve.pid, stop };
}

async function api(url, token, path, init = {}) {
  const res = await fetch(`${url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
  const body = await res.json();
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** A keep-alive GET: its body as JSON. */
async function pollOnce(agent, url, token) {
  return JSON.parse((await httpCall(url, { agent, headers: { authorization: `Bearer ${token}` } })).text);
}

const ENDED = ['finished', 'failed', 'cancelled'];

/** One poller: GET the run every intervalMs (back to back at 0) until it has ended, timing each. */
async function poll(agent, url, token, intervalMs, latencies, state) {
  // Spread the pollers' first requests over one interval, as independent clients would be.
  await new Promise((r) => setTimeout(r, Math.random() * intervalMs));
  while (!state.ended) {
    const t0 = performance.now();
    const run = await pollOnce(agent, url, token);
    const ms = performance.now() - t0;
    if (run.status === 'running') latencies.push(ms);
    if (ENDED.includes(run.status)) state.ended = true;
    else if (intervalMs > 0) await new Promise((r) => setTimeout(r, Math.max(0, intervalMs - ms)));
  }
}

/** The job through the service, with `pollers` clients polling it; returns IOPS and latencies. */
async function httpRun(jobSpec, directory, pollers, intervalMs) {
  const token = `bench-${process.pid}`;
  const serve = await startServe(directory, token);
  const agent = new http.Agent({ keepAlive: true, maxSockets: Math.max(1, pollers) });
  try {
    const submitted = await api(serve.url, token, '/v1/runs', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(jobSpec),
    });
    const runUrl = `${serve.url}/v1/runs/${submitted.id}`;
    const latencies = [];
    const state = { ended: false };
    const clients = Math.max(1, pollers);
    // What the polling costs: the service's event-loop thread and this (client) process.
    const serverCpu0 = threadCpuMs(serve.pid);
    const clientCpu0 = process.cpuUsage();
    // Without pollers, one client checks every 500 ms whether the run has ended (not timed).
    await Promise.all(Array.from({ length: clients }, () => poll(agent, runUrl, token, pollers > 0 ? intervalMs : 500, latencies, state)));
    const serverCpuMs = threadCpuMs(serve.pid) - serverCpu0;
    const clientCpu = process.cpuUsage(clientCpu0);
    const clientCpuMs = (clientCpu.user + clientCpu.system) / 1000;
    const result = await api(serve.url, token, `/v1/runs/${submitted.id}/result`);
    return { iops: result.jobs[0].read.iops, latencies, serverCpuMs, clientCpuMs };
  } finally {
    agent.destroy();
    await serve.stop();
  }
}

async function main() {
  const opts = parseFlags(process.argv.slice(2));
  // A real disk by default: on tmpfs the job is CPU-bound, so any CPU the pollers use comes
  // straight off the IOPS, which says more about the machine than about the service.
  const directory = opts.directory ?? mkdtempSync(join('/var/tmp', 'volbench-bench-poll-'));
  const jobSpec = spec(directory, opts.runtime);
  console.log(`volbench HTTP poll bench: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, kernel ${release()}, node ${process.version}`);
  const every = opts.intervalMs > 0 ? `each every ${opts.intervalMs} ms` : 'back to back';
  console.log(`job: 4k randread QD32 direct, ${opts.runtime}s, 256 MiB file in ${directory}; ${opts.pollers} pollers ${every}; ${opts.rounds} round(s)\n`);
  // Lay the file out once, so no measured run pays for it.
  libraryIops(spec(directory, 1));
  const rows = [];
  const variants = ['library', 'http+pollers', 'http'];
  for (let round = 0; round < opts.rounds; round++) {
    const order = variants.map((_, i) => variants[(i + round) % variants.length]);
    const row = { round: round + 1 };
    for (const variant of order) {
      if (variant === 'library') row.library = libraryIops(jobSpec);
      else {
        const out = await httpRun(jobSpec, directory, variant === 'http' ? 0 : opts.pollers, opts.intervalMs);
        if (variant === 'http') row.http = out.iops;
        else {
          const sorted = out.latencies.sort((a, b) => a - b);
          Object.assign(row, {
            polled: out.iops, polls: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1],
            // CPU per poll in microseconds: the service's event loop, and the polling client.
            serverUs: (out.serverCpuMs * 1000) / sorted.length, clientUs: (out.clientCpuMs * 1000) / sorted.length,
          });
        }
      }
    }
    rows.push(row);
    console.log(`round ${row.round} (${order.join(', ')}): library ${Math.round(row.library)} IOPS, http ${Math.round(row.http)}, ` +
      `http+pollers ${Math.round(row.polled)}; ${row.polls} polls, p50 ${row.p50.toFixed(2)} ms, p99 ${row.p99.toFixed(2)} ms, max ${row.max.toFixed(1)} ms; ` +
      `CPU per poll: service ${Math.round(row.serverUs)} us, client ${Math.round(row.clientUs)} us`);
  }
  const m = (key) => median(rows.map((r) => r[key]));
  console.log('\nmedians over rounds:');
  console.log(`  GET /v1/runs/{id} under ${opts.pollers} pollers: p50 ${m('p50').toFixed(2)} ms, p99 ${m('p99').toFixed(2)} ms (aim < 20 ms), ${Math.round(m('polls') / opts.runtime)} requests/s`);
  console.log(`  IOPS: library ${Math.round(m('library'))}, http ${Math.round(m('http'))}, http with pollers ${Math.round(m('polled'))}`);
  // Ratios within a round too: a cloud or VM disk drifts between rounds more than the service costs.
  const paired = (key) => median(rows.map((r) => r[key] / r.library)).toFixed(3);
  console.log(`  IOPS ratio http / library: ${(m('http') / m('library')).toFixed(3)} of medians, ${paired('http')} median per round (aim >= 0.98)`);
  console.log(`  IOPS ratio http with ${opts.pollers} pollers / library: ${(m('polled') / m('library')).toFixed(3)} of medians, ${paired('polled')} median per round`);
  const cores = (us) => ((us * m('polls')) / opts.runtime / 1e6).toFixed(2);
  console.log(`  CPU per poll: service event loop ${Math.round(m('serverUs'))} us (${cores(m('serverUs'))} of a core), ` +
    `polling client ${Math.round(m('clientUs'))} us (${cores(m('clientUs'))} of a core), on ${cpus().length} cores`);
  if (!opts.directory) rmSync(directory, { recursive: true, force: true });
}

await main();
