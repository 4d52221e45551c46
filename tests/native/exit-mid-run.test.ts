/**
 * A program that calls process.exit() while a run is going exits at once with its own status.
 * Node's process.exit() skips the environment's cleanup hooks, so the run's threads are still
 * doing I/O while the process exits: the exit must neither wait for the run (30 s here) nor
 * crash. Each case runs in a fresh Node process through the built library (dist/), which also
 * inherits a sanitizer run's environment (npm run test:asan), so the exit is checked there too.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { ScratchDir, type EngineName } from '../helpers/run-fixtures.js';
import { ROOT } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';

const needs = requires('child', 'tmpfs', 'dist', 'io_uring', 'libaio');

const scratch = new ScratchDir('exit');
afterAll(() => scratch.remove());

const library = join(ROOT, 'dist', 'index.js');

/** A program that starts a 30 s run, waits for its file to be laid out, then calls process.exit(7). */
function exitMidRun(engine: EngineName, path: string): string {
  const job = { name: 'exit', rw: 'randrw', size: '1m', bs: '4k', iodepth: 8, numjobs: 2, time_based: 1, runtime: '30s', ioengine: engine, filename: path };
  return `
    import { existsSync } from 'node:fs';
    import { runJobs } from ${JSON.stringify(library)};
    runJobs({ jobs: [${JSON.stringify(job)}] }, { onProgress: () => {} });
    while (!existsSync(${JSON.stringify(path)})) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 200));
    process.exit(7);
  `;
}

describe('process.exit() during a run', () => {
  for (const engine of ['psync', 'libaio', 'io_uring'] as EngineName[]) {
    const reason = needs.engine(engine);
    it.skipIf(reason !== undefined)(`with ${engine} I/O in flight exits with the program's status, not after the run${reason ? ` (skipped: ${reason})` : ''}`, () => {
      if (!existsSync(library)) throw new Error(`${library} is missing: run "npm run build:ts" first`);
      const path = scratch.path(`${engine}.dat`);
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', exitMidRun(engine, path)], { encoding: 'utf8', timeout: 20_000 });
      expect(r.stderr).toBe('');
      expect(r.signal).toBeNull();
      expect(r.status).toBe(7);
    });
  }
});
