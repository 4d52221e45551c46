#!/usr/bin/env node
// /v1/healthz while many idle, unauthenticated connections (that never send a byte) are open.
//
//   node bench/idle-connections.mjs [--sockets N] [--serve-nofile N] [--watch S]
//
// Starts `volbench serve` with --serve-nofile descriptors (default 20000, through prlimit), opens
// --sockets connections to it (default 20000) from child processes of 8,000 each (a process's
// own descriptors run out too) and keeps them open, then asks /v1/healthz ten times, and again
// every second for --watch seconds (default 15) until it answers. Prints each answer's status
// and time, and the service's connection gauges where it has them.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fork, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

import { CLI, httpCall } from './lib.mjs';

if (process.argv[2] === '--hold') await hold(process.argv[3], Number(process.argv[4]), Number(process.argv[5]));

/** A holder: `count` silent connections, kept open until this process is killed. */
async function hold(host, port, count) {
  const sockets = [];
  let connected = 0;
  let failed = 0;
  for (let done = 0; done < count; done += 500) {
    await Promise.all(Array.from({ length: Math.min(500, count - done) }, () => new Promise((resolve) => {
      const s = connect(port, host, () => {
        connected++;
        resolve();
      });
      s.on('error', () => {
        failed++;
        resolve();
      });
      sockets.push(s);
    })));
  }
  process.send({ connected, failed });
  await new Promise(() => {});
}

const opts = { sockets: 20_000, serveNofile: 20_000, watch: 15 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const key = { '--sockets': 'sockets', '--serve-nofile': 'serveNofile', '--watch': 'watch' }[argv[i]];
  if (key === undefined || !/^\d+$/.test(argv[i + 1] ?? '')) throw new Error('usage: idle-connections.mjs [--sockets N] [--serve-nofile N] [--watch S]');
  opts[key] = Number(argv[++i]);
}

const token = `idle-${process.pid}`;
const dir = mkdtempSync(join('/dev/shm', 'volbench-idle-bench-'));
const child = spawn('prlimit', [`--nofile=${opts.serveNofile}:${opts.serveNofile}`, '--', process.execPath, CLI, 'serve', '--port', '0',
  '--data-dir', join(dir, 'data'), '--target-root', dir], { env: { ...process.env, VOLBENCH_TOKEN: token }, stdio: ['ignore', 'ignore', 'pipe'] });
const url = await new Promise((resolve, reject) => {
  let text = '';
  child.stderr.on('data', (c) => {
    text += c;
    const m = /serving on (http:\/\/\S+)/.exec(text);
    if (m) resolve(m[1]);
  });
  child.once('exit', () => reject(new Error(`serve exited: ${text}`)));
});
const { hostname, port } = new URL(url);

async function healthz() {
  const t = performance.now();
  const res = await Promise.race([httpCall(`${url}/v1/healthz`).catch((e) => ({ status: e.code ?? 'error' })), sleep(5000).then(() => ({ status: 'timeout' }))]);
  return { status: res.status, ms: Math.round(performance.now() - t) };
}

const PER_HOLDER = 8000;
const opened = performance.now();
const holders = await Promise.all(Array.from({ length: Math.ceil(opts.sockets / PER_HOLDER) }, (_, i) => {
  const count = Math.min(PER_HOLDER, opts.sockets - i * PER_HOLDER);
  const holder = fork(fileURLToPath(import.meta.url), ['--hold', hostname, port, String(count)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve) => holder.once('message', (m) => resolve({ holder, ...m })));
}));
const connected = holders.reduce((n, h) => n + h.connected, 0);
const failed = holders.reduce((n, h) => n + h.failed, 0);
const openSeconds = (performance.now() - opened) / 1000;
const first = [];
for (let i = 0; i < 10; i++) first.push(await healthz());
const watched = [];
for (let s = 0; s < opts.watch && !first.every((a) => a.status === 200); s++) {
  await sleep(1000);
  const a = await healthz();
  watched.push({ atS: s + 1, ...a });
  if (a.status === 200) break;
}
const metrics = await httpCall(`${url}/v1/metrics`, { headers: { authorization: `Bearer ${token}` } }).catch(() => ({ text: '' }));
const gauge = (name) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(metrics.text ?? '')?.[1] ?? NaN);
console.log(JSON.stringify({
  sockets: opts.sockets, serveNofile: opts.serveNofile, connected, failed, openSeconds: Math.round(openSeconds * 10) / 10,
  healthz: first, watched,
  serviceConnections: gauge('volbench_connections'), serviceDropped: gauge('volbench_connections_dropped'),
}));
holders.forEach((h) => h.holder.kill('SIGKILL'));
child.kill('SIGTERM');
await new Promise((resolve) => child.once('exit', resolve));
rmSync(dir, { recursive: true, force: true });
