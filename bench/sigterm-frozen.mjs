#!/usr/bin/env node
// Seconds from SIGTERM to the exit of `volbench serve` while one of its roots is frozen
// (fsfreeze on an ext4 over a loop device) under a run that writes it. Needs root.
//
//   node bench/sigterm-frozen.mjs [--engine psync|io_uring|libaio] [--thaw-after S]
//
// The run writes through the chosen engine; once its writes wait on the frozen filesystem, the
// service gets SIGTERM. The script thaws the filesystem --thaw-after seconds later (default 60),
// so a service that cannot exit before the thaw still ends. Prints the seconds to the exit, and
// the threads of the service's process (serve's child, or serve itself in versions before it ran
// the service in a child) that were in the kernel (state D) two seconds in.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

import { httpCall, spawnServe } from './lib.mjs';

const opts = { engine: 'psync', thawAfter: 60 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--engine') opts.engine = argv[++i];
  else if (argv[i] === '--thaw-after') opts.thawAfter = Number(argv[++i]);
  else throw new Error('usage: sigterm-frozen.mjs [--engine psync|io_uring|libaio] [--thaw-after S]');
}

/** Threads of `pid` in state D, by name ("name (wchan)"). */
function stuckThreads(pid) {
  const out = [];
  let tids = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state !== 'D') continue;
      const comm = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const wchan = readFileSync(`/proc/${pid}/task/${tid}/wchan`, 'utf8').trim();
      out.push(`${comm} (${wchan})`);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return out;
}

const work = mkdtempSync(join('/dev/shm', 'volbench-sigterm-frozen-'));
const image = join(work, 'fs.img');
execFileSync('truncate', ['-s', '128M', image]);
const device = execFileSync('losetup', ['--find', '--show', image], { encoding: 'utf8' }).trim();
const mount = join(work, 'mnt');
let frozen = false;
try {
  execFileSync('mkfs.ext4', ['-q', device]);
  mkdirSync(mount);
  execFileSync('mount', [device, mount]);
  const root = join(mount, 'root');
  mkdirSync(root);
  const token = `sigterm-${process.pid}`;
  const serve = await spawnServe(['--data-dir', join(work, 'data'), '--target-root', root], token);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const spec = { jobs: [{ name: 'w', filename: join(root, 'w.dat'), rw: 'write', bs: '1m', size: '16m', iodepth: 4, ioengine: opts.engine, direct: 1, time_based: 1, runtime: '60s' }] };
  const run = JSON.parse((await httpCall(`${serve.url}/v1/runs`, { method: 'POST', headers, body: JSON.stringify(spec) })).text);
  for (let i = 0; i < 100; i++) {
    const now = JSON.parse((await httpCall(`${serve.url}/v1/runs/${run.id}`, { headers })).text);
    if (now.status === 'running' && now.progress) break;
    await sleep(100);
  }
  spawnSync('fsfreeze', ['-f', mount]);
  frozen = true;
  await sleep(500);
  // The service's own process: serve's child, or serve itself in versions before it had one.
  const servicePid = serve.pid;
  const sent = performance.now();
  const exitedAt = serve.exited.then(() => performance.now());
  serve.child.kill('SIGTERM');
  const thaw = setTimeout(() => {
    spawnSync('fsfreeze', ['-u', mount]);
    frozen = false;
  }, opts.thawAfter * 1000);
  await sleep(2000);
  const stuck = stuckThreads(servicePid);
  const { code, signal } = await serve.exited;
  const seconds = ((await exitedAt) - sent) / 1000;
  clearTimeout(thaw);
  console.log(JSON.stringify({
    engine: opts.engine, secondsToExit: Math.round(seconds * 10) / 10, exit: code ?? signal,
    thawedFirst: !frozen, serviceProcess: servicePid === serve.child.pid ? 'serve itself' : 'a child of serve', stuckThreadsAt2s: stuck,
  }));
  if (frozen) spawnSync('fsfreeze', ['-u', mount]);
  frozen = false;
} finally {
  if (frozen) spawnSync('fsfreeze', ['-u', mount]);
  // The service's kernel workers may hold the filesystem a moment after the thaw.
  for (let i = 0; i < 50 && spawnSync('umount', [mount]).status !== 0; i++) await sleep(100);
  spawnSync('losetup', ['-d', device]);
  rmSync(work, { recursive: true, force: true });
}
