/**
 * Regression: with the data directory's filesystem full, a queued run stayed `queued` forever and
 * could not be cancelled, a run that finished lost its result, and every later submit answered
 * 500 (FOREIGN KEY constraint failed: the run's INSERT ... RETURNING handed back a row whose
 * commit had failed, and its first event pointed at nothing).
 * Expected: a submit the store cannot record is 507 problem+json (store-full) naming the data
 * directory and leaves no run behind; every run still ends cleanly (a queued one is cancelled at
 * once, one that cannot be recorded as started fails without running, a running one finishes),
 * a finished run's result is served from memory meanwhile, and once there is room again
 * everything held in memory reaches the store by itself, as the database and a restart show.
 *
 * The data directory is a size-limited tmpfs filled with a file until ENOSPC (needs root).
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Connection } from '../../src/server/store/sqlite.js';
import { requires } from '../helpers/requires.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { assertMatchesOpenApi } from './helpers/openapi.js';
import { readEvents } from './helpers/sse.js';
import { startServer, type TestServer } from './helpers/server.js';

const needs = requires('child', 'tmpfs', 'root');

const mountPoint = mkdtempSync(join(tmpdir(), `volbench-api-full-${process.pid}-`));

/** Mounts an 8 MiB tmpfs on mountPoint; the reason it cannot, or null. */
function mountSmallTmpfs(): string | null {
  const root = needs.missing('root');
  if (root) return root;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m,mode=0700', 'tmpfs', mountPoint], { stdio: 'pipe' });
    return null;
  } catch (err) {
    return `mount -t tmpfs was refused: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}`;
  }
}

const noMount = mountSmallTmpfs();
const dataDir = join(mountPoint, 'data');
const filler = join(mountPoint, 'filler');

/** Writes `filler` until the filesystem has no byte left, in ever smaller chunks. */
function fillFilesystem(): void {
  const fd = openSync(filler, 'w');
  const chunk = Buffer.alloc(1024 * 1024, 0x5a);
  try {
    for (let size = chunk.length; size >= 1; size >>= 1) {
      try {
        for (;;) writeSync(fd, chunk, 0, size);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** The store as the database file has it, read by a connection of its own. */
function storedRows(): Map<string, { status: string; result: string | null; error: string | null; events: string[] }> {
  const db = new Connection(join(dataDir, 'volbench.sqlite'), { readOnly: true });
  try {
    const runs = db.prepare('SELECT seq, id, status, result, error FROM runs').all() as
      Array<{ seq: number; id: string; status: string; result: string | null; error: string | null }>;
    const events = db.prepare('SELECT type FROM events WHERE run_seq = ? ORDER BY seq').pluck();
    return new Map(runs.map((r) => [r.id, { ...r, events: events.all(r.seq) as string[] }]));
  } finally {
    db.close();
  }
}

/** A job that touches no file: 3 s of the null engine, long enough to fill the disk meanwhile. */
function nullJob(name: string, runtime = '3s') {
  return { jobs: [{ name, rw: 'read', bs: '4k', size: '1m', ioengine: 'null', runtime, time_based: 1, rate_iops: 2000 }] };
}

describe.skipIf(noMount !== null)(`a data directory whose filesystem is full${noMount ? ` (skipped: ${noMount})` : ''}`, () => {
  let server: TestServer;
  let running: string;
  let queued: string;
  let unstartable: string;

  beforeAll(async () => {
    mkdirSync(dataDir, { mode: 0o700 });
    // One run at a time: the null engine claims no device, so only this keeps the others queued.
    server = await startServer({ dataDir, maxConcurrent: 1 });
    running = (await server.client.submit(nullJob('running'))).body.id;
    queued = (await server.client.submit(nullJob('queued'))).body.id;
    unstartable = (await server.client.submit(nullJob('unstartable', '1s'))).body.id;
    await server.client.waitForStatus(running, 'running');
    // An empty WAL, so every later commit needs new space (a checkpointed WAL is reused in place).
    const db = new Connection(join(dataDir, 'volbench.sqlite'));
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    fillFilesystem();
  });

  afterAll(async () => {
    await server?.close();
    if (noMount === null) execFileSync('umount', [mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });

  it('answers a submit it cannot record with 507 store-full naming the data directory', async () => {
    const res = await server.client.submit(nullJob('refused'));
    expect(res.status).toBe(507);
    expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    assertMatchesOpenApi('POST', '/v1/runs', res);
    expect(res.body).toMatchObject({ type: 'urn:volbench:problem:store-full', status: 507 });
    expect(res.body.detail).toContain(dataDir);
    const listed = (await server.client.get('/v1/runs')).body.runs.map((r: { id: string }) => r.id);
    expect(listed).toEqual([unstartable, queued, running]);
  });

  it('cancels a queued run at once', async () => {
    const res = await server.client.request('DELETE', `/v1/runs/${queued}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'cancelled', started_at: null });
  });

  it('ends the running run and serves its result from memory', async () => {
    const run = await server.client.waitForEnd(running);
    expect(run.status).toBe('finished');
    const result = await server.client.get(`/v1/runs/${running}/result`);
    expect(result.status).toBe(200);
    expect(result.body.jobs[0].read.total_ios).toBeGreaterThan(0);
    const events = await readEvents(`${server.url}/v1/runs/${running}/events`, { authorization: `Bearer ${server.token}` });
    expect(events.events.at(-1)?.event).toBe('finished');
  });

  it('fails a run it cannot record as started, without running it', async () => {
    const run = await server.client.waitForEnd(unstartable);
    expect(run).toMatchObject({ status: 'failed', started_at: null });
    expect(run.error.type).toBe('urn:volbench:problem:store-full');
    expect(run.error.detail).toContain(dataDir);
    expect((await server.client.get(`/v1/runs/${unstartable}/result`)).status).toBe(404);
    const failed = (await server.client.get('/v1/runs?status=failed')).body.runs.map((r: { id: string }) => r.id);
    expect(failed).toEqual([unstartable]);
  });

  it('writes what it held to the store once there is room, and a restart finds the same runs', async () => {
    unlinkSync(filler);
    const deadline = Date.now() + 15_000;
    let rows = storedRows();
    while (rows.get(running)?.status !== 'finished' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      rows = storedRows();
    }
    expect(rows.get(running)).toMatchObject({ status: 'finished' });
    expect(JSON.parse(rows.get(running)!.result!).jobs[0].read.total_ios).toBeGreaterThan(0);
    expect(rows.get(running)!.events).toEqual(expect.arrayContaining(['queued', 'started', 'finished']));
    expect(rows.get(queued)).toMatchObject({ status: 'cancelled', events: ['queued', 'cancelled'] });
    expect(rows.get(unstartable)).toMatchObject({ status: 'failed', events: ['queued', 'failed'] });
    expect(JSON.parse(rows.get(unstartable)!.error!).type).toBe('urn:volbench:problem:store-full');
    expect(rows.size).toBe(3);

    const again = await server.client.submit(nullJob('again', '1s'), '?wait=20');
    expect(again.body.status).toBe('finished');

    await server.close();
    server = await startServer({ dataDir });
    const statuses = Object.fromEntries((await server.client.get('/v1/runs')).body.runs.map((r: { id: string; status: string }) => [r.id, r.status]));
    expect(statuses).toEqual({ [running]: 'finished', [queued]: 'cancelled', [unstartable]: 'failed', [again.body.id]: 'finished' });
    expect((await server.client.get(`/v1/runs/${running}/result`)).status).toBe(200);
  });
});
