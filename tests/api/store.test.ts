/**
 * What the store keeps: fio's JSON stored and read back prints exactly as the library's own
 * result does in every format, --keep-runs deletes the oldest ended runs with their events, and
 * a database from an earlier version opens with its runs intact.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Connection } from '../../src/server/store/sqlite.js';

import { VolbenchError, formatResult, runJobs } from '../../src/index.js';
import { buildServer } from '../../src/server/http/app.js';
import { storedResult } from '../../src/server/runs/run-executor.js';
import { DATABASE_FILE, MIGRATIONS } from '../../src/server/store/database.js';
import { requires } from '../helpers/requires.js';
import { readEvents } from './helpers/sse.js';
import { randreadSpec, startServer, type TestServer } from './helpers/server.js';

const needs = requires('tmpfs');

describe('stored results', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join('/dev/shm', `volbench-api-store-${process.pid}-`));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('print byte for byte as the original in json, json+ and normal', async () => {
    const result = await runJobs({
      global: { directory: dir, size: '4m', direct: 1 },
      jobs: [{ name: 'rw', rw: 'randrw', bs: '4k', runtime: '1s', time_based: 1 }, { name: 'seq', rw: 'read', bs: '128k', stonewall: 1 }],
    });
    const stored = JSON.parse(storedResult(result));
    for (const format of ['json', 'json+', 'normal'] as const) {
      expect(formatResult(stored, format)).toBe(formatResult(result, format));
    }
  });
});

describe('--keep-runs', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ keepRuns: 2 });
  });
  afterAll(async () => server?.close());

  it('keeps the newest ended runs and deletes older ones with their events', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await server.client.submit({ jobs: [{ name: `n${i}`, rw: 'read', bs: '4k', size: '1m', ioengine: 'null' }] }, '?wait=10');
      expect(res.body.status).toBe('finished');
      ids.push(res.body.id);
    }
    const listed = (await server.client.get('/v1/runs')).body.runs.map((r: { id: string }) => r.id);
    expect(listed).toEqual([ids[2], ids[1]]);
    expect((await server.client.get(`/v1/runs/${ids[0]}`)).status).toBe(404);
    const events = await readEvents(`${server.url}/v1/runs/${ids[0]}/events`, { authorization: `Bearer ${server.token}` });
    expect(events.status).toBe(404);
  });

  it('also bounds runs that end without running: cancelled while queued', async () => {
    const running = await server.client.submit(randreadSpec({ runtime: '30s' }));
    await server.client.waitForStatus(running.body.id, 'running');
    const queued: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await server.client.submit(randreadSpec());
      expect(res.body.status).toBe('queued');
      queued.push(res.body.id);
    }
    for (const id of queued) expect((await server.client.request('DELETE', `/v1/runs/${id}`)).body.status).toBe('cancelled');
    const listed = (await server.client.get('/v1/runs')).body.runs.map((r: { id: string }) => r.id);
    expect(listed).toEqual([queued[2], queued[1], running.body.id]);
    await server.client.request('DELETE', `/v1/runs/${running.body.id}`);
  });
});

describe('a database from before suites and gates', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), `volbench-api-migrate-${process.pid}-`));
    const db = new Connection(join(dataDir, DATABASE_FILE));
    db.exec(MIGRATIONS[0]);
    db.pragma('user_version = 1');
    db.prepare(
      `INSERT INTO runs (id, status, spec, roots, queue_keys, created_at, finished_at)
       VALUES ('old', 'finished', '{"jobs":[{"name":"x"}]}', '[]', '[]', 1, 2)`,
    ).run();
    db.close();
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is migrated on start: its runs read back with no suite, no assertions and no gate', async () => {
    const server = await startServer({ dataDir });
    try {
      const run = await server.client.get('/v1/runs/old');
      expect(run.status).toBe(200);
      expect(run.body).toMatchObject({ status: 'finished', spec: { jobs: [{ name: 'x' }] }, suite: null, assert: [], assertions: [], gate: null });
    } finally {
      await server.close();
    }
  });
});

describe('one service per data directory', () => {
  it('refuses a second one naming --data-dir, and starts once the first has closed', async () => {
    const first = await startServer();
    try {
      const err = await buildServer({ dataDir: first.dataDir, token: 't', targetRoots: [first.root] }).then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(VolbenchError);
      expect(err).toMatchObject({ field: '--data-dir' });
      expect((err as Error).message).toContain('in use by another volbench serve');
      // The first one is untouched and still serves.
      expect((await first.client.get('/v1/healthz')).status).toBe(200);
      await first.app.close();
      const second = await buildServer({ dataDir: first.dataDir, token: 't', targetRoots: [first.root] });
      await second.close();
    } finally {
      await first.close();
    }
  });
});
