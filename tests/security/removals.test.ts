/**
 * Removals by name followed links inside the root. The cleanup of an interrupted run (SIGTERM,
 * or kill -9 and a restart), a sweep's unlink=1 and a suite's cut-short unlink removed "any
 * regular file" at a run's file name, walking its directory through symlinks: with the run's
 * directory swapped for a link to another directory of the root they deleted another user's
 * 0600 file and the image behind a mounted loop device. Expected: a file is recorded with its
 * identity when it is created, kept with the run (through suites and sweeps, and in the store),
 * removed only while the name leads to that very file, its directories walked without following
 * links: the victim stays, in every one of the four ways. Records stored before identities were
 * are kept, logged and remove nothing.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { runSuite, runSweep } from '../../src/index.js';
import { buildServer } from '../../src/server/http/app.js';
import { MIGRATIONS } from '../../src/server/store/database.js';
import { Connection } from '../../src/server/store/sqlite.js';
import { ensureBuilt, spawnServe, waitForExit, type ServeChild } from '../api/helpers/child.js';
import { ApiClient } from '../api/helpers/server.js';
import { requires } from '../helpers/requires.js';
import { ScratchDir } from '../helpers/run-fixtures.js';
import { TargetFixtures, superblockMagic } from '../helpers/target-fixtures.js';

const needs = requires('child', 'tmpfs', 'loop', 'mkfs');

const token = `removals-${process.pid}`;
const PRECIOUS = 'another user\'s data';
const scratch = new ScratchDir('removals');
afterAll(() => scratch.remove());

/** A root with the run's directory `d` and another user's 0600 file at victims/`name`. */
function rootWithVictim(label: string, name: string): { root: string; victim: string } {
  const root = scratch.path(label);
  mkdirSync(join(root, 'd'), { recursive: true });
  mkdirSync(join(root, 'victims'));
  const victim = join(root, 'victims', name);
  writeFileSync(victim, PRECIOUS);
  chownSync(victim, 65534, 65534);
  chmodSync(victim, 0o600);
  return { root, victim };
}

/** The run's directory swapped for a link to the victim's, inside the root. */
function swapForLink(root: string): void {
  renameSync(join(root, 'd'), join(root, 'd.moved'));
  symlinkSync('victims', join(root, 'd'));
}

