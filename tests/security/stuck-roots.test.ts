/**
 * Stuck I/O and frozen roots, on an ext4 over a loop device frozen with fsfreeze:
 * - Stuck I/O was outside the memory budget: jobs given up on kept their buffers while the queue
 *   counted running runs only, so cancelled runs on a frozen root took the server from 97 MB to
 *   1.64 GB and 11 to 65 threads at --max-memory 300m, and the next submit on that root was
 *   taken. Expected: abandoned buffers count in --max-memory until their thread ends (RSS and
 *   threads stay bounded after six stuck runs), the next submit on a stuck root is answered 503
 *   naming the root and its stuck I/Os while a healthy root's gets 202, and once the device
 *   answers the root takes runs again.
 * - Regression (fourth round, LOW 7): a run that did not fit beside the stuck jobs' memory got
 *   202 and waited, with no sign and no end, however healthy its root. Expected: 503 ESTUCK
 *   naming the roots that hold it and how much; and one root's runs (so any run) take at most
 *   75% of --max-memory, so that a root that freezes under them leaves the rest.
 * - A frozen root hung admission for every root: target probes ran on libuv's four pool threads
 *   without a deadline, so four submits to a frozen root hung every submit and GET /v1/targets.
 *   Expected: a healthy root's submit and GET /v1/targets answer at once, the frozen root's
 *   submits get 503 once the probe's deadline passes and at once after that, and the stuck probe
 *   thread counts under the stuck-thread cap.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildServer } from '../../src/server/http/app.js';
import { ensureBuilt, spawnServe, waitForExit, type ServeChild } from '../api/helpers/child.js';
import { ApiClient } from '../api/helpers/server.js';
import { requires } from '../helpers/requires.js';
import { ScratchDir } from '../helpers/run-fixtures.js';
import { TargetFixtures } from '../helpers/target-fixtures.js';

const needs = requires('child', 'tmpfs', 'loop', 'mkfs', 'fsfreeze');

const MiB = 1024 * 1024;
const token = `stuck-${process.pid}`;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const reason = needs.missing();

/** VmRSS (bytes) and thread count of a process, from /proc. */
function processFootprint(pid: number): { rssBytes: number; threads: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
  return { rssBytes: field('VmRSS') * 1024, threads: field('Threads') };
}

/** A run that writes 16 MiB buffers (bs 1m × iodepth 16) through io_uring for a minute. */
function stuckWriter(root: string): object {
  return { jobs: [{ name: 'w', filename: join(root, 'w.dat'), rw: 'write', bs: '1m', iodepth: 16, ioengine: 'io_uring', direct: 1, size: '16m', time_based: 1, runtime: '60s' }] };
}

/** A small, quick run. */
function healthyRun(root: string, name: string): { jobs: Array<Record<string, unknown>> } {
  return { jobs: [{ name, filename: join(root, `${name}.dat`), rw: 'randread', bs: '4k', size: '1m', direct: 1, runtime: '200ms', time_based: 1 }] };
}

