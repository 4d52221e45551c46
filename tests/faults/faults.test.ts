/**
 * Faults on purpose: a FUSE filesystem (tests/helpers/faultfs.py) serves a disk image that fails
 * I/O with EIO, or stops answering it, once it has served a chosen number of bytes; a loop device
 * over that image turns both into a block device's faults, and killing the filesystem's process
 * takes the device's storage away. A failed job ends with fio's error and what it did until
 * then while the run's other jobs go on; a stuck one is given up on (on cancel, or 10 s past its
 * runtime) with its I/O still in flight counted, and the process goes on to serve other runs.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { runJobs, stuckTally } from '../../src/index.js';
import { startServer, type TestServer } from '../api/helpers/server.js';
import { FaultFs } from '../helpers/faultfs.js';
import { requires } from '../helpers/requires.js';
import { detachOwnLoop, loopBacks } from '../helpers/target-fixtures.js';
import { MiB, ScratchDir, dir, type EngineName } from '../helpers/run-fixtures.js';

const needs = requires('child', 'tmpfs', 'loop', 'fuse', 'dist', 'io_uring', 'libaio');

const IMAGE_BYTES = 64 * MiB;
const EIO = 5;
const ETIMEDOUT = 110;
const CLI = new URL('../../dist/cli/main.js', import.meta.url).pathname;

const reason = needs.missing('fuse');
const loopReason = needs.missing('fuse', 'loop');
const scratch = new ScratchDir('faults');
afterAll(() => scratch.remove());

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Sets a stall rule; the promise it returns resolves once an I/O has reached it. */
function stallAfter(fs: FaultFs, bytes: number, direction: 'read' | 'write' = 'read'): () => Promise<void> {
  const before = fs.counters().stalled;
  fs.control(`stall-after ${direction} ${bytes}`);
  return () => untilStalled(fs, before);
}

async function untilStalled(fs: FaultFs, before: number, withinMs = 10_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (fs.counters().stalled === before) {
    if (Date.now() > deadline) throw new Error('no I/O reached the stall');
    await sleep(20);
  }
}

async function untilNothingStuck(withinMs = 10_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (stuckTally().entries.length > 0) {
    if (Date.now() > deadline) throw new Error('stuck threads did not end once the I/O was released');
    await sleep(20);
  }
}

/** A job reading the image at random, direct, for `runtime`. */
function imageJob(fs: FaultFs, engine: EngineName, runtime = '30s'): Record<string, string | number> {
  return { name: `image-${engine}`, filename: fs.image, size: IMAGE_BYTES, rw: 'randread', bs: '4k', direct: 1, ioengine: engine, iodepth: 4, time_based: 1, runtime };
}

/** A small job on tmpfs: the healthy target. */
function healthyJob(name: string, runtime = '500ms'): Record<string, string | number> {
  return { name, filename: scratch.path(`${name}.dat`), size: '8m', rw: 'randread', bs: '4k', direct: 1, time_based: 1, runtime };
}

/** Each attached loop device's backing file: a device is known by it, not by its name alone. */
const backingOf = new Map<string, string>();

