/**
 * Closing the service while clients follow or wait on a queued run: the close completes, the
 * event stream ends (to be resumed with Last-Event-ID after a restart), a ?wait answers 202,
 * and the queued run stays queued in the store for the next start-up.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';

import { Connection } from '../../src/server/store/sqlite.js';
import { requires } from '../helpers/requires.js';
import { afterAll, describe, expect, it } from 'vitest';

import { randreadSpec, startServer, type TestServer } from './helpers/server.js';
import { readEvents } from './helpers/sse.js';

const needs = requires('tmpfs');

let server: TestServer;
afterAll(() => {
  if (!server) return;
  rmSync(server.dataDir, { recursive: true, force: true });
  rmSync(server.root, { recursive: true, force: true });
});

describe('closing with a queued run followed', () => {
  it('ends its event stream and its ?wait, and leaves it queued', async () => {
    server = await startServer({ maxConcurrent: 1 });
    const running = await server.client.submit(randreadSpec({ runtime: '30s' }));
    await server.client.waitForStatus(running.body.id, 'running');
    const queued = await server.client.submit(randreadSpec());
    expect(queued.body.status).toBe('queued');
    const auth = { authorization: `Bearer ${server.token}` };
    const stream = readEvents(`${server.url}/v1/runs/${queued.body.id}/events`, auth, { timeoutMs: 20_000 });
    const wait = server.client.submit(randreadSpec(), '?wait=60');
    // Let the stream and the wait reach the server before it closes.
    await new Promise((r) => setTimeout(r, 300));

    const started = performance.now();
    await server.app.close();
    expect(performance.now() - started).toBeLessThan(5000);

    const { events } = await stream;
    expect(events.map((e) => e.event)).toEqual(['queued']);
    const waited = await wait;
    expect(waited.status).toBe(202);
    expect(waited.body.status).toBe('queued');

    const db = new Connection(join(server.dataDir, 'volbench.sqlite'), { readOnly: true });
    try {
      const status = (id: string) => (db.prepare('SELECT status FROM runs WHERE id = ?').get(id) as { status: string }).status;
      expect(status(running.body.id)).toBe('failed');
      expect(status(queued.body.id)).toBe('queued');
      expect(status(waited.body.id)).toBe('queued');
    } finally {
      db.close();
    }
  });
});
