#!/usr/bin/env node
// `volbench serve` under load, then killed mid-run: a repeatable load and crash test of the HTTP
// service (a script, not a test; tests/api/load-script.test.ts runs it with --quick).
//
//   node bench/service-load.mjs [--quick] [--pollers N] [--runs N] [--sse N] [--sse-readers N]
//     [--queue-limit N] [--volumes N] [--interval-ms MS] [--rate-iops N] [--max-rss-mb MB]
//     [--summary-json FILE]
//   Every number flag may come from the environment too: VOLBENCH_LOAD_RUNS=300,
//   VOLBENCH_LOAD_QUICK=1; flags win.
//
// Against a real `volbench serve` child (a free port; data directory and target roots on
// /dev/shm, each root a tmpfs of its own when mount(8) is allowed, so that runs queue per
// volume; a small --queue-limit; --keep-runs above what the script submits):
//  1. pollers (200) GET /v1/runs/{id} of recent runs, one request in ten the list, each every
//     100 ms, from start to just before the kill; their latency is reported as p50/p99;
//  2. short runs (1,000: 4k randread of a 4 MiB file, 100-200 ms, rate-limited to leave the CPU
//     to the service) are submitted over the small queue; a 429 must carry Retry-After, which
//     the submitter waits out before trying the run again;
//  3. SSE clients follow runs as they are accepted: ~1,000 that never read their socket and a
//     few that read every event (their final event must agree with the run); the server's RSS
//     (/proc/PID/status VmRSS) is sampled throughout;
//  4. halfway, a cancel storm DELETEs queued and running runs, each twice at once;
//  5. once the runs have drained, every run and result is digested; a long run on each volume
//     and short ones queued behind them; kill -9 while they run; a restart on the same data
//     directory; then through the API: no run is lost; those that ended before the kill are
//     unchanged (digest of the run and its result); those running at the kill failed as
//     interrupted and their files are gone; those queued run after the restart; none stays
//     running or queued;
//  6. kill -9 again, this time in the thick of submissions and polls, and a restart: no run
//     accepted is lost, none that had ended changes, each ends finished or interrupted.
// It prints a summary and exits 1 when an invariant fails: a lost or changed run, a 5xx or a
// transport error, a 429 without Retry-After, a run left running or never ending, an event
// stream whose final event disagrees with its run, a peak RSS above --max-rss-mb.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { cpus, loadavg, release } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

import { httpCall, percentile, spawnServe, threadCpuMs, vmRssKb } from './lib.mjs';

const FULL = { pollers: 200, runs: 1000, sse: 1000, sseReaders: 50, queueLimit: 8, volumes: 4, intervalMs: 100, rateIops: 2000, maxRssMb: 1024 };
const QUICK = { pollers: 20, runs: 100, sse: 100, sseReaders: 10 };
const NUMBER_FLAGS = {
  '--pollers': 'pollers', '--runs': 'runs', '--sse': 'sse', '--sse-readers': 'sseReaders', '--queue-limit': 'queueLimit',
  '--volumes': 'volumes', '--interval-ms': 'intervalMs', '--rate-iops': 'rateIops', '--max-rss-mb': 'maxRssMb',
};
const FLAGS_HELP = `flags: --quick, ${Object.keys(NUMBER_FLAGS).map((f) => `${f} N`).join(', ')}, --summary-json FILE`;

