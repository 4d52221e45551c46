/**
 * `volbench report` and `compare` on the run record a service answers `POST /v1/runs?wait=`
 * with, saved to a file as docs/output.md shows.
 *
 * Broke: both refused it ("holds no fio JSON result"): the result is under the record's
 * `result`. Expected: they read it as the result it holds; a record without a result (a run
 * cancelled before it started) is refused naming the run and its status.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { volbench } from '../helpers/cli.js';
import { randreadSpec, startServer, type TestServer } from '../api/helpers/server.js';
import { requires } from '../helpers/requires.js';

const needs = requires('child', 'tmpfs');

let server: TestServer;
const dir = mkdtempSync(join(tmpdir(), 'volbench-run-records-'));
const files: Record<string, string> = {};

beforeAll(async () => {
  server = await startServer();
  for (const name of ['a', 'b']) {
    const res = await server.client.submit(randreadSpec(), '?wait=30');
    expect(res.status).toBe(200);
    files[name] = join(dir, `${name}.json`);
    writeFileSync(files[name], res.text);
  }
  // A run that holds the queue, and one cancelled behind it before it started: no result.
  const long = await server.client.submit(randreadSpec({ runtime: '30s' }));
  const queued = await server.client.submit(randreadSpec());
  const cancelled = await server.client.request('DELETE', `/v1/runs/${queued.body.id}`);
  files.cancelled = join(dir, 'cancelled.json');
  writeFileSync(files.cancelled, cancelled.text);
  await server.client.request('DELETE', `/v1/runs/${long.body.id}`);
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('saved run records', () => {
  it('volbench report reads them as the results they hold', async () => {
    const out = await volbench(['report', files.a, files.b, '--format', 'json']);
    expect(out.code, out.stderr).toBe(0);
    const rows = JSON.parse(out.stdout).groups[0].rows;
    // Rows are named by their target (no volume named); each keeps the file it came from.
    expect(rows.map((r: { source: string }) => r.source)).toEqual([files.a, files.b]);
    expect(rows[0].label).not.toBe(rows[1].label);
    for (const row of rows) expect(row.cells['rr:read:iops'].value).toBeGreaterThan(0);
  });

  it('volbench compare pairs their jobs', async () => {
    const out = await volbench(['compare', files.a, files.b, '--tolerance', '1000%']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/^rr +read +iops/m);
  });

  it('a record without a result is refused naming the run and its status', async () => {
    const out = await volbench(['report', files.cancelled]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/is the record of run [\w-]+, cancelled without a result/);
  });
});
