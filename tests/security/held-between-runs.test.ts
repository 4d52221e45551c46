/**
 * Regression (security review, fourth round, MEDIUM 5): a sweep planned each point again by
 * name, and recorded every target a point opened as its own. With the point's directory swapped
 * for a relative link to another directory between points, the later points laid out another
 * user's 10-byte file to 1 MiB, wrote it, and the sweep's unlink=1 removed it. A suite, whose
 * tests are runs of their own, did the same. Expected: later points and tests are planned beneath
 * the directory the first one used (held open) and against the file it laid out; they refuse a
 * file that is not it, and only what a layout created is ever removed: the other user's file
 * keeps its 10 bytes.
 */
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runSuite, runSweep } from '../../src/index.js';
import { startServer, type TestServer } from '../api/helpers/server.js';
import { requires } from '../helpers/requires.js';
import { ScratchDir } from '../helpers/run-fixtures.js';

// root: the other user's file is chowned to nobody.
requires('tmpfs', 'root');

const PRECIOUS = 'ten bytes!';
const scratch = new ScratchDir('held-between');
afterAll(() => scratch.remove());

/** A directory `d` for the runs and another user's 0600 file at victims/`name`. */
function place(label: string, name: string): { root: string; victim: string } {
  const root = scratch.path(label);
  mkdirSync(join(root, 'd'), { recursive: true });
  mkdirSync(join(root, 'victims'));
  const victim = join(root, 'victims', name);
  writeFileSync(victim, PRECIOUS);
  chownSync(victim, 65534, 65534);
  chmodSync(victim, 0o600);
  return { root, victim };
}

/** `d` swapped for a relative link to `to`. */
function swap(root: string, to = 'victims'): void {
  renameSync(join(root, 'd'), join(root, 'd.moved'));
  symlinkSync(to, join(root, 'd'));
}

describe('a sweep whose directory is swapped for a relative link after its first point', () => {
  it('neither lays out, writes nor removes the other user\'s file', async () => {
    const { root, victim } = place('sweep', 'x.dat');
    const errors: string[] = [];
    const result = await runSweep({ jobs: [{ name: 's', rw: 'write', bs: '64k', size: '1m', filename: join(root, 'd', 'x.dat'), unlink: 1, runtime: '100ms', time_based: 1 }] }, {
      over: 'iodepth', maxDepth: 4,
      onPoint: (e) => {
        if (e.point === 1 && e.figures !== undefined) swap(root);
      },
    }).catch((err: unknown) => {
      errors.push(String(err));
      return null;
    });
    expect(statSync(victim).size).toBe(PRECIOUS.length);
    expect(readFileSync(victim, 'utf8')).toBe(PRECIOUS);
    // The later points ran on the sweep's own file, beneath the directory the first one used.
    expect(errors).toEqual([]);
    expect(result?.volbench.sweep?.points.map((p) => p.value)).toEqual([1, 2, 4]);
    expect(statSync(join(root, 'd.moved', 'x.dat')).size).toBe(1024 * 1024);
  });
});

describe('a suite whose directory is swapped for a relative link after its first test', () => {
  it('neither lays out, writes nor removes the other user\'s file', async () => {
    const { root, victim } = place('suite', 'kdiskmark.tmp');
    const result = await runSuite('kdiskmark', {
      directory: join(root, 'd'), size: '4m', runtime: 1, loops: 1,
      onTest: (e) => {
        if (e.test === 2) swap(root);
      },
    });
    expect(statSync(victim).size).toBe(PRECIOUS.length);
    expect(readFileSync(victim, 'utf8')).toBe(PRECIOUS);
    // Every test ran, on the suite's own file in the directory it started in, which each
    // test's unlink=1 removed there.
    expect(result.jobs.map((j) => j.error)).toEqual(result.jobs.map(() => 0));
    expect(result.jobs.length).toBeGreaterThan(2);
    expect(existsSync(join(root, 'd.moved', 'kdiskmark.tmp'))).toBe(false);
  }, 30_000);
});

/**
 * Regression (fourth round, INFO 11): a queued run was planned again by name when it started,
 * so its directory, swapped for a link to another directory of the root while it waited, was
 * followed: another directory's log was emptied. Expected: the run starts beneath the directory
 * it was admitted in (held from admission); the other log keeps its text.
 */
describe('a queued run whose directory is swapped for a link while it waits', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ maxRuntimeSec: 30 });
  });
  afterAll(async () => server?.close());

  it('starts beneath the directory it was admitted in', async () => {
    const { root } = server;
    mkdirSync(join(root, 'd'));
    mkdirSync(join(root, 'other'));
    const otherLog = join(root, 'other', 'keep_bw.1.log');
    writeFileSync(otherLog, 'another run\'s log\n');
    const first = await server.client.submit({ jobs: [{ name: 'a', rw: 'write', bs: '64k', size: '1m', filename: join(root, 'a.dat'), time_based: 1, runtime: '1s' }] });
    const queued = await server.client.submit({ jobs: [{
      name: 'b', rw: 'write', bs: '64k', size: '1m', filename: join(root, 'd', 'x.dat'), write_bw_log: join(root, 'd', 'keep'), log_avg_msec: 100,
    }] });
    expect(queued.status).toBe(202);
    expect((await server.client.get(`/v1/runs/${queued.body.id}`)).body.status).toBe('queued');
    swap(root, 'other');
    await server.client.waitForEnd(first.body.id);
    const run = await server.client.waitForEnd(queued.body.id);
    expect(readFileSync(otherLog, 'utf8')).toBe('another run\'s log\n');
    expect(existsSync(join(root, 'other', 'x.dat'))).toBe(false);
    expect(run.status).toBe('finished');
    expect(statSync(join(root, 'd.moved', 'x.dat')).size).toBe(1024 * 1024);
    expect(existsSync(join(root, 'd.moved', 'keep_bw.1.log'))).toBe(true);
  });
});