/** VOLBENCH_LOAD_SSE_READERS for sseReaders. */
const envName = (key) => `VOLBENCH_LOAD_${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;

function count(name, text) {
  if (!/^\d+$/.test(text ?? '')) throw new Error(`${name} takes a whole number, not '${text}'; ${FLAGS_HELP}`);
  return Number(text);
}

function parseFlags(argv, env) {
  const quick = argv.includes('--quick') || env.VOLBENCH_LOAD_QUICK === '1';
  const opts = { ...FULL, ...(quick ? QUICK : {}), quick, summaryJson: null };
  for (const key of Object.values(NUMBER_FLAGS)) {
    if (env[envName(key)] !== undefined) opts[key] = count(envName(key), env[envName(key)]);
  }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') continue;
    if (a === '--summary-json') opts.summaryJson = argv[++i];
    else if (a in NUMBER_FLAGS) opts[NUMBER_FLAGS[a]] = count(a, argv[++i]);
    else throw new Error(`unknown flag ${a}; ${FLAGS_HELP}`);
  }
  if (opts.runs < 1 || opts.volumes < 1 || opts.intervalMs < 1) throw new Error('--runs, --volumes and --interval-ms take at least 1');
  return opts;
}

const ENDED = new Set(['finished', 'failed', 'cancelled']);
const INTERRUPTED = 'urn:volbench:problem:interrupted';
/** One poll in LIST_SHARE asks for the list instead of one run. */
const LIST_SHARE = 0.1;
/** Pollers pick among the last RECENT runs accepted. */
const RECENT = 32;
const SUBMITTERS = 24;
const DIGEST_CONCURRENCY = 16;

/** What must hold, counted; the first few examples of each kind are kept for the report. */
class Invariants {
  counts = new Map();
  examples = new Map();
  fail(kind, example) {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
    const list = this.examples.get(kind) ?? [];
    if (list.length < 3) list.push(example);
    this.examples.set(kind, list);
  }
  get ok() {
    return this.counts.size === 0;
  }
}

/** The server's resident memory, sampled every 100 ms while it lives: the peak, and one sample a second. */
class RssSampler {
  peak = 0;
  perSecond = [];
  constructor(pid) {
    this.pid = pid;
    let ticks = 0;
    this.timer = setInterval(() => {
      const kb = this.sample();
      if (kb !== null && ticks++ % 10 === 0) this.perSecond.push(kb);
    }, 100);
  }
  sample() {
    const kb = vmRssKb(this.pid);
    if (kb !== null) this.peak = Math.max(this.peak, kb);
    return kb;
  }
  stop() {
    clearInterval(this.timer);
  }
}

/** The volumes runs use: directories on /dev/shm, each its own tmpfs when mounting is allowed. */
function makeVolumes(base, n) {
  const volumes = [];
  let note = null;
  for (let i = 0; i < n; i++) {
    const dir = join(base, `vol${i}`);
    mkdirSync(dir);
    if (i > 0 && note === null) {
      try {
        execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m,mode=0700', 'volbench-load', dir], { stdio: 'pipe' });
        volumes.push({ dir, mounted: true });
        continue;
      } catch (err) {
        note = `mount -t tmpfs was refused (${String(err.stderr ?? err).trim()}): one volume, one queue`;
      }
    }
    if (i === 0) volumes.push({ dir, mounted: false });
  }
  return { volumes, note };
}

function unmountVolumes(volumes) {
  for (const v of volumes.filter((v) => v.mounted)) {
    try {
      execFileSync('umount', [v.dir], { stdio: 'pipe' });
    } catch {
      execFileSync('umount', ['-l', v.dir], { stdio: 'pipe' });
    }
  }
}

const sha256 = (text) => createHash('sha256').update(text).digest('hex');

/** The client side of the service: each request checked for 5xx and transport errors. */
class Api {
  constructor(url, token, invariants) {
    this.url = url;
    this.token = token;
    this.inv = invariants;
    this.agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
    /** Aborted as the server is killed; every submitter waiting out a 429 listens. */
    this.killed = new AbortController();
    setMaxListeners(0, this.killed.signal);
  }

  get dead() {
    return this.killed.signal.aborted;
  }

  async call(method, path, { json, agent = this.agent, expect } = {}) {
    const headers = { authorization: `Bearer ${this.token}` };
    let body;
    if (json !== undefined) {
      body = JSON.stringify(json);
      headers['content-type'] = 'application/json';
    }
    let res;
    try {
      res = await httpCall(`${this.url}${path}`, { agent, method, headers, body });
    } catch (err) {
      // Once the server is killed on purpose, requests in flight fail as they should.
      if (!this.dead) this.inv.fail('transport error', `${method} ${path}: ${err.code ?? err.message}`);
      return null;
    }
    if (res.status >= 500) {
      this.inv.fail('5xx', `${method} ${path}: ${res.status} ${res.text.slice(0, 200)}`);
    } else if (expect && !expect.includes(res.status)) {
      this.inv.fail('unexpected status', `${method} ${path}: ${res.status} ${res.text.slice(0, 200)}`);
    }
    return res;
  }

  async json(method, path, options) {
    const res = await this.call(method, path, options);
    return res === null ? null : { status: res.status, headers: res.headers, body: safeJson(res.text), text: res.text };
  }

  /** Every run, newest first, page by page. */
  async listAll(query = '') {
    const runs = [];
    let cursor = null;
    do {
      const page = await this.json('GET', `/v1/runs?limit=100${query}${cursor ? `&cursor=${cursor}` : ''}`, { expect: [200] });
      if (page === null || page.status !== 200) throw new Error(`listing the runs failed: ${page?.status}`);
      runs.push(...page.body.runs);
      cursor = page.body.next_cursor;
    } while (cursor);
    return runs;
  }

  close() {
    this.agent.destroy();
  }
}

function safeJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function forEachLimit(items, limit, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

/**
 * Pollers: GET a recent run (or the list) every intervalMs until stopped; latencies in ms. A
 * poller's first request, which connects, is timed apart: all of them connect to a server that
 * has just started, a herd that says nothing of polling once connected.
 */
function startPollers(ctx) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Math.max(1, ctx.opts.pollers) });
  const latency = { run: [], list: [], first: [] };
  const state = { stop: false };
  const one = async () => {
    await sleep(Math.random() * ctx.opts.intervalMs);
    for (let first = true; !state.stop; first = false) {
      const list = ctx.recent.length === 0 || Math.random() < LIST_SHARE;
      const id = list ? null : ctx.recent[Math.floor(Math.random() * ctx.recent.length)];
      const t0 = performance.now();
      const res = await ctx.api.call('GET', list ? '/v1/runs?limit=20' : `/v1/runs/${id}`, { agent, expect: [200] });
      const ms = performance.now() - t0;
      if (res !== null) (first ? latency.first : list ? latency.list : latency.run).push(ms);
      if (res?.status === 404) ctx.inv.fail('lost run', `GET /v1/runs/${id} answered 404 before the kill`);
      await sleep(Math.max(0, ctx.opts.intervalMs - ms));
    }
  };
  const done = Promise.all(Array.from({ length: ctx.opts.pollers }, one));
  return {
    latency,
    async stop() {
      state.stop = true;
      await done;
      agent.destroy();
    },
  };
}

/** A short run on volume `v`: 4k random reads of a file every run on that volume shares. */
function shortRun(ctx, v) {
  const runtimeMs = 100 + Math.floor(Math.random() * 101);
  return {
    jobs: [{
      name: 'load', filename: join(ctx.volumes[v].dir, 'load.dat'), size: '4m', rw: 'randread', bs: '4k',
      runtime: `${runtimeMs}ms`, time_based: 1, ...(ctx.opts.rateIops > 0 ? { rate_iops: ctx.opts.rateIops } : {}),
    }],
  };
}

/**
 * POST a run; on 429, checks Retry-After and waits it out before trying again (`retry` false:
 * gives up). Null when refused, or once the server it was sent to has been killed.
 */
async function submit(ctx, spec, { retry = true } = {}) {
  const { api } = ctx;
  for (;;) {
    const res = await api.json('POST', '/v1/runs', { json: spec, expect: [202, 429] });
    if (res === null || api.dead) return null;
    if (res.status === 202) {
      ctx.stats.accepted++;
      return res.body.id;
    }
    if (res.status !== 429) return null;
    ctx.stats.rejected429++;
    const ra = res.headers['retry-after'];
    if (!/^\d+$/.test(ra ?? '') || Number(ra) < 1) {
      ctx.inv.fail('429 without Retry-After', `Retry-After: ${ra}`);
      ctx.stats.missingRetryAfter++;
    }
    if (!retry) return null;
    const waitMs = (Number(ra) || 1) * 1000;
    ctx.stats.maxRetryAfterSec = Math.max(ctx.stats.maxRetryAfterSec, waitMs / 1000);
    // Honoured: never sooner than asked; a little jitter so the waiters do not come back as one.
    await sleep(waitMs + Math.random() * 200, undefined, { signal: api.killed.signal }).catch(() => undefined);
    if (api.dead) return null;
  }
}

/** An event stream whose socket is never read: the request is written and the socket paused. */
function openStalledSse(ctx, id) {
  const { hostname, port } = new URL(ctx.api.url);
  const socket = net.connect({ host: hostname, port: Number(port) });
  socket.pause();
  socket.on('connect', () => {
    socket.write(`GET /v1/runs/${id}/events HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${ctx.api.token}\r\n` +
      'Accept: text/event-stream\r\n\r\n');
    ctx.sse.open++;
    ctx.sse.maxOpen = Math.max(ctx.sse.maxOpen, ctx.sse.open);
  });
  socket.on('close', () => {
    ctx.sse.open--;
    ctx.sse.stalled.delete(socket);
  });
  socket.on('error', (err) => {
    if (!ctx.sse.closing) ctx.inv.fail('transport error', `stalled SSE ${id}: ${err.code ?? err.message}`);
  });
  ctx.sse.stalled.add(socket);
  ctx.sse.stalledOpened++;
}

/**
 * An event stream read to its end: resolves with its last event's type, or null when the
 * stream is cut (destroyed, the server died, or it is still open after timeoutMs when given).
 */
function readEvents(ctx, id, timeoutMs = 0) {
  let req;
  const last = new Promise((resolve) => {
    if (timeoutMs > 0) {
      setTimeout(() => {
        req.destroy();
        resolve(null);
      }, timeoutMs).unref();
    }
    req = http.request(`${ctx.api.url}/v1/runs/${id}/events`, { agent: false, headers: { authorization: `Bearer ${ctx.api.token}` } }, (res) => {
      if (res.statusCode !== 200) {
        ctx.inv.fail(res.statusCode >= 500 ? '5xx' : 'unexpected status', `GET /v1/runs/${id}/events: ${res.statusCode}`);
        res.resume();
        resolve(null);
        return;
      }
      let buffer = '';
      let type = null;
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          type = /^event: (.+)$/m.exec(buffer.slice(0, end))?.[1] ?? type;
          buffer = buffer.slice(end + 2);
        }
      });
      res.on('end', () => resolve(type));
      res.on('error', () => resolve(null));
      res.on('aborted', () => resolve(null));
    });
    req.on('error', (err) => {
      if (!ctx.sse.closing) ctx.inv.fail('transport error', `SSE ${id}: ${err.code ?? err.message}`);
      resolve(null);
    });
    req.end();
  });
  return { req, last };
}

/** A reader for the load: its final event must be one that ends a run. */
function openReaderSse(ctx, id) {
  ctx.sse.readersOpened++;
  const { req, last } = readEvents(ctx, id);
  ctx.sse.readers.add(req);
  last.then((type) => {
    ctx.sse.readers.delete(req);
    if (ctx.sse.closing && type === null) return;
    ctx.sse.readerFinal.set(id, type);
    if (!ENDED.has(type)) ctx.inv.fail('event stream without a final event', `run ${id}: last event ${type}`);
  });
}

function closeSse(ctx) {
  ctx.sse.closing = true;
  for (const socket of ctx.sse.stalled) socket.destroy();
  for (const req of ctx.sse.readers) req.destroy();
}

/** A run accepted: pollers may pick it, and it gets its share of event streams. */
function accepted(ctx, id, n) {
  ctx.ids.push(id);
  ctx.recent.push(id);
  if (ctx.recent.length > RECENT) ctx.recent.shift();
  const { sse, sseReaders, runs } = ctx.opts;
  const stalledDue = Math.round((sse * (n + 1)) / runs) - ctx.sse.stalledOpened;
  for (let i = 0; i < stalledDue; i++) openStalledSse(ctx, id);
  if (Math.round((sseReaders * (n + 1)) / runs) > ctx.sse.readersOpened) openReaderSse(ctx, id);
}

/** Submits the short runs from SUBMITTERS clients at once; the cancel storm starts halfway. */
async function submitAll(ctx) {
  let next = 0;
  let storm = null;
  const one = async () => {
    while (next < ctx.opts.runs) {
      const n = next++;
      const id = await submit(ctx, shortRun(ctx, n % ctx.volumes.length));
      if (id === null) continue;
      accepted(ctx, id, n);
      if (storm === null && ctx.ids.length >= ctx.opts.runs / 2) storm = cancelStorm(ctx);
    }
  };
  await Promise.all(Array.from({ length: SUBMITTERS }, one));
  await storm;
}

/**
 * DELETE queued and running runs, each twice at once, wave after wave, for stormMs or until
 * as many as a tenth of the runs have been asked to stop.
 */
async function cancelStorm(ctx) {
  const stormMs = ctx.opts.quick ? 1500 : 10_000;
  const target = Math.max(10, Math.ceil(ctx.opts.runs / 10));
  const deadline = Date.now() + stormMs;
  while (Date.now() < deadline && ctx.cancel.asked.size < target) {
    const [queued, running] = await Promise.all([ctx.api.listAll('&status=queued'), ctx.api.listAll('&status=running')]);
    const ids = [...queued, ...running].map((r) => r.id).filter((id) => !ctx.cancel.asked.has(id));
    ids.forEach((id) => ctx.cancel.asked.add(id));
    await Promise.all(ids.flatMap((id) => [0, 1].map(async () => {
      const res = await ctx.api.json('DELETE', `/v1/runs/${id}`, { expect: [200, 202] });
      if (res === null) return;
      ctx.cancel.requests++;
      if (res.status === 404) ctx.inv.fail('lost run', `DELETE /v1/runs/${id} answered 404`);
      if (res.status === 200 && !ENDED.has(res.body?.status)) ctx.inv.fail('DELETE 200 for a run not ended', `${id}: ${res.body?.status}`);
      if (res.status === 202) ctx.cancel.stillStopping++;
    })));
    await sleep(50);
  }
}

/** Waits until no run is queued or running; false on timeout. */
async function drain(ctx, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const [queued, running] = await Promise.all([ctx.api.listAll('&status=queued'), ctx.api.listAll('&status=running')]);
    if (queued.length === 0 && running.length === 0) return true;
    await sleep(200);
  }
  return false;
}

/** A run that has ended, as the API shows it: its view and its result (or the refusal of one). */
async function digestOf(ctx, id) {
  const [view, result] = await Promise.all([
    ctx.api.call('GET', `/v1/runs/${id}`, { expect: [200] }),
    ctx.api.call('GET', `/v1/runs/${id}/result`, { expect: [200, 404] }),
  ]);
  if (view === null || result === null) return null;
  return { status: safeJson(view.text)?.status, digest: sha256(`${view.status}\n${view.text}\n${result.status}\n${result.text}`) };
}

async function digestAll(ctx, runs) {
  await forEachLimit(runs.filter((r) => ENDED.has(r.status) && !ctx.digests.has(r.id)), DIGEST_CONCURRENCY, async (r) => {
    const d = await digestOf(ctx, r.id);
    if (d !== null) ctx.digests.set(r.id, d);
  });
}

/**
 * The runs the kill interrupts: on each volume a long run on a file of its own (so a restart
 * has one to remove), then short ones queued behind them until the queue is full.
 */
async function killBatch(ctx) {
  const long = [];
  for (const [v, vol] of ctx.volumes.entries()) {
    const file = join(vol.dir, `kill-${v}.dat`);
    const id = await submit(ctx, {
      jobs: [{ name: 'victim', filename: file, size: '8m', rw: 'randread', bs: '4k', runtime: '60s', time_based: 1, rate_iops: 1000 }],
    });
    if (id === null) throw new Error('the kill batch\'s long run was refused');
    ctx.ids.push(id);
    long.push({ id, file });
  }
  const queued = [];
  for (let i = 0; i <= ctx.opts.queueLimit; i++) {
    const id = await submit(ctx, shortRun(ctx, i % ctx.volumes.length), { retry: false });
    if (id === null) break;
    ctx.ids.push(id);
    queued.push(id);
  }
  const deadline = Date.now() + 20_000;
  for (const { id, file } of long) {
    for (;;) {
      const run = await ctx.api.json('GET', `/v1/runs/${id}`, { expect: [200] });
      if (run?.body?.status === 'running' && run.body.progress !== null && existsSync(file)) break;
      if (Date.now() > deadline) throw new Error(`the kill batch's run ${id} is ${run?.body?.status}, not running with progress`);
      await sleep(50);
    }
  }
  return { long, queued };
}

