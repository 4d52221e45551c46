/**
 * Regression (security review, third round): names longer than the kernel takes were blamed on
 * the wrong field, or on none. A log prefix whose file name (`<prefix>_bw.1.log`) is over 255
 * bytes was a 422 without a field; a job name of 300 characters (its file `<name>.0.0`) was
 * blamed on `jobs[0].directory`. Expected: 422 (ETARGET) naming the option that made the name
 * long, from the service and from the library alike.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { parseSpec } from '../../src/jobspec/index.js';
import { planRun } from '../../src/plan/index.js';
import { startServer, type TestServer } from '../api/helpers/server.js';
import { requires } from '../helpers/requires.js';

const needs = requires('tmpfs');

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server?.close());

const job = (extra: Record<string, string>) => ({ jobs: [{ name: 'a', rw: 'read', size: '1m', ...extra }] });

describe('a name longer than the kernel takes', () => {
  it('is refused naming the log option whose prefix made it', async () => {
    for (const option of ['write_bw_log', 'write_iops_log', 'write_lat_log']) {
      const res = await server.client.submit(job({ [option]: join(server.root, 'p'.repeat(250)) }));
      expect(res.status, option).toBe(422);
      expect(res.body, option).toMatchObject({ code: 'ETARGET', field: `jobs[0].${option}` });
      expect(res.body.detail).toMatch(/is 2\d\d bytes long, more than the 255 a file name may have/);
    }
  });

  it("is refused naming the job's name when fio names the file after it", async () => {
    const res = await server.client.submit({ jobs: [{ name: 'n'.repeat(300), rw: 'read', size: '1m' }] });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'ETARGET', field: 'jobs[0].name' });
    const file = await server.client.request('POST', '/v1/runs', { text: `[${'n'.repeat(255)}]\nrw=read\nsize=1m\nnumjobs=1\n` });
    expect(file.status).toBe(422);
    expect(file.body.field).toMatch(/jobs\[0\]\.name$/);
    expect(readdirSync(server.root)).toEqual([]);
  });

  it('is refused by the library the same way, before any file is made', async () => {
    const cwd = mkdtempSync(join('/dev/shm', `volbench-names-${process.pid}-`));
    try {
      const named = planRun(parseSpec({ jobs: [{ name: 'n'.repeat(300), rw: 'write', size: '1m' }] }), { cwd });
      await expect(named).rejects.toMatchObject({ code: 'ETARGET', field: 'jobs[0].name' });
      const logged = planRun(parseSpec(job({ write_lat_log: 'l'.repeat(252) })), { cwd });
      await expect(logged).rejects.toMatchObject({ code: 'ETARGET', field: 'jobs[0].write_lat_log' });
      expect(readdirSync(cwd)).toEqual([]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
