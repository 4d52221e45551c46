/**
 * Regression (security review, fourth round, LOW 8): a run's files were recorded by (dev, ino)
 * alone, and ext4 hands a freed inode number out again at once. After kill -9, the run's file
 * deleted and another user's file made at the same name took the same inode number, and the
 * restart's cleanup removed that user's file. Expected: a file is recorded with its birth time
 * (statx) and inode generation where its filesystem keeps them, and removed only while the name
 * still has both: on ext4 (birth time and generation) and on ext4 with 128-byte inodes
 * (generation only) the other user's file stays; on ramfs (neither) the run's own file is left
 * in place, unconfirmed, and named in the run's record; and a record that matches is removed.
 */
import { chownSync, existsSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runSweep } from '../../src/index.js';
import { ensureBuilt, spawnServe, waitForExit, type ServeChild } from '../api/helpers/child.js';
import { ApiClient } from '../api/helpers/server.js';
import { requires } from '../helpers/requires.js';
import { ScratchDir } from '../helpers/run-fixtures.js';
import { TargetFixtures } from '../helpers/target-fixtures.js';

const needs = requires('child', 'tmpfs', 'loop', 'mkfs');

const MiB = 1024 * 1024;
const token = `inode-reuse-${process.pid}`;
const NEW_OWNER = 'a new owner\'s file';
const reason = needs.missing('loop', 'mkfs');

async function untilExists(paths: string[], withinMs = 10_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!paths.every((p) => existsSync(p))) {
    if (Date.now() > deadline) throw new Error(`${paths.join(', ')} never appeared`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.skipIf(reason !== undefined)(`a restart after kill -9, once the run's inode numbers were given to other files${reason ? ` (skipped: ${reason})` : ''}`, () => {
  let fx: TargetFixtures;
  const data = new ScratchDir('inode-reuse');
  let serving: ServeChild | null = null;
  const roots: Record<'ext4' | 'ext4Gen' | 'ramfs' | 'kept', string> = { ext4: '', ext4Gen: '', ramfs: '', kept: '' };

  beforeAll(() => {
    ensureBuilt();
    fx = new TargetFixtures('inode-reuse', '/dev/shm');
    const ext4 = fx.attachLoop(fx.image('a.img', 32 * MiB));
    fx.mkfsExt4(ext4);
    const ext4Gen = fx.attachLoop(fx.image('b.img', 32 * MiB));
    fx.mkfsExt4(ext4Gen, ['-I', '128']);
    roots.ext4 = join(fx.mount(ext4, 'ext4'), 'root');
    roots.ext4Gen = join(fx.mount(ext4Gen, 'ext4-gen'), 'root');
    roots.ramfs = join(fx.mount('ramfs', 'ramfs', ['-t', 'ramfs']), 'root');
    roots.kept = join(fx.mount('tmpfs', 'tmpfs', ['-t', 'tmpfs', '-o', 'size=16m']), 'root');
    Object.values(roots).forEach((r) => mkdirSync(r));
  }, 60_000);
  afterAll(async () => {
    serving?.child.kill('SIGKILL');
    if (serving) await waitForExit(serving.child);
    fx?.release();
    data.remove();
  });

  it('leaves the new owners\' files, names the unconfirmed one, and removes its own file where nothing changed', async () => {
    const args = ['--data-dir', data.path('data'), ...Object.values(roots).flatMap((r) => ['--target-root', r]), '--token', token];
    serving = await spawnServe(args);
    let client = new ApiClient(serving.url, token);
    const files = Object.fromEntries(Object.entries(roots).map(([k, r]) => [k, join(r, 'x.dat')])) as typeof roots;
    const submitted = await client.submit({ jobs: Object.values(files).map((filename, i) => ({
      name: `w${i}`, rw: 'write', bs: '64k', size: '1m', filename, time_based: 1, runtime: '60s',
      // ramfs reports no free space: its file is only truncated to size.
      ...(filename === files.ramfs ? { fallocate: 'truncate' } : {}),
    })) });
    expect(submitted.status, submitted.text).toBe(202);
    const run = submitted.body;
    await client.waitForStatus(run.id, 'running');
    await untilExists(Object.values(files));
    const made = { ext4: statSync(files.ext4).ino, ext4Gen: statSync(files.ext4Gen).ino };
    serving.child.kill('SIGKILL');
    await waitForExit(serving.child);
    serving = null;
    // The run's files on both ext4s are deleted, and another user makes a file of the same name,
    // which gets the freed inode number (once the killed process's io_uring has let it go).
    for (const key of ['ext4', 'ext4Gen'] as const) {
      unlinkSync(files[key]);
      const deadline = Date.now() + 5000;
      for (;;) {
        writeFileSync(files[key], NEW_OWNER);
        if (statSync(files[key]).ino === made[key] || Date.now() > deadline) break;
        unlinkSync(files[key]);
        await new Promise((r) => setTimeout(r, 50));
      }
      chownSync(files[key], 65534, 65534);
      expect(statSync(files[key]).ino, `${key}: the freed inode number is given out again`).toBe(made[key]);
    }
    serving = await spawnServe(args);
    client = new ApiClient(serving.url, token);
    const after = (await client.get(`/v1/runs/${run.id}`)).body;
    expect(after.status).toBe('failed');
    for (const key of ['ext4', 'ext4Gen'] as const) expect(readFileSync(files[key], 'utf8'), key).toBe(NEW_OWNER);
    // ramfs keeps neither birth time nor generation: the run's own file stays, named.
    expect(existsSync(files.ramfs)).toBe(true);
    expect(after.error.detail).toContain(`1 could not be confirmed as the files it created`);
    expect(after.error.detail).toContain(files.ramfs);
    // On tmpfs nothing changed: its file, with its birth time, is removed.
    expect(existsSync(files.kept)).toBe(false);
    expect(after.error.detail).toMatch(/^the server stopped while the run was running; 1 file\(s\) it created were removed;/);
  }, 60_000);

  it('a sweep\'s unlink=1 leaves a file it cannot confirm in place and names it in its result', async () => {
    const file = join(roots.ramfs, 'sweep.dat');
    const result = await runSweep({ jobs: [{ name: 's', rw: 'write', bs: '64k', size: '1m', filename: file, fallocate: 'truncate', unlink: 1, runtime: '100ms', time_based: 1 }] }, { maxDepth: 2 });
    expect(existsSync(file)).toBe(true);
    expect(result.volbench.jobs.at(-1)?.notes).toContain(
      `unlink left ${file} in place: its filesystem keeps neither a birth time nor an inode generation, so it could not be confirmed as the file this run made`);
  });
});
