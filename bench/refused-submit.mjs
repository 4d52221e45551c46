#!/usr/bin/env node
// How long a submit the full queue refuses (429) takes under load: the service decides "queue
// full and no idle device" before it plans the run, so a refusal should not wait for planning.
//
//   node bench/refused-submit.mjs [--rounds N] [--burst N] [--pollers N]
//
// Against a real `volbench serve` child (--queue-limit 2 --max-concurrent 1, one root on
// /dev/shm): one long rate-limited run keeps the device busy and two more fill the queue; then
// pollers GET /v1/runs/{id} every 100 ms while `rounds` bursts of `burst` concurrent kdiskmark
// suite submits (each refused 429) go in. Prints the refused submits' median, p90 and max.
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

import { httpCall, median, percentile, spawnServe } from './lib.mjs';

const opts = { rounds: 5, burst: 20, pollers: 50 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const key = { '--rounds': 'rounds', '--burst': 'burst', '--pollers': 'pollers' }[argv[i]];
  if (key === undefined || !/^\d+$/.test(argv[i + 1] ?? '')) throw new Error(`usage: refused-submit.mjs [--rounds N] [--burst N] [--pollers N]`);
  opts[key] = Number(argv[++i]);
}

const token = `refused-${process.pid}`;
const dataDir = mkdtempSync(join('/dev/shm', 'volbench-refused-data-'));
const root = mkdtempSync(join('/dev/shm', 'volbench-refused-root-'));
const serve = await spawnServe(['--data-dir', dataDir, '--target-root', root, '--queue-limit', '2', '--max-concurrent', '1'], token);
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const post = (body) => httpCall(`${serve.url}/v1/runs`, { agent, method: 'POST', headers, body: JSON.stringify(body) });
const longRun = (name) => ({ jobs: [{ name, rw: 'randread', bs: '4k', size: '8m', runtime: '120s', time_based: 1, rate_iops: 100 }] });

try {
  const first = JSON.parse((await post(longRun('busy'))).text);
  for (const name of ['queued1', 'queued2']) if ((await post(longRun(name))).status !== 202) throw new Error('could not fill the queue');
  let polling = true;
  const pollers = Array.from({ length: opts.pollers }, async () => {
    while (polling) {
      await httpCall(`${serve.url}/v1/runs/${first.id}`, { agent, headers });
      await sleep(100);
    }
  });
  const refused = [];
  const other = {};
  for (let round = 0; round < opts.rounds; round++) {
    await Promise.all(Array.from({ length: opts.burst }, async () => {
      const start = performance.now();
      const res = await post({ suite: 'kdiskmark', size: '16m', runtime: '1s' });
      const ms = performance.now() - start;
      if (res.status === 429) refused.push(ms);
      else other[res.status] = (other[res.status] ?? 0) + 1;
    }));
  }
  polling = false;
  await Promise.all(pollers);
  const sorted = refused.sort((a, b) => a - b);
  console.log(JSON.stringify({
    refused: refused.length, other,
    medianMs: Math.round(median(sorted)), p90Ms: Math.round(percentile(sorted, 90)), maxMs: Math.round(sorted[sorted.length - 1]),
    ...opts,
  }));
} finally {
  agent.destroy();
  serve.child.kill('SIGTERM');
  await serve.exited;
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(root, { recursive: true, force: true });
}