/** Attaches a loop device over `file`; detach it with detachLoop. */
function attachLoop(file: string): string {
  const r = spawnSync('losetup', ['--find', '--show', file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`losetup: ${r.stderr}`);
  const device = r.stdout.trim();
  backingOf.set(device, file);
  return device;
}

/** Detaches `device` if it is still the one this file attached (another process may hold its number now). */
function detachLoop(device: string): void {
  const backing = backingOf.get(device);
  if (backing !== undefined) detachOwnLoop(device, backing);
}

describe.skipIf(reason !== undefined)(`faults on a FUSE file${reason ? ` (skipped: ${reason})` : ''}`, () => {
  let fs: FaultFs;
  beforeAll(async () => {
    fs = await FaultFs.mount(IMAGE_BYTES);
  });
  afterAll(async () => fs?.close());
  // Released, a stuck I/O returns and its job's thread ends; until then its directory takes no
  // run (ESTUCK), so the next test waits for that.
  afterEach(async () => {
    fs.control('release', 'clear');
    await untilNothingStuck();
  });

  for (const engine of ['psync', 'io_uring'] as EngineName[]) {
    it(`${engine}: EIO mid-run ends the job with fio's error and what it read until then; the other job goes on`, async () => {
      fs.control('eio-after read 4194304');
      const failedBefore = fs.counters().failed;
      const result = await runJobs({ jobs: [imageJob(fs, engine, '5s'), healthyJob(`healthy-${engine}`, '1s')] });
      const [faulty, healthy] = result.jobs;
      expect(faulty.error).toBe(EIO);
      expect(result.volbench.jobs[0].error_message).toMatch(/Input\/output error/);
      const read = dir(faulty, 'read');
      // Up to the threshold (the I/Os in flight as it was crossed may have been served too).
      expect(read.io_bytes).toBeGreaterThanOrEqual(4 * MiB);
      expect(read.io_bytes).toBeLessThanOrEqual(4 * MiB + 4 * 4096);
      // As fio: the failed I/Os (the one that ended the job, and those in flight with it) count
      // as issued, not as completed.
      const failed = fs.counters().failed - failedBefore;
      expect(failed).toBeGreaterThanOrEqual(1);
      expect(read.total_ios).toBe(read.clat_ns.N + failed);
      expect(read.io_bytes).toBe(read.clat_ns.N * 4096);
      expect(healthy.error).toBe(0);
      expect(healthy.job_runtime).toBeGreaterThanOrEqual(1000);
      expect(dir(healthy, 'read').io_bytes).toBeGreaterThan(0);
    });
  }

  for (const engine of ['psync', 'libaio', 'io_uring'] as EngineName[]) {
    const why = needs.engine(engine);
    it.skipIf(why !== undefined)(`${engine}: a read that never returns; the abort resolves within 1 s with the partial result and the stuck I/O counted`, async () => {
      const stalled = stallAfter(fs, MiB);
      const controller = new AbortController();
      const run = runJobs({ jobs: [imageJob(fs, engine)] }, { signal: controller.signal });
      await stalled();
      await sleep(200);
      const abortedAt = performance.now();
      controller.abort();
      const result = await run;
      expect(performance.now() - abortedAt).toBeLessThan(1000);
      const job = result.volbench.jobs[0];
      expect(job.cancelled).toBe(true);
      expect(job.stuck_ios).toBeGreaterThanOrEqual(1);
      expect(job.stuck_ios).toBeLessThanOrEqual(4);
      expect(result.jobs[0].error).toBe(0);
      expect(dir(result.jobs[0], 'read').io_bytes).toBeGreaterThanOrEqual(1 * MiB);
      // The process goes on: a run on another target works while the I/O is still stuck.
      const next = await runJobs({ jobs: [healthyJob(`after-${engine}`)] });
      expect(next.jobs[0].error).toBe(0);
      expect(dir(next.jobs[0], 'read').io_bytes).toBeGreaterThan(0);
      expect(fs.counters().stalled).toBeGreaterThanOrEqual(1);
    });
  }

  it('a stalled I/O with nobody cancelling: the job gives up 10 s past its runtime with ETIMEDOUT', async () => {
    stallAfter(fs, MiB);
    const started = performance.now();
    const result = await runJobs({ jobs: [imageJob(fs, 'psync', '1s')] });
    const tookMs = performance.now() - started;
    expect(tookMs).toBeGreaterThanOrEqual(10_000);
    expect(tookMs).toBeLessThan(15_000);
    expect(result.jobs[0].error).toBe(ETIMEDOUT);
    const job = result.volbench.jobs[0];
    expect(job.cancelled).toBe(false);
    expect(job.stuck_ios).toBe(1);
    expect(job.error_message).toMatch(/1 I\/O on .*disk\.img still not complete/);
  }, 20_000);

  it('CLI: Ctrl-C prints the partial result within 1 s and names the stuck I/O', async () => {
    const stalled = stallAfter(fs, MiB);
    const child = spawn(process.execPath, [CLI, 'run', '--output-format=json', '--name=cli', `--filename=${fs.image}`, '--rw=randread',
      '--bs=4k', `--size=${IMAGE_BYTES}`, '--direct=1', '--ioengine=psync', '--time_based', '--runtime=30s'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await stalled();
    await sleep(200);
    const interruptedAt = Date.now();
    child.kill('SIGINT');
    while (!stdout.trimEnd().endsWith('}') && Date.now() - interruptedAt < 5000) await sleep(10);
    expect(Date.now() - interruptedAt).toBeLessThan(1000);
    const result = JSON.parse(stdout);
    expect(result.volbench.jobs[0].cancelled).toBe(true);
    expect(result.volbench.jobs[0].stuck_ios).toBe(1);
    await sleep(100);
    expect(stderr).toMatch(/job cli: 1 I\/O never completed/);
    // The thread inside the kernel holds the process until the device answers.
    fs.control('release');
    await expect(Promise.race([exited, sleep(5000).then(() => 'still running')])).resolves.not.toBe('still running');
  });

  it('HTTP: DELETE of a run stuck on its device answers within 1 s and stores the partial result', async () => {
    let server: TestServer | undefined;
    try {
      server = await startServer({ extraRoots: [fs.dir] });
      const stalled = stallAfter(fs, MiB);
      const { body, status } = await server.client.submit({ jobs: [imageJob(fs, 'io_uring')] });
      expect(status).toBe(202);
      await stalled();
      await sleep(200);
      const asked = Date.now();
      const res = await server.client.request('DELETE', `/v1/runs/${body.id}`);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('cancelled');
      expect(Date.now() - asked).toBeLessThan(1000);
      const result = await server.client.get(`/v1/runs/${body.id}/result`);
      expect(result.status).toBe(200);
      expect(result.body.volbench.jobs[0].stuck_ios).toBeGreaterThanOrEqual(1);
      expect(result.body.jobs[0].read.io_bytes).toBeGreaterThanOrEqual(1 * MiB);
      // The service goes on: the next run on its other root completes.
      const next = await server.client.submit({ jobs: [{ ...healthyJob('after-http'), filename: `${server.root}/after.dat` }] });
      expect(next.status).toBe(202);
      const ended = await server.client.waitForEnd(next.body.id);
      expect(ended.status).toBe('finished');
    } finally {
      fs.control('release');
      await server?.close();
    }
  });
});

describe.skipIf(loopReason !== undefined)(`faults on a block device${loopReason ? ` (skipped: ${loopReason})` : ''}`, () => {
  let fs: FaultFs | undefined;
  let device = '';
  afterEach(async () => {
    if (device) detachLoop(device);
    device = '';
    await fs?.close();
    fs = undefined;
  });

  it('EIO mid-run on a loop device: the job ends with EIO and what it read until then', async () => {
    fs = await FaultFs.mount(IMAGE_BYTES);
    device = attachLoop(fs.image);
    fs.control('eio-after read 2097152');
    const result = await runJobs({ jobs: [{ name: 'loop-eio', filename: device, rw: 'randread', bs: '4k', direct: 1, ioengine: 'libaio', iodepth: 4, time_based: 1, runtime: '5s' }] });
    expect(result.jobs[0].error).toBe(EIO);
    expect(dir(result.jobs[0], 'read').io_bytes).toBeGreaterThan(0);
    expect(result.jobs[0].job_runtime).toBeLessThan(5000);
  });

  it('storage gone mid-run (the filesystem behind the loop device killed): the job ends with EIO, not a hang', async () => {
    fs = await FaultFs.mount(IMAGE_BYTES);
    device = attachLoop(fs.image);
    const run = runJobs({ jobs: [{ name: 'loop-gone', filename: device, rw: 'randread', bs: '4k', direct: 1, ioengine: 'io_uring', iodepth: 4, time_based: 1, runtime: '10s' }] });
    await sleep(700);
    fs.kill();
    const started = performance.now();
    const result = await run;
    expect(performance.now() - started).toBeLessThan(3000);
    expect(result.jobs[0].error).toBe(EIO);
    expect(dir(result.jobs[0], 'read').io_bytes).toBeGreaterThan(0);
  });

  it('a write stuck on a block device keeps the exclusive claim until the device answers', async () => {
    fs = await FaultFs.mount(IMAGE_BYTES);
    device = attachLoop(fs.image);
    const stalled = stallAfter(fs, MiB, 'write');
    const controller = new AbortController();
    const run = runJobs({ jobs: [{ name: 'loop-stuck-write', filename: device, rw: 'randwrite', bs: '4k', direct: 1, ioengine: 'psync', time_based: 1, runtime: '30s', allow_block_write: 1 }] }, { signal: controller.signal });
    await stalled();
    controller.abort();
    const result = await run;
    expect(result.volbench.jobs[0].stuck_ios).toBe(1);
    // The run has ended, but its write may still land: nothing else may claim the device.
    expect(() => openSync(device, constants.O_RDONLY | constants.O_EXCL)).toThrow(/EBUSY/);
    fs.control('release');
    const deadline = Date.now() + 5000;
    for (;;) {
      try {
        closeSync(openSync(device, constants.O_RDONLY | constants.O_EXCL));
        break;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await sleep(50);
      }
    }
  });

  it('the loop device detached mid-run: the kernel keeps it until the job closes it, and the job ends normally', async () => {
    fs = await FaultFs.mount(IMAGE_BYTES);
    device = attachLoop(fs.image);
    const run = runJobs({ jobs: [{ name: 'loop-detached', filename: device, rw: 'randread', bs: '4k', direct: 1, ioengine: 'psync', time_based: 1, runtime: '1500ms' }] });
    await sleep(500);
    detachLoop(device);
    const result = await run;
    expect(result.jobs[0].error).toBe(0);
    expect(result.jobs[0].job_runtime).toBeGreaterThanOrEqual(1500);
    // Gone once the job let go of it (its number may already be another process's device).
    await sleep(200);
    expect(loopBacks(device, fs.image)).toBe(false);
    device = '';
  });
});
