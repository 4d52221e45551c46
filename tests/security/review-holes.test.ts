/**
 * Holes found after the engine began opening beneath held directories, each pinned here:
 * - a target that did not exist at planning was accepted as any regular file, so the image of a
 *   mounted loop device renamed onto its name was written (the superblock destroyed);
 * - a FIFO where a target was named hung the probe (and with four of them the service);
 * - unlink=1 through a symlink removed the file it pointed to, where fio removes the link;
 * - a later stage reusing a file an earlier stage's unlink=1 removed failed as "changed".
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runJobs } from '../../src/index.js';
import { startServer, type TestServer } from '../api/helpers/server.js';
import { requires } from '../helpers/requires.js';
import { ScratchDir, volbenchError } from '../helpers/run-fixtures.js';
import { TargetFixtures, superblockMagic } from '../helpers/target-fixtures.js';

const needs = requires('child', 'tmpfs', 'loop', 'mkfs');

const MiB = 1024 * 1024;
const scratch = new ScratchDir('review-holes');
afterAll(() => scratch.remove());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const mountReason = needs.missing('loop', 'mkfs');

describe.skipIf(mountReason !== undefined)(`a new target's name taken by another file${mountReason ? `: skipped, ${mountReason}` : ''}`, () => {
  let server: TestServer;
  let fx: TargetFixtures;
  let device = '';
  let image = '';
  beforeAll(async () => {
    server = await startServer({ maxRuntimeSec: 30 });
    fx = new TargetFixtures('new-name', '/dev/shm');
    image = join(server.root, 'fs.img');
    writeFileSync(image, Buffer.alloc(0));
    execFileSync('truncate', ['-s', '32M', image]);
    device = fx.attachLoop(image);
    fx.mkfsExt4(device);
    fx.mount(device, 'mnt');
  });
  afterAll(async () => {
    fx?.release();
    await server?.close();
  });

  it('is refused: the image of a mounted device renamed onto it is not written', async () => {
    const target = join(server.root, 't');
    const res = await server.client.submit({ jobs: [
      { name: 's1', rw: 'write', bs: '64k', size: '1m', filename: join(server.root, 's1.dat'), time_based: 1, runtime: '1500ms' },
      { name: 's2', stonewall: 1, rw: 'write', bs: '64k', size: '1m', filename: target },
    ] });
    expect(res.status).toBe(202);
    await server.client.waitForStatus(res.body.id, 'running');
    await sleep(400);
    renameSync(image, target);
    const run = await server.client.waitForEnd(res.body.id);
    expect(run.status).toBe('failed');
    expect(superblockMagic(device)).toBe(0xef53);
    renameSync(target, image);
  });
});

describe('a FIFO where a target is named', () => {
  it('is refused at once, not waited on', async () => {
    const fifo = scratch.path('fifo');
    execFileSync('mkfifo', [fifo]);
    const started = Date.now();
    const err = await volbenchError(runJobs({ jobs: [{ name: 'f', rw: 'read', size: '1m', filename: fifo }] }));
    expect(err.code).toBe('ETARGET');
    expect(Date.now() - started).toBeLessThan(5000);
  }, 10_000);
});

describe('unlink=1', () => {
  it('removes a symlink it was given, not the file the link points to, as fio', async () => {
    const real = scratch.path('real.dat');
    const link = scratch.path('link.dat');
    writeFileSync(real, Buffer.alloc(MiB));
    symlinkSync(real, link);
    const result = await runJobs({ jobs: [{ name: 'u', rw: 'read', size: '1m', filename: link, unlink: 1 }] });
    expect(result.jobs[0].error).toBe(0);
    expect(existsSync(real)).toBe(true);
    expect(() => lstatSync(link)).toThrow();
  });

  it('lets a later stage lay out again the file an earlier stage removed', async () => {
    const dir = mkdtempSync(join('/dev/shm', `volbench-reuse-${process.pid}-`));
    try {
      const path = join(dir, 'x.dat');
      writeFileSync(path, Buffer.alloc(MiB));
      mkdirSync(join(dir, 'unused'));
      const result = await runJobs({ jobs: [
        { name: 'a', rw: 'write', bs: '64k', size: '1m', filename: path, unlink: 1 },
        { name: 'b', stonewall: 1, rw: 'write', bs: '64k', size: '1m', filename: path },
      ] });
      expect(result.jobs.map((j) => j.error)).toEqual([0, 0]);
      expect(existsSync(path)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
