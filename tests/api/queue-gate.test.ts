/**
 * Regression (security review, third round): under load a refused suite submit took 10.6 s
 * (median), because "queue full and no idle device" (429) was decided only after the run was
 * fully planned, every target probed. Expected: the same decision, on the same queue keys, is
 * taken before planning: the keys admission resolves from the run's paths are the keys planning
 * gives it (so the same runs get 429 as before), a full queue refuses a run on a busy device and
 * still takes one whose device is idle, and a request that does not parse is still a 400.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { JobSpec } from '../../src/jobspec/types.js';
import { admitSpec, type AdmissionContext } from '../../src/server/admission/spec-admission.js';
import { limitsOf } from '../../src/server/config.js';
import { closeRoots, resolveRoots, type TargetRoot } from '../../src/server/admission/roots.js';
import { applyOverrides, loadSuite } from '../../src/suites/index.js';
import { requires } from '../helpers/requires.js';
import { startServer, type TestServer } from './helpers/server.js';

const needs = requires('tmpfs');

/** One root on tmpfs and one on the disk under the temp directory: two queue keys. */
const shm = mkdtempSync(join('/dev/shm', `volbench-gate-${process.pid}-`));
const disk = mkdtempSync(join(tmpdir(), `volbench-gate-${process.pid}-`));
afterAll(() => {
  rmSync(shm, { recursive: true, force: true });
  rmSync(disk, { recursive: true, force: true });
});

const small = { rw: 'randread', bs: '4k', size: '1m', runtime: '1s' };

describe('the queue keys resolved before planning', () => {
  let roots: TargetRoot[];
  let ctx: AdmissionContext;
  beforeAll(async () => {
    roots = await resolveRoots([shm, disk]);
    ctx = { roots, reserved: [], limits: limitsOf({ dataDir: disk, token: 't', targetRoots: [shm, disk] }) };
  });
  afterAll(() => closeRoots(roots));

  const specs: Record<string, JobSpec> = {
    'a job on the default root': { jobs: [{ name: 'a', ...small }] },
    'jobs on two roots': { jobs: [{ name: 'a', directory: shm, ...small }, { name: 'b', directory: disk, ...small }] },
    'numjobs on one file': { jobs: [{ name: 'a', filename: join(disk, 'one.dat'), numjobs: 3, ...small }] },
    'a relative filename in a directory': { jobs: [{ name: 'a', directory: disk, filename: 'sub.dat', ...small }] },
    'the null engine beside a file': { jobs: [{ name: 'n', ioengine: 'null', ...small }, { name: 'f', directory: disk, ...small }] },
    'the null engine alone': { jobs: [{ name: 'n', ioengine: 'null', ...small }] },
    'stonewalled stages on both roots': {
      global: { size: '1m', rw: 'randread' },
      jobs: [{ name: 's1', directory: disk }, { name: 's2', stonewall: 1, directory: shm, numjobs: 2 }],
    },
    'the kdiskmark suite': applyOverrides(loadSuite('kdiskmark'), { directory: disk, size: '16m', runtime: '1s' }),
  };

  for (const [what, spec] of Object.entries(specs)) {
    it(`are the planned run's keys: ${what}`, async () => {
      let early: string[] = [];
      const admitted = await admitSpec(spec, roots[0], { ...ctx, queueGate: async (keys) => { early = await keys(); } });
      admitted.plan.release();
      expect(early.length).toBeGreaterThan(0);
      expect(early).toEqual(admitted.queueKeys);
    });
  }
});

describe('a full queue', () => {
  let server: TestServer;
  beforeAll(async () => {
    // Two runs at once at most, one waiting at most.
    server = await startServer({ maxConcurrent: 2, queueLimit: 1, extraRoots: [disk] });
  });
  afterAll(async () => server?.close());

  it('refuses runs on the busy device before planning them, and takes one on an idle device', async () => {
    const long = { jobs: [{ name: 'busy', rw: 'randread', bs: '4k', size: '4m', runtime: '30s', time_based: 1, rate_iops: 50 }] };
    const busy = await server.client.submit(long);
    await server.client.waitForStatus(busy.body.id, 'running');
    const waiting = await server.client.submit(long);
    expect(waiting.body.status).toBe('queued');

    const onBusy = await server.client.submit({ jobs: [{ name: 'a', ...small }] });
    expect(onBusy.status).toBe(429);
    expect(onBusy.body.type).toBe('urn:volbench:problem:queue-full');
    expect(Number(onBusy.headers.get('retry-after'))).toBeGreaterThan(0);
    const suite = await server.client.submit({ suite: 'kdiskmark', size: '16m', runtime: '1s' });
    expect(suite.status).toBe(429);
    // Parsing comes first: a spec that does not parse is refused for what it is.
    const broken = await server.client.submit({ jobs: [{ name: 'a', rw: 'sideways' }] });
    expect(broken.status).toBe(400);
    expect(broken.body.field).toBe('jobs[0].rw');
    // The disk is idle and a second run may go: taken, and it starts at once.
    const idle = await server.client.submit({ jobs: [{ name: 'd', directory: disk, ...small }] });
    expect(idle.status).toBe(202);
    expect((await server.client.waitForEnd(idle.body.id)).status).toBe('finished');

    for (const id of [waiting.body.id, busy.body.id]) await server.client.request('DELETE', `/v1/runs/${id}`);
    await server.client.waitForEnd(busy.body.id);
  }, 60_000);
});