async function untilExists(path: string, withinMs = 10_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`${path} never appeared`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const longWrite = (root: string): object => ({ jobs: [{ name: 'w', rw: 'write', bs: '64k', size: '8m', filename: join(root, 'd', 'x.dat'), time_based: 1, runtime: '60s' }] });

describe('a served run interrupted after its directory was swapped for a link', () => {
  let serving: ServeChild | null = null;
  beforeAll(() => ensureBuilt(), 120_000);
  afterEach(async () => {
    serving?.child.kill('SIGKILL');
    if (serving) await waitForExit(serving.child);
    serving = null;
  });

  it('SIGTERM: the cleanup leaves the other user\'s file alone', async () => {
    const { root, victim } = rootWithVictim('sigterm', 'x.dat');
    const data = scratch.path('sigterm-data');
    serving = await spawnServe(['--data-dir', data, '--target-root', root, '--token', token]);
    const client = new ApiClient(serving.url, token);
    const run = (await client.submit(longWrite(root))).body;
    await client.waitForStatus(run.id, 'running');
    await untilExists(join(root, 'd', 'x.dat'));
    swapForLink(root);
    serving.child.kill('SIGTERM');
    await waitForExit(serving.child);
    expect(serving.child.exitCode).toBe(0);
    serving = null;
    expect(readFileSync(victim, 'utf8')).toBe(PRECIOUS);
    // The run's own file, now under another name, is not reached through the link either.
    expect(existsSync(join(root, 'd.moved', 'x.dat'))).toBe(true);
  });

  const mountReason = needs.missing('loop', 'mkfs');
  it.skipIf(mountReason !== undefined)(`kill -9 and a restart: the cleanup leaves a mounted loop device's image alone${mountReason ? ` (skipped: ${mountReason})` : ''}`, async () => {
    const fx = new TargetFixtures('removals-image', '/dev/shm');
    try {
      const { root } = rootWithVictim('kill9', 'placeholder');
      const image = join(root, 'victims', 'x.dat');
      writeFileSync(image, Buffer.alloc(0));
      execFileSync('truncate', ['-s', '16M', image]);
      const device = fx.attachLoop(image);
      fx.mkfsExt4(device);
      fx.mount(device, 'mnt');
      const data = scratch.path('kill9-data');
      const args = ['--data-dir', data, '--target-root', root, '--token', token];
      serving = await spawnServe(args);
      let client = new ApiClient(serving.url, token);
      const run = (await client.submit(longWrite(root))).body;
      await client.waitForStatus(run.id, 'running');
      await untilExists(join(root, 'd', 'x.dat'));
      serving.child.kill('SIGKILL');
      await waitForExit(serving.child);
      swapForLink(root);
      serving = await spawnServe(args);
      client = new ApiClient(serving.url, token);
      const after = (await client.get(`/v1/runs/${run.id}`)).body;
      expect(after.status).toBe('failed');
      expect(after.error.detail).toContain('0 file(s) it created were removed');
      expect(existsSync(image)).toBe(true);
      expect(superblockMagic(device)).toBe(0xef53);
    } finally {
      serving?.child.kill('SIGKILL');
      if (serving) await waitForExit(serving.child);
      serving = null;
      fx.release();
    }
  });
});

describe('a sweep with unlink=1 whose directory was swapped for a link before its end', () => {
  it('leaves the other user\'s file alone, and removes its own file when nothing was swapped', async () => {
    const { root, victim } = rootWithVictim('sweep', 'x.dat');
    const job = { name: 's', rw: 'write', bs: '64k', size: '4m', filename: join(root, 'd', 'x.dat'), unlink: 1, time_based: 1, runtime: '200ms' };
    await runSweep({ jobs: [job] }, {
      over: 'iodepth', maxDepth: 2,
      onPoint: (e) => {
        if (e.figures !== undefined && e.point === e.points) swapForLink(root);
      },
    });
    expect(readFileSync(victim, 'utf8')).toBe(PRECIOUS);
    const { root: plain } = rootWithVictim('sweep-plain', 'unused');
    await runSweep({ jobs: [{ ...job, filename: join(plain, 'd', 'x.dat') }] }, { over: 'iodepth', maxDepth: 2 });
    expect(existsSync(join(plain, 'd', 'x.dat'))).toBe(false);
  });
});

describe('a suite cut short after its directory was swapped for a link', () => {
  it('leaves the other user\'s file alone, and removes its own file when nothing was swapped', async () => {
    const { root, victim } = rootWithVictim('suite', 'kdiskmark.tmp');
    const controller = new AbortController();
    await runSuite('kdiskmark', {
      directory: join(root, 'd'), size: '4m', runtime: 1, loops: 1, signal: controller.signal,
      onTest: (e) => {
        if (e.test !== 2) return;
        swapForLink(root);
        controller.abort();
      },
    });
    expect(readFileSync(victim, 'utf8')).toBe(PRECIOUS);
    const { root: plain } = rootWithVictim('suite-plain', 'unused');
    const stop = new AbortController();
    await runSuite('kdiskmark', {
      directory: join(plain, 'd'), size: '4m', runtime: 1, loops: 1, signal: stop.signal,
      onTest: (e) => {
        if (e.test === 2) stop.abort();
      },
    });
    expect(existsSync(join(plain, 'd', 'kdiskmark.tmp'))).toBe(false);
  }, 30_000);
});

describe('a store written before files were recorded with their identity', () => {
  it('migrates: the old record is kept, logged, and removes nothing at the restart', async () => {
    const root = scratch.path('migrated-root');
    mkdirSync(root);
    const old = join(root, 'old.dat');
    writeFileSync(old, 'kept');
    const data = scratch.path('migrated-data');
    mkdirSync(data);
    const db = new Connection(join(data, 'volbench.sqlite'));
    for (const migration of MIGRATIONS.slice(0, 4)) db.exec(migration);
    db.exec('PRAGMA user_version = 4');
    db.prepare("INSERT INTO runs (id, status, spec, roots, queue_keys, files, created_at, started_at) VALUES ('old-run', 'running', ?, '[]', '[]', ?, 1, 1)")
      .run(JSON.stringify({ jobs: [{ name: 'old', rw: 'write', size: '1m', filename: old }] }), JSON.stringify([old]));
    db.close();
    const lines: string[] = [];
    const app = await buildServer({ dataDir: data, token, targetRoots: [root], logger: { level: 'error', stream: { write: (l: string) => lines.push(l) } } });
    try {
      const run = await app.inject({ method: 'GET', url: '/v1/runs/old-run', headers: { authorization: `Bearer ${token}` } });
      expect(run.json().status).toBe('failed');
      expect(run.json().error.detail).toMatch(/0 file\(s\) it created were removed; 1 recorded without an identity were left in place/);
      expect(readFileSync(old, 'utf8')).toBe('kept');
      expect(lines.join('\n')).toContain(`${old} were recorded before files were recorded with their identity`);
    } finally {
      await app.close();
    }
    const check = new Connection(join(data, 'volbench.sqlite'), { readOnly: true });
    try {
      expect(check.prepare('SELECT path, dev, ino FROM run_files').all()).toEqual([{ path: old, dev: null, ino: null }]);
    } finally {
      check.close();
    }
  });
});
