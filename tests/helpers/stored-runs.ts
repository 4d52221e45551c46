/**
 * Results stored as finished runs in a service's data directory before the service starts,
 * through the service's own store: a report test gets a heavy run without running it. The
 * 64-job fixture is a real 600 s run of the null engine (tests/fixtures/publish/README.md),
 * kept brotli-compressed.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { brotliDecompressSync } from 'node:zlib';

import { openDatabase } from '../../src/server/store/database.js';
import { RunStore } from '../../src/server/store/runs.js';
import type { JobSpec } from '../../src/jobspec/types.js';

const FIXTURE = new URL('../fixtures/publish/jobs64-null-600s.json.br', import.meta.url);

/** fio's JSON of 64 jobs over 600 s (per-second series of each), as the service stores it. */
export function jobs64Result(): string {
  return brotliDecompressSync(readFileSync(FIXTURE)).toString('utf8');
}

/** Stores `result` as a finished run in `dataDir`'s store; the run's id. */
export function storeFinishedRun(dataDir: string, result: string, spec: JobSpec = { jobs: [{ name: 'stored' }] }): string {
  const db = openDatabase(dataDir);
  try {
    const store = new RunStore(db, { keepRuns: 1000, dataDir, logError: (err) => { throw err; } });
    const id = randomUUID();
    const now = Date.now();
    store.insert({
      id, spec, jobFile: null, suite: null, analysis: null, asserts: [], volume: null, defaultRoot: null, roots: [], queueKeys: [], createdAt: now,
    }, { id, status: 'queued' });
    store.markRunning(id, now, { id, status: 'running' });
    store.finish(id, { status: 'finished', finishedAt: now, error: null, result, assertions: [], gate: null }, { id, status: 'finished' });
    store.close();
    return id;
  } finally {
    db.close();
  }
}