/**
 * The service's event-loop delay (p99 and max, ms) since the last call: prom-client resets its
 * histogram on every scrape of /v1/metrics.
 */
async function eventLoopDelayMs(api) {
  const res = await api.call('GET', '/v1/metrics', { expect: [200] });
  const value = (name) => 1000 * Number(new RegExp(`^volbench_process_nodejs_eventloop_lag_${name}_seconds(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(res?.text ?? '')?.[1]);
  return { p99: value('p99'), max: value('max') };
}

function summaryTable(s) {
  const mb = (kb) => (kb / 1024).toFixed(1);
  const ms = (v) => (Number.isFinite(v) ? v.toFixed(2) : '-');
  const rows = [
    ['server RSS MiB: start / peak / end (load over, streams closed)', `${mb(s.rssKb.start)} / ${mb(s.rssKb.peak)} / ${mb(s.rssKb.end)}`],
    ['server RSS MiB: as the last run was accepted / after the restart', `${mb(s.rssKb.submitted)} / ${mb(s.rssKb.restarted)}`],
    [`GET /v1/runs/{id} ms (${s.polls.run} polls) p50 / p99 / max`, `${ms(s.pollMs.run.p50)} / ${ms(s.pollMs.run.p99)} / ${ms(s.pollMs.run.max)}`],
    [`GET /v1/runs ms (${s.polls.list} polls) p50 / p99 / max`, `${ms(s.pollMs.list.p50)} / ${ms(s.pollMs.list.p99)} / ${ms(s.pollMs.list.max)}`],
    ['each poller\'s first request (connects, cold server) ms: p50 / max', `${ms(s.pollMs.first.p50)} / ${ms(s.pollMs.first.max)}`],
    [`CPU during the load (${s.loadSeconds} s), % of a core: service event loop / this client`, `${s.cpu.serverLoopPct} / ${s.cpu.clientPct}`],
    ['service event-loop delay during the load, ms: p99 / max', `${ms(s.loopDelayMs.p99)} / ${ms(s.loopDelayMs.max)}`],
    ['submits accepted / 429 (without Retry-After)', `${s.submits.accepted} / ${s.submits.rejected429} (${s.submits.missingRetryAfter})`],
    ['longest Retry-After waited, s', String(s.submits.maxRetryAfterSec)],
    ['cancel storm: runs asked / DELETEs / 202 / ended cancelled', `${s.cancels.asked} / ${s.cancels.requests} / ${s.cancels.stillStopping} / ${s.cancels.cancelled}`],
    ['SSE: stalled opened / most open at once / readers (final event seen)', `${s.sse.stalled} / ${s.sse.maxOpen} / ${s.sse.readers} (${s.sse.readersFinal})`],
    ['runs ended before the kill (digested)', String(s.kill.endedBefore)],
    ['at the kill: running / queued', `${s.kill.running} / ${s.kill.queued}`],
    ['after restart: recovered as interrupted (files removed)', `${s.restart.interrupted} (${s.restart.filesRemoved})`],
    ['after restart: queued runs that ran again', String(s.restart.requeuedRan)],
    ['after restart: unchanged / changed', `${s.restart.unchanged} / ${s.restart.changed}`],
    ['restart to listening, ms', String(s.restart.startMs)],
    ['kill under load: runs accepted / interrupted / queued that ran after', `${s.killUnderLoad.accepted} / ${s.killUnderLoad.interrupted} / ${s.killUnderLoad.ranAfter}`],
    ['kill under load: unchanged / changed; restart to listening, ms', `${s.killUnderLoad.unchanged} / ${s.killUnderLoad.changed}; ${s.killUnderLoad.startMs}`],
    ['runs lost (must be 0)', String(s.restart.lost + s.killUnderLoad.lost)],
    ['runs left running or queued (must be 0)', String(s.restart.leftRunning + s.killUnderLoad.leftRunning)],
    ['HTTP 5xx (must be 0)', String(s.fiveXx)],
  ];
  const w = Math.max(...rows.map((r) => r[0].length));
  return rows.map(([k, v]) => `  ${k.padEnd(w)}  ${v}`).join('\n');
}


const pollStats = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? NaN };
};

/** 1-4: pollers, submissions, event streams and the cancel storm, all at once, until the runs drain. */
async function loadPhase(ctx) {
  const { serve, sampler, opts, inv } = ctx;
  // What the load costs: the service's event-loop thread, and this (client) process.
  const t0 = performance.now();
  const serverCpu0 = threadCpuMs(serve.pid);
  const clientCpu0 = process.cpuUsage();
  await eventLoopDelayMs(ctx.api);
  const pollers = startPollers(ctx);
  await submitAll(ctx);
  const rssSubmitted = sampler.sample();
  console.log(`submitted ${ctx.ids.length} runs (${ctx.stats.rejected429} answered 429) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  if (!(await drain(ctx, 60_000 + opts.runs * 500))) inv.fail('run never ended', 'runs still queued or running long after the last submit');
  await pollers.stop();
  const loopDelayMs = await eventLoopDelayMs(ctx.api);
  const loadMs = performance.now() - t0;
  const clientCpu = process.cpuUsage(clientCpu0);
  closeSse(ctx);
  await sleep(1000);
  return {
    loadSeconds: Math.round(loadMs / 1000),
    // Other work on the machine stalls the service as much as its own does.
    loadAverage1m: loadavg()[0],
    cpu: {
      serverLoopPct: Math.round((100 * (threadCpuMs(serve.pid) - serverCpu0)) / loadMs),
      clientPct: Math.round((clientCpu.user + clientCpu.system) / 10 / loadMs),
    },
    loopDelayMs,
    rssSubmitted,
    rssEnd: sampler.sample(),
    polls: { run: pollers.latency.run.length, list: pollers.latency.list.length },
    pollMs: { run: pollStats(pollers.latency.run), list: pollStats(pollers.latency.list), first: pollStats(pollers.latency.first) },
    submits: { ...ctx.stats },
    cancels: { asked: ctx.cancel.asked.size, requests: ctx.cancel.requests, stillStopping: ctx.cancel.stillStopping },
    sse: { stalled: ctx.sse.stalledOpened, maxOpen: ctx.sse.maxOpen, readers: ctx.sse.readersOpened },
  };
}

/** kill -9, then the same server on the same data directory; returns when it listens, and when it was killed. */
async function killAndRestart(ctx) {
  ctx.sampler.stop();
  ctx.rssPeak = Math.max(ctx.rssPeak ?? 0, ctx.sampler.peak);
  ctx.rssPerSecond.push(ctx.sampler.perSecond);
  ctx.api.killed.abort();
  ctx.serve.child.kill('SIGKILL');
  await ctx.serve.exited;
  const killedAt = Date.now();
  ctx.api.close();
  const t0 = performance.now();
  ctx.serve = await spawnServe(ctx.args, ctx.token);
  const startMs = Math.round(performance.now() - t0);
  ctx.sampler = new RssSampler(ctx.serve.pid);
  ctx.api = new Api(ctx.serve.url, ctx.token, ctx.inv);
  return { killedAt, startMs };
}

/**
 * What must hold after any restart: every accepted run is listed; once the queued ones have
 * run, none is left queued or running; the runs digested before are unchanged.
 */
async function afterRestartChecks(ctx, atKill = new Map()) {
  const { inv } = ctx;
  const listed = new Set((await ctx.api.listAll()).map((r) => r.id));
  let lost = 0;
  for (const id of ctx.ids) {
    if (listed.has(id)) continue;
    lost++;
    inv.fail('lost run', `${id} (${atKill.get(id) ?? 'accepted'} before the kill) is not listed after the restart`);
  }
  if (!(await drain(ctx, 60_000))) inv.fail('run never ended', 'runs still queued or running a minute after the restart');
  const final = new Map((await ctx.api.listAll()).map((r) => [r.id, r]));
  let leftRunning = 0;
  for (const run of final.values()) {
    if (ENDED.has(run.status)) continue;
    leftRunning++;
    inv.fail('run left running or queued', `${run.id}: ${run.status}`);
  }
  let unchanged = 0;
  let changed = 0;
  await forEachLimit([...ctx.digests], DIGEST_CONCURRENCY, async ([id, before]) => {
    const after = await digestOf(ctx, id);
    if (after?.digest === before.digest) unchanged++;
    else {
      changed++;
      inv.fail('run changed across the restart', `${id}: ${before.status} -> ${after?.status}`);
    }
  });
  return { final, lost, leftRunning, unchanged, changed };
}

/**
 * 5: every run that has ended is digested; then the kill batch, kill -9 while its long runs go,
 * and the restart. Those running at the kill fail as interrupted, their files removed and their
 * streams ending `failed`; those queued run after the restart.
 */
async function calmKill(ctx) {
  const { inv } = ctx;
  await digestAll(ctx, await ctx.api.listAll());
  const batch = await killBatch(ctx);
  // Nothing can end now (every volume is held by a 60 s run): the snapshot is the state at the kill.
  const atKill = new Map((await ctx.api.listAll()).map((r) => [r.id, r.status]));
  await digestAll(ctx, [...atKill].map(([id, status]) => ({ id, status })));
  const { killedAt, startMs } = await killAndRestart(ctx);
  const listed = new Map((await ctx.api.listAll()).map((r) => [r.id, r]));
  let interrupted = 0;
  for (const [id, status] of atKill) {
    const run = listed.get(id);
    if (status !== 'running' || !run) continue;
    if (run.status === 'failed' && run.error?.type === INTERRUPTED) interrupted++;
    else inv.fail('running run not recovered as interrupted', `${id}: ${run.status} ${run.error?.type ?? ''}`);
  }
  let filesRemoved = 0;
  for (const { id, file } of batch.long) {
    if (!existsSync(file)) filesRemoved++;
    else inv.fail('interrupted run\'s file left behind', `${id}: ${file}`);
    const replayed = await readEvents(ctx, id, 10_000).last;
    if (replayed !== 'failed') inv.fail('event stream disagrees with its run', `${id}: replayed ${replayed} after the restart`);
  }
  const checked = await afterRestartChecks(ctx, atKill);
  let requeuedRan = 0;
  for (const [id, status] of atKill) {
    const run = checked.final.get(id);
    if (status !== 'queued' || !run) continue;
    if (run.status === 'finished' && Date.parse(run.started_at) >= killedAt) requeuedRan++;
    else inv.fail('queued run did not run after the restart', `${id}: ${run.status}, started ${run.started_at}`);
  }
  // The readers' final events against what the runs ended as.
  let readersFinal = 0;
  for (const [id, type] of ctx.sse.readerFinal) {
    if (ENDED.has(type)) readersFinal++;
    const status = checked.final.get(id)?.status;
    if (type !== status) inv.fail('event stream disagrees with its run', `${id}: stream ended ${type}, run ${status}`);
  }
  const count = (status) => [...atKill.values()].filter((s) => s === status).length;
  return {
    kill: { endedBefore: ctx.digests.size, running: count('running'), queued: count('queued') },
    restart: { startMs, interrupted, filesRemoved, requeuedRan, ...without(checked, 'final') },
    readersFinal,
    cancelled: [...checked.final.values()].filter((r) => r.status === 'cancelled').length,
  };
}

const without = (object, key) => Object.fromEntries(Object.entries(object).filter(([k]) => k !== key));

/**
 * 6: kill -9 in the thick of it: submitters and pollers going, runs starting and ending, no
 * quiet moment. After the restart every run accepted is there, and each run of the burst ended
 * finished (if it was queued at the kill it ran after the restart) or failed as interrupted.
 */
async function killUnderLoad(ctx) {
  const { inv, opts } = ctx;
  const burstIds = [];
  const stop = new AbortController();
  const submitter = async () => {
    for (let n = 0; !stop.signal.aborted; n++) {
      const id = await submit(ctx, shortRun(ctx, n % ctx.volumes.length));
      if (id === null) continue;
      ctx.ids.push(id);
      burstIds.push(id);
      ctx.recent.push(id);
      if (ctx.recent.length > RECENT) ctx.recent.shift();
    }
  };
  const pollers = startPollers(ctx);
  const submitters = Array.from({ length: SUBMITTERS }, submitter);
  // Until a run has been accepted while others go, and a moment more: the kill lands at no chosen point.
  const deadline = Date.now() + 30_000;
  while (burstIds.length < Math.min(10, opts.runs / 10) && Date.now() < deadline) await sleep(50);
  await sleep(Math.random() * 1000);
  const killing = killAndRestart(ctx);
  stop.abort();
  await Promise.all([pollers.stop(), ...submitters]);
  const { killedAt, startMs } = await killing;
  const checked = await afterRestartChecks(ctx);
  let interrupted = 0;
  let ranAfter = 0;
  for (const id of burstIds) {
    const run = checked.final.get(id);
    if (!run) continue;
    if (run.status === 'failed' && run.error?.type === INTERRUPTED && Date.parse(run.started_at) < killedAt) interrupted++;
    else if (run.status === 'finished') {
      if (Date.parse(run.started_at) >= killedAt) ranAfter++;
    } else inv.fail('run of the burst ended otherwise', `${id}: ${run.status} ${run.error?.type ?? ''}`);
  }
  return { accepted: burstIds.length, interrupted, ranAfter, startMs, ...without(checked, 'final') };
}

async function main() {
  const opts = parseFlags(process.argv.slice(2), process.env);
  const started = performance.now();
  const inv = new Invariants();
  const base = mkdtempSync(join('/dev/shm', 'volbench-load-'));
  const { volumes, note } = makeVolumes(base, opts.volumes);
  const token = `load-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const args = ['--data-dir', join(base, 'data'), ...volumes.flatMap((v) => ['--target-root', v.dir]), '--queue-limit', String(opts.queueLimit),
    '--max-concurrent', String(volumes.length), '--keep-runs', String(3 * opts.runs + 100)];
  console.log(`volbench service load: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, kernel ${release()}, node ${process.version}`);
  console.log(`${opts.pollers} pollers every ${opts.intervalMs} ms, ${opts.runs} runs over --queue-limit ${opts.queueLimit} on ` +
    `${volumes.length} volume(s), ${opts.sse} stalled SSE clients + ${opts.sseReaders} readers${note ? `; ${note}` : ''}`);

  const ctx = {
    opts, inv, volumes, args, token, serve: null, sampler: null, rssPerSecond: [], api: null, ids: [], recent: [], digests: new Map(),
    stats: { accepted: 0, rejected429: 0, missingRetryAfter: 0, maxRetryAfterSec: 0 },
    cancel: { asked: new Set(), requests: 0, stillStopping: 0 },
    sse: { open: 0, maxOpen: 0, stalledOpened: 0, readersOpened: 0, stalled: new Set(), readers: new Set(), readerFinal: new Map(), closing: false },
  };
  const summary = { opts, volumes: volumes.length };
  // Stopped early (a hang, ^C or kill): the server goes, and the volumes are unmounted and removed.
  const abandon = (why, code) => {
    console.log(`\n${why}; stopping`);
    ctx.serve?.child.kill('SIGKILL');
    try {
      unmountVolumes(volumes);
    } finally {
      rmSync(base, { recursive: true, force: true });
      process.exit(code);
    }
  };
  // Every wait in the script is bounded; this bounds them all, whatever hangs.
  const limitSec = 240 + opts.runs;
  const watchdog = setTimeout(() => abandon(`no end after ${limitSec} s: the service or the script hangs`, 1), limitSec * 1000);
  process.once('SIGINT', () => abandon('interrupted', 130));
  process.once('SIGTERM', () => abandon('terminated', 143));
  try {
    ctx.serve = await spawnServe(args, token);
    ctx.sampler = new RssSampler(ctx.serve.pid);
    ctx.api = new Api(ctx.serve.url, token, inv);
    await sleep(300);
    const rssStart = ctx.sampler.sample();
    const load = await loadPhase(ctx);
    const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
    console.log(`load over, runs drained: ${elapsed()}`);
    const calm = await calmKill(ctx);
    const rssRestarted = ctx.sampler.sample();
    console.log(`killed mid-run, restarted and checked: ${elapsed()}`);
    const underLoad = await killUnderLoad(ctx);
    console.log(`killed under load, restarted and checked: ${elapsed()}`);
    if (ctx.rssPeak > opts.maxRssMb * 1024) inv.fail('peak RSS over --max-rss-mb', `${(ctx.rssPeak / 1024).toFixed(1)} MiB > ${opts.maxRssMb} MiB`);
    Object.assign(summary, {
      seconds: Math.round((performance.now() - started) / 1000),
      ...without(load, 'rssSubmitted'),
      rssKb: { start: rssStart, submitted: load.rssSubmitted, peak: ctx.rssPeak, end: load.rssEnd, restarted: rssRestarted },
      // One sample a second, a list per server process (the first, then each restart's).
      rssMiBPerSecond: ctx.rssPerSecond.map((series) => series.map((kb) => Math.round(kb / 1024))),
      cancels: { ...load.cancels, cancelled: calm.cancelled },
      sse: { ...load.sse, readersFinal: calm.readersFinal },
      kill: calm.kill,
      restart: calm.restart,
      killUnderLoad: underLoad,
      fiveXx: inv.counts.get('5xx') ?? 0,
    });
    delete summary.rssEnd;
  } catch (err) {
    inv.fail('script error', err.stack ?? String(err));
  } finally {
    ctx.sampler?.stop();
    clearTimeout(watchdog);
    const { serve } = ctx;
    if (serve && serve.child.exitCode === null && serve.child.signalCode === null) {
      serve.child.kill('SIGTERM');
      const stopped = await Promise.race([serve.exited.then(() => true), sleep(15_000, false)]);
      if (!stopped) {
        inv.fail('server did not stop', 'SIGTERM left it running for 15 s; killed');
        serve.child.kill('SIGKILL');
        await serve.exited;
      }
    }
    ctx.api?.close();
    unmountVolumes(volumes);
    rmSync(base, { recursive: true, force: true });
  }
  summary.ok = inv.ok;
  summary.violations = Object.fromEntries([...inv.counts].map(([kind, n]) => [kind, { count: n, examples: inv.examples.get(kind) }]));
  if (summary.rssKb) {
    const every10s = summary.rssMiBPerSecond[0].filter((_, i) => i % 10 === 0);
    console.log(`\nserver RSS MiB every 10 s until the first kill: ${every10s.join(' ')}`);
    console.log(`\nsummary (${summary.seconds} s; machine load average ${summary.loadAverage1m.toFixed(2)} as the load ended):\n${summaryTable(summary)}`);
  }
  if (opts.summaryJson) writeFileSync(opts.summaryJson, `${JSON.stringify(summary, null, 2)}\n`);
  if (!inv.ok) {
    console.log('\ninvariants that failed:');
    for (const [kind, { count: n, examples }] of Object.entries(summary.violations)) {
      console.log(`  ${kind}: ${n}`);
      for (const e of examples) console.log(`    ${e.split('\n').join('\n    ')}`);
    }
    process.exitCode = 1;
  } else console.log('\nevery invariant held');
}

await main();
