/**
 * A server killed with SIGKILL mid-run and started again on the same data directory: the run
 * it was running is failed as interrupted and the files it laid out are gone; the database is
 * intact (integrity_check), earlier runs and their results are still there, and a run it had
 * queued runs after the restart.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Connection } from '../../src/server/store/sqlite.js';
import { requires } from '../helpers/requires.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ensureBuilt, spawnServe, waitForExit, type ServeChild } from './helpers/child.js';
import { ApiClient, randreadSpec } from './helpers/server.js';
import { readEvents } from './helpers/sse.js';

const needs = requires('child', 'tmpfs');

const token = `restart-${process.pid}`;
let dataDir: string;
let root: string;
let serving: ServeChild | null = null;

beforeAll(() => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), `volbench-api-restart-${process.pid}-`));
  root = mkdtempSync(join('/dev/shm', `volbench-api-restart-root-${process.pid}-`));
}, 120_000);

afterAll(async () => {
  if (serving) {
    serving.child.kill('SIGTERM');
    await waitForExit(serving.child);
  }
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(root, { recursive: true, force: true });
});

const serveArgs = (data = dataDir, target = root): string[] =>
  ['--data-dir', data, '--target-root', target, '--token', token, '--max-concurrent', '1'];

/** Polls `check` every 20 ms for up to 10 s; fails naming `what`. */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`waited 10 s for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** run_files rows the live server has recorded for run `id` (read-only beside it, WAL). */
function recordedFiles(id: string): number {
  const db = new Connection(join(dataDir, 'volbench.sqlite'), { readOnly: true });
  try {
    return Number(db.prepare('SELECT count(*) FROM run_files f JOIN runs r ON r.seq = f.run_seq WHERE r.id = ?').pluck().get(id));
  } finally {
    db.close();
  }
}

describe('kill -9 mid-run, then a restart on the same data directory', () => {
  let earlier: string;
  let victim: string;
  let queued: string;
  let queuedSuite: string;
  const victimFile = (): string => join(root, 'victim.0.0');

  it('leaves the run that was running in the database and its file on disk', async () => {
    serving = await spawnServe(serveArgs());
    const client = new ApiClient(serving.url, token);
    const done = await client.submit(randreadSpec(), '?wait=30');
    expect(done.body.status).toBe('finished');
    earlier = done.body.id;
    const long = await client.submit({ jobs: [{ name: 'victim', rw: 'write', bs: '64k', size: '32m', runtime: '60s', time_based: 1 }] });
    victim = long.body.id;
    queued = (await client.submit(randreadSpec())).body.id;
    queuedSuite = (await client.submit({ suite: 'kdiskmark', size: '4m', runtime: 1, loops: 1, assert: ['RND4K-Q1T1-read.iops > 0'] })).body.id;
    await client.waitForStatus(victim, 'running');
    // 'running' comes before the layout: wait for the file and its record, as a kill could find either missing.
    await until(() => existsSync(victimFile()) && recordedFiles(victim) > 0, 'the victim file and its run_files row');
    serving.child.kill('SIGKILL');
    await waitForExit(serving.child);
    serving = null;
    const db = new Connection(join(dataDir, 'volbench.sqlite'), { readOnly: true });
    const row = db.prepare('SELECT seq, status FROM runs WHERE id = ?').get(victim) as { seq: number; status: string };
    const files = db.prepare('SELECT path, dev, ino FROM run_files WHERE run_seq = ?').all(row.seq);
    db.close();
    expect(row.status).toBe('running');
    // Recorded with the identity it was created with.
    const st = statSync(victimFile(), { bigint: true });
    expect(files).toEqual([{ path: victimFile(), dev: String(st.dev), ino: String(st.ino) }]);
  });

  it('after the restart that run is failed as interrupted and its file is gone', async () => {
    serving = await spawnServe(serveArgs());
    const client = new ApiClient(serving.url, token);
    const run = (await client.get(`/v1/runs/${victim}`)).body;
    expect(run.status).toBe('failed');
    expect(run.error.type).toBe('urn:volbench:problem:interrupted');
    expect(run.error.detail).toContain('1 file(s)');
    expect(existsSync(victimFile())).toBe(false);
    const failed = await client.get('/v1/runs?status=failed');
    expect(failed.body.runs.map((r: { id: string }) => r.id)).toEqual([victim]);
  });

  it('earlier runs and their results are still readable, and the queued run runs', async () => {
    const client = new ApiClient(serving!.url, token);
    expect((await client.get(`/v1/runs/${earlier}`)).body.status).toBe('finished');
    const result = await client.get(`/v1/runs/${earlier}/result`);
    expect(result.status).toBe(200);
    expect(result.body.jobs[0].read.total_ios).toBeGreaterThan(0);
    const after = await client.waitForEnd(queued);
    expect(after.status).toBe('finished');
    // A queued suite run is admitted again from its suite, overrides and assertions.
    const suite = await client.waitForEnd(queuedSuite);
    expect(suite).toMatchObject({ status: 'finished', suite: { name: 'kdiskmark', loops: 1, size: '4m', runtime: 1 }, gate: 'passed' });
    expect(suite.assertions.map((a: { expr: string }) => a.expr)).toEqual(['RND4K-Q1T1-read.iops > 0']);
  });

  it('the database passes integrity_check', () => {
    const db = new Connection(join(dataDir, 'volbench.sqlite'), { readOnly: true });
    try {
      expect(db.pragma('integrity_check')).toBe('ok');
      expect(db.pragma('journal_mode')).toBe('wal');
    } finally {
      db.close();
    }
  });
});

describe('SIGTERM mid-run, with an event stream open', () => {
  let ownData: string;
  let ownRoot: string;
  beforeAll(() => {
    ownData = mkdtempSync(join(tmpdir(), `volbench-api-sigterm-${process.pid}-`));
    ownRoot = mkdtempSync(join('/dev/shm', `volbench-api-sigterm-root-${process.pid}-`));
  });
  afterAll(() => {
    rmSync(ownData, { recursive: true, force: true });
    rmSync(ownRoot, { recursive: true, force: true });
  });

  it('ends the run failed as interrupted, removes its file, closes the stream and exits 0', async () => {
    const server = await spawnServe(serveArgs(ownData, ownRoot));
    const client = new ApiClient(server.url, token);
    const run = (await client.submit({ jobs: [{ name: 'stopped', rw: 'write', bs: '64k', size: '32m', runtime: '60s', time_based: 1 }] })).body;
    await client.waitForStatus(run.id, 'running');
    const stream = readEvents(`${server.url}/v1/runs/${run.id}/events`, { authorization: `Bearer ${token}` });
    await new Promise((r) => setTimeout(r, 200));
    server.child.kill('SIGTERM');
    await waitForExit(server.child);
    expect(server.child.exitCode).toBe(0);
    const events = (await stream).events;
    expect(events[events.length - 1]).toMatchObject({ event: 'failed', data: { error: { type: 'urn:volbench:problem:interrupted' } } });
    expect(existsSync(join(ownRoot, 'stopped.0.0'))).toBe(false);
    const db = new Connection(join(ownData, 'volbench.sqlite'), { readOnly: true });
    const status = db.prepare('SELECT status FROM runs WHERE id = ?').pluck().get(run.id);
    db.close();
    expect(status).toBe('failed');
  });
});
