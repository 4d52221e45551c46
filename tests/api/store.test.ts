/**
 * What the store keeps: fio's JSON stored and read back prints exactly as the library's own
 * result does in every format, and --keep-runs deletes the oldest ended runs with their events.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { formatResult, runJobs } from '../../src/index.js';
import { storedResult } from '../../src/server/run-executor.js';
import { readEvents } from './helpers/sse.js';
import { startServer, type TestServer } from './helpers/server.js';

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
});