describe.skipIf(reason !== undefined)(`frozen roots${reason ? ` (skipped: ${reason})` : ''}`, () => {
  let fx: TargetFixtures;
  let mount = '';
  let frozen = false;
  const healthy = new ScratchDir('stuck-healthy');
  const roots: string[] = [];
  let serving: ServeChild | null = null;
  let client: ApiClient;

  const freeze = (): void => {
    spawnSync('fsfreeze', ['-f', mount]);
    frozen = true;
  };
  const thaw = (): void => {
    if (frozen) spawnSync('fsfreeze', ['-u', mount]);
    frozen = false;
  };

  beforeAll(async () => {
    ensureBuilt();
    fx = new TargetFixtures('stuck', '/dev/shm');
    const device = fx.attachLoop(fx.image('fs.img', 256 * MiB));
    fx.mkfsExt4(device);
    mount = fx.mount(device, 'mnt');
    // r1..r6 hold a file each, laid out before the freeze; r7 is empty (a new target is probed there).
    for (let i = 1; i <= 7; i++) {
      const root = join(mount, `r${i}`);
      mkdirSync(root);
      if (i <= 6) writeFileSync(join(root, 'w.dat'), Buffer.alloc(16 * MiB, 1));
      roots.push(root);
    }
    spawnSync('sync');
    serving = await spawnServe(['--data-dir', healthy.path('data'), '--target-root', healthy.dir, ...roots.flatMap((r) => ['--target-root', r]),
      '--token', token, '--max-memory', '40m', '--max-concurrent', '4']);
    client = new ApiClient(serving.url, token);
    freeze();
  }, 120_000);

  afterAll(async () => {
    thaw();
    if (serving) {
      serving.child.kill('SIGTERM');
      await waitForExit(serving.child);
    }
    fx?.release();
    healthy.remove();
  }, 60_000);

  it('six runs on frozen roots: two are given up on, memory and threads stay bounded, the rest and the stuck roots answer 503, a healthy one 202', async () => {
    const pid = serving!.servicePid;
    const before = processFootprint(pid);
    const answers: Array<{ status: number; detail?: string }> = [];
    for (let i = 0; i < 6; i++) {
      const res = await client.submit(stuckWriter(roots[i]));
      answers.push({ status: res.status, detail: res.body.detail });
      if (res.status !== 202) continue;
      await client.waitForStatus(res.body.id, 'running');
      // Its writes are in the kernel, waiting for the thaw: the cancel gives up on them.
      await sleep(600);
      const cancelled = await client.request('DELETE', `/v1/runs/${res.body.id}`);
      expect(cancelled.body.status).toBe('cancelled');
      const result = await client.get(`/v1/runs/${res.body.id}/result`);
      expect(result.body.volbench.jobs[0].stuck_ios).toBeGreaterThan(0);
    }
    const after = processFootprint(pid);
    console.log(`six stuck runs: RSS ${Math.round(before.rssBytes / MiB)} -> ${Math.round(after.rssBytes / MiB)} MiB, threads ${before.threads} -> ${after.threads}`);
    // Two runs' buffers (16.5 MiB each, as planned) fit in 40 MiB. The others do not fit beside
    // what the stuck jobs hold: 503 naming their roots, not a 202 that waits for the thaw.
    expect(answers.map((a) => a.status)).toEqual([202, 202, 503, 503, 503, 503]);
    expect(answers[2].detail).toContain(`jobs given up on at ${roots[0]} (16.5 MiB), ${roots[1]} (16.5 MiB) hold 33 MiB`);
    expect(answers[2].detail).toContain('does not fit in --max-memory (40 MiB)');
    expect(after.rssBytes - before.rssBytes).toBeLessThan(40 * MiB + 24 * MiB);
    // Two jobs' threads and the kernel's io_uring workers for their stuck writes (16 each at most).
    expect(after.threads - before.threads).toBeLessThanOrEqual(2 * 17);

    const refused = await client.submit(stuckWriter(roots[0]));
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe('ESTUCK');
    expect(refused.body.detail).toContain(roots[0]);
    expect(refused.body.detail).toMatch(/has 16 stuck I\/Os/);
    // The same run on a healthy root does not fit either: told so, not queued until the thaw.
    const big = await client.submit(stuckWriter(healthy.dir));
    expect(big.status).toBe(503);
    expect(big.body.code).toBe('ESTUCK');
    expect(big.body.detail).toContain(`jobs given up on at ${roots[0]} (16.5 MiB), ${roots[1]} (16.5 MiB) hold 33 MiB`);
    // A run that fits beside the stuck memory runs on a healthy root.
    const fine = await client.submit(healthyRun(healthy.dir, 'fine'));
    expect(fine.status).toBe(202);
    expect((await client.waitForEnd(fine.body.id)).status).toBe('finished');
    // One larger than a root's share of --max-memory (30 of 40 MiB) is refused whatever is stuck.
    const whole = await client.submit({ jobs: [{ ...healthyRun(healthy.dir, 'whole').jobs[0], bs: '1m', iodepth: 32 }] });
    expect(whole.status).toBe(422);
    expect(whole.body.detail).toMatch(/over the limit of 31457280/);
    expect(whole.body.accepted).toContain("75% of --max-memory, what one root's runs may take at once");
  }, 60_000);

  it('a frozen root\'s probes do not hang a healthy root\'s submit or GET /v1/targets; its later submits get 503 at once', async () => {
    const newTarget = { jobs: [{ name: 'p', filename: join(roots[6], 'new.dat'), rw: 'read', bs: '4k', size: '1m', direct: 1 }] };
    const started = Date.now();
    const frozenSubmits = Array.from({ length: 4 }, () => client.submit(newTarget));
    await sleep(300);
    // Bounded: a hung answer fails here rather than at the test's timeout.
    const within = <T>(p: Promise<T>): Promise<T | null> => Promise.race([p, sleep(10_000).then(() => null)]);
    const t0 = Date.now();
    const fine = await within(client.submit(healthyRun(healthy.dir, 'beside')));
    const healthyMs = Date.now() - t0;
    const t1 = Date.now();
    const targets = await within(client.get('/v1/targets'));
    const targetsMs = Date.now() - t1;
    console.log(`healthy-root submit with a frozen root probing: ${healthyMs} ms; GET /v1/targets: ${targetsMs} ms`);
    expect(fine?.status).toBe(202);
    expect(healthyMs).toBeLessThan(2000);
    expect(targets?.status).toBe(200);
    expect(targetsMs).toBeLessThan(2000);
    const answers = await Promise.all(frozenSubmits);
    expect(answers.map((a) => a.status)).toEqual([503, 503, 503, 503]);
    expect(answers[0].body.detail).toMatch(/does not answer/);
    expect(Date.now() - started).toBeLessThan(8000);
    const t2 = Date.now();
    const again = await client.submit(newTarget);
    expect(again.status).toBe(503);
    expect(again.body.detail).toContain(roots[6]);
    expect(Date.now() - t2).toBeLessThan(500);
  }, 30_000);

  it('a stuck probe thread counts under the stuck-thread cap; once the device answers, the roots take runs again', async () => {
    // In this process, with a cap of one thread: the probe stuck on the frozen root fills it.
    const app = await buildServer({ dataDir: healthy.path('cap-data'), token, targetRoots: [healthy.dir, roots[6]], maxStuckThreads: 1 });
    try {
      const headers = { authorization: `Bearer ${token}` };
      const submit = (spec: object): Promise<{ statusCode: number; json: () => any }> =>
        app.inject({ method: 'POST', url: '/v1/runs', headers, payload: spec });
      const probe = await submit({ jobs: [{ name: 'p', filename: join(roots[6], 'cap.dat'), rw: 'read', bs: '4k', size: '1m', direct: 1 }] });
      expect(probe.statusCode).toBe(503);
      const capped = await submit(healthyRun(healthy.dir, 'capped'));
      expect(capped.statusCode).toBe(503);
      expect(capped.json().detail).toMatch(/holds 1 thread stuck .* the most it keeps \(1\)/);
      thaw();
      const deadline = Date.now() + 10_000;
      let res = await submit(healthyRun(healthy.dir, 'thawed'));
      while (res.statusCode === 503 && Date.now() < deadline) {
        await sleep(100);
        res = await submit(healthyRun(healthy.dir, 'thawed'));
      }
      expect(res.statusCode).toBe(202);
    } finally {
      await app.close();
    }
    // The child's stuck jobs returned with the thaw: their root takes a run again.
    const deadline = Date.now() + 10_000;
    let again = await client.submit(healthyRun(roots[0], 'again'));
    while (again.status === 503 && Date.now() < deadline) {
      await sleep(200);
      again = await client.submit(healthyRun(roots[0], 'again'));
    }
    expect(again.status).toBe(202);
  }, 60_000);
});
