/**
 * Where runs may do I/O. Paths are refused on their text (.., NUL, relative: 400) and, once
 * resolved with every symlink followed, must fall under a target root (403 naming the path).
 * Block devices are usable only through a root naming the device, and written only when the
 * server allows it. The server's own data directory is off limits even inside a root.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import { attachLoop, type LoopDevice } from './helpers/loop.js';
import { expectRefused } from './helpers/refused.js';
import { randreadSpec, startServer, type TestServer } from './helpers/server.js';

const needs = requires('child', 'tmpfs', 'loop');

const MiB = 1024 * 1024;

let server: TestServer;
let outside: string;
beforeAll(async () => {
  server = await startServer();
  outside = mkdtempSync(join('/dev/shm', `volbench-api-outside-${process.pid}-`));
});
afterAll(async () => {
  await server?.close();
  rmSync(outside, { recursive: true, force: true });
});

function job(options: Record<string, string | number | boolean>) {
  return { global: { size: '1m', runtime: '1s' }, jobs: [{ name: 'p', rw: 'write', bs: '4k', ...options }] };
}

function refused(spec: unknown, status: number, field: string) {
  return expectRefused(server.client, () => server.client.submit(spec), status, field);
}

describe('path text', () => {
  it('refuses .. components with 400, even when they would land inside the root', async () => {
    await refused(job({ filename: `${server.root}/../${server.root.split('/').pop()}/f` }), 400, 'jobs[0].filename');
    await refused(job({ directory: `${server.root}/a/..` }), 400, 'jobs[0].directory');
    await refused(job({ name: '../escape' }), 400, 'jobs[0].name');
  });

  it('refuses NUL bytes with 400', async () => {
    await refused(job({ filename: `${server.root}/a\u0000b` }), 400, 'jobs[0].filename');
  });

  it('refuses relative directories, and relative filenames without a directory, with 400', async () => {
    await refused(job({ directory: 'data' }), 400, 'jobs[0].directory');
    await refused(job({ filename: 'vb.bin' }), 400, 'jobs[0].filename');
  });

  it('names a global option by its global path', async () => {
    const body = await refused({ global: { filename: '/etc/volbench-test' }, jobs: [{ name: 'g', rw: 'read', size: '1m' }] }, 403, 'global.filename');
    expect(body.detail).toContain('/etc/volbench-test');
  });
});

describe('several files per job: each checked as a job\'s one target', () => {
  it('refuses a file list or directory list with one path outside the roots, creating nothing', async () => {
    const body = await refused(job({ filename: `${join(server.root, 'ok.dat')}:${outside}/second` }), 403, 'jobs[0].filename');
    expect(body.detail).toContain(`${outside}/second`);
    await refused(job({ directory: `${server.root}:${outside}`, numjobs: 2 }), 403, 'jobs[0].directory');
    await refused(job({ filename: `${join(server.root, 'ok.dat')}:${server.root}/../x` }), 400, 'jobs[0].filename');
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync(join(server.root, 'ok.dat'))).toBe(false);
  });

  it('runs nrfiles files in a root, each laid out and read', async () => {
    const dir = join(server.root, 'several');
    mkdirSync(dir);
    const res = await server.client.submit(randreadSpec({ directory: dir, nrfiles: 2, size: '2m', time_based: 0 }), '?wait=30');
    expect(res.status).toBe(200);
    expect(res.body.result.jobs[0].read.total_ios).toBe(512);
    expect(readdirSync(dir).sort()).toEqual(['rr.0.0', 'rr.0.1']);
  });
});

describe('resolved paths', () => {
  it('refuses a path outside every root with 403 naming it', async () => {
    const body = await refused(job({ filename: `${outside}/f` }), 403, 'jobs[0].filename');
    expect(body.detail).toContain(`${outside}/f`);
    expect(existsSync(`${outside}/f`)).toBe(false);
  });

  it('refuses a symlink inside the root that points outside (403), without saying where it resolves', async () => {
    symlinkSync(outside, join(server.root, 'escape'));
    const body = await refused(job({ directory: join(server.root, 'escape') }), 403, 'jobs[0].directory');
    expect(body.detail).toContain(`${join(server.root, 'escape')} (through a symbolic link) is not under a target root`);
    expect(body.detail).not.toContain(outside);
    symlinkSync(join(outside, 'not-yet'), join(server.root, 'dangling'));
    await refused(job({ filename: join(server.root, 'dangling') }), 403, 'jobs[0].filename');
    expect(existsSync(join(outside, 'not-yet'))).toBe(false);
  });

  it("never echoes where an outside path resolves: /proc/self/fd/N would tell the store's path", async () => {
    // The service holds its database open; one of its fds resolves into the data dir.
    const body = await refused(job({ filename: '/proc/self/fd/20' }), 403, 'jobs[0].filename');
    expect(body.detail).not.toContain(server.dataDir);
    expect(body.detail).not.toMatch(/resolves to/);
    // A symlink inside the root whose resolution fails outside: the reason, not the place.
    const elsewhere = mkdtempSync(join('/dev/shm', `volbench-api-elsewhere-${process.pid}-`));
    try {
      symlinkSync(join(elsewhere, 'file-not-dir', 'x'), join(server.root, 'broken'));
      writeFileSync(join(elsewhere, 'file-not-dir'), '');
      const broken = await refused(job({ filename: join(server.root, 'broken') }), 422, 'jobs[0].filename');
      expect(broken.detail).toContain('a component of the path is not a directory');
      expect(broken.detail).not.toContain(elsewhere);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('refuses a job name that makes a file outside the root through a symlinked directory', async () => {
    mkdirSync(join(server.root, 'sub'));
    symlinkSync(outside, join(server.root, 'sub', 'link'));
    await refused(job({ directory: join(server.root, 'sub'), name: 'link/x' }), 403, 'jobs[0].directory');
  });

  it('accepts a symlink that stays inside the root', async () => {
    mkdirSync(join(server.root, 'real'));
    symlinkSync(join(server.root, 'real'), join(server.root, 'alias'));
    const res = await server.client.submit(randreadSpec({ directory: join(server.root, 'alias') }), '?wait=30');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('finished');
    expect(existsSync(join(server.root, 'real', 'rr.0.0'))).toBe(true);
  });

  it('writes log files under the default root, and refuses log prefixes outside the roots', async () => {
    const res = await server.client.submit(randreadSpec({ write_bw_log: 'rr-log', log_avg_msec: 500 }), '?wait=30');
    expect(res.body.status).toBe('finished');
    expect(existsSync(join(server.root, 'rr-log_bw.1.log'))).toBe(true);
    await refused(job({ write_lat_log: `${outside}/lat` }), 403, 'jobs[0].write_lat_log');
    expect(existsSync(`${outside}/lat_lat.1.log`)).toBe(false);
  });

  it('refuses a log prefix whose log file exists and is not a regular file', async () => {
    execFileSync('mkfifo', [join(server.root, 'fifo_bw.1.log')]);
    const body = await refused(randreadSpec({ write_bw_log: 'fifo', log_avg_msec: 500 }), 403, 'jobs[0].write_bw_log');
    expect(body.type).toBe('urn:volbench:problem:log-not-a-file');
  });

  it('checks a queued run\'s paths again as it starts: a directory swapped for a symlink out fails it', async () => {
    const first = await server.client.submit(randreadSpec({ runtime: '1500ms' }));
    await server.client.waitForStatus(first.body.id, 'running');
    const swapped = join(server.root, 'swapped');
    mkdirSync(swapped);
    // Same device as the first run: it waits in the queue.
    const queued = await server.client.submit(job({ directory: swapped }));
    expect(queued.body.status).toBe('queued');
    rmSync(swapped, { recursive: true });
    symlinkSync(outside, swapped);
    const run = await server.client.waitForEnd(queued.body.id);
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ status: 403, type: 'urn:volbench:problem:path-outside-roots', field: 'jobs[0].directory' });
    expect(readdirSync(outside)).toEqual([]);
    expect((await server.client.waitForEnd(first.body.id)).status).toBe('finished');
  });

  it('puts a job without filename or directory in the first root', async () => {
    const res = await server.client.submit({ global: { size: '1m', runtime: '1s' }, jobs: [{ name: 'defaulted', rw: 'write', bs: '4k' }] }, '?wait=30');
    expect(res.body.status).toBe('finished');
    expect(res.body.result.volbench.targets[0].path).toBe(join(server.root, 'defaulted.0.0'));
  });

  it("refuses a hard link inside a root to a file of the server's data directory", async () => {
    // The reserved check compared paths only: another name for the same inode passed it.
    const parent = mkdtempSync(join('/dev/shm', `volbench-api-links-${process.pid}-`));
    mkdirSync(join(parent, 'root'));
    const inner = await startServer({ dataDir: join(parent, 'data'), targetRoots: [join(parent, 'root')] });
    try {
      linkSync(join(parent, 'data', 'volbench.sqlite'), join(parent, 'root', 'innocent.dat'));
      const res = await inner.client.submit(job({ filename: join(parent, 'root', 'innocent.dat') }));
      expect(res.status).toBe(403);
      expect(res.body.type).toBe('urn:volbench:problem:reserved-path');
    } finally {
      await inner.close();
      rmSync(parent, { recursive: true, force: true });
    }
  });

  it("keeps runs out of the server's data directory even when a root contains it", async () => {
    const parent = mkdtempSync(join('/dev/shm', `volbench-api-parent-${process.pid}-`));
    const inner = await startServer({ dataDir: join(parent, 'data'), targetRoots: [parent] });
    try {
      const res = await inner.client.submit(job({ filename: join(parent, 'data', 'volbench.sqlite') }));
      expect(res.status).toBe(403);
      expect(res.body.type).toBe('urn:volbench:problem:reserved-path');
    } finally {
      await inner.close();
      rmSync(parent, { recursive: true, force: true });
    }
  });
});

const loopSkip = needs.missing('loop');

describe.skipIf(loopSkip !== undefined)(`block devices${loopSkip ? `: skipped, ${loopSkip}` : ''}`, () => {
  let readOnly: LoopDevice;
  let writable: LoopDevice;
  let devices: TestServer;
  beforeAll(async () => {
    readOnly = attachLoop(16 * MiB);
    writable = attachLoop(16 * MiB);
    devices = await startServer({ extraRoots: [readOnly.device, writable.device], allowBlockWrite: [writable.device] });
  });
  afterAll(async () => {
    await devices?.close();
    readOnly?.release();
    writable?.release();
  });

  const rawJob = (filename: string, rw: string) => ({ jobs: [{ name: 'dev', filename, rw, bs: '4k', size: '1m', direct: 1, runtime: '1s' }] });

  it('reads a device a root names', async () => {
    const res = await devices.client.submit(rawJob(readOnly.device, 'randread'), '?wait=30');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('finished');
  });

  it('refuses writes to a device root without --allow-block-write, whatever the spec says', async () => {
    const spec = rawJob(readOnly.device, 'randwrite');
    (spec.jobs[0] as Record<string, unknown>).allow_block_write = 1;
    const res = await devices.client.submit(spec);
    expect(res.status).toBe(403);
    expect(res.body.type).toBe('urn:volbench:problem:block-write-not-allowed');
    expect(res.body.field).toBe('jobs[0].rw');
  });

  it('writes a device allowed by --allow-block-write', async () => {
    const res = await devices.client.submit(rawJob(writable.device, 'randwrite'), '?wait=30');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('finished');
    expect(res.body.result.jobs[0].write.total_ios).toBeGreaterThan(0);
  });

  it('refuses a block device that no root names, even through a symlink under a directory root', async () => {
    const stray = attachLoop(16 * MiB);
    try {
      const link = join(devices.root, 'dev-link');
      symlinkSync(stray.device, link);
      const res = await devices.client.submit(rawJob(link, 'randread'));
      expect(res.status).toBe(403);
      expect(res.body.type).toBe('urn:volbench:problem:path-outside-roots');
      expect(res.body.detail).not.toContain(stray.device);
    } finally {
      stray.release();
    }
  });

  it("refuses writes to a read-only device root's backing file when it sits in a directory root", async () => {
    // The device root may not be written; its image inside the directory root was, before.
    const image = join(devices.root, 'disk.img');
    writeFileSync(image, Buffer.alloc(4 * MiB));
    const loop = execFileSync('losetup', ['-f', '--show', image], { encoding: 'utf8' }).trim();
    const guarded = await startServer({ targetRoots: [devices.root, loop] });
    try {
      const res = await guarded.client.submit(rawJob(image, 'randwrite'));
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'EUNSAFE_TARGET', field: 'jobs[0].filename' });
      expect(res.body.detail).toContain(`backs ${loop}`);
      const read = await guarded.client.submit(rawJob(image, 'randread'), '?wait=30');
      expect(read.body.status).toBe('finished');
    } finally {
      await guarded.close();
      execFileSync('losetup', ['-d', loop]);
      rmSync(image, { force: true });
    }
  });
});
