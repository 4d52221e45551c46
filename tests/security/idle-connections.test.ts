/**
 * Regression (security review, fourth round, LOW 9): 20,600 idle connections that never sent a
 * byte used up every descriptor the service had (20,000), and /v1/healthz failed until Node
 * dropped them about a minute later; any client could do it again. Expected: connections are
 * capped below the descriptor limit, a new one takes the place of the oldest that has sent
 * nothing, and one that sends nothing is closed after a short while. Scaled down: a serve with
 * 400 descriptors (a cap of 300 connections) and 600 idle sockets; /v1/healthz answers at once.
 */
import { connect, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildServer } from '../../src/server/http/app.js';
import { ensureBuilt, spawnServe, waitForExit, type ServeChild } from '../api/helpers/child.js';
import { requires } from '../helpers/requires.js';

const needs = requires('child', 'tmpfs', 'prlimit', 'serial');

const token = `idle-${process.pid}`;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** `count` TCP connections to `url`'s host and port that send nothing; resolves once each connected or failed. */
async function idleSockets(url: string, count: number): Promise<Socket[]> {
  const { hostname, port } = new URL(url);
  const sockets: Socket[] = [];
  await Promise.all(Array.from({ length: count }, () => new Promise<void>((resolve) => {
    const s = connect(Number(port), hostname, () => resolve());
    s.on('error', () => resolve());
    s.on('close', () => resolve());
    sockets.push(s);
  })));
  return sockets;
}

async function healthz(url: string): Promise<{ status: number; ms: number }> {
  const started = Date.now();
  try {
    const res = await fetch(`${url}/v1/healthz`, { signal: AbortSignal.timeout(5000) });
    return { status: res.status, ms: Date.now() - started };
  } catch {
    return { status: 0, ms: Date.now() - started };
  }
}

const reason = needs.missing('prlimit');

describe.skipIf(reason !== undefined)(`idle connections past the descriptor limit${reason ? ` (skipped: ${reason})` : ''}`, () => {
  let serving: ServeChild | null = null;
  const data = mkdtempSync(join('/dev/shm', `volbench-idle-${process.pid}-`));
  beforeAll(() => ensureBuilt(), 120_000);
  afterAll(async () => {
    serving?.child.kill('SIGKILL');
    if (serving) await waitForExit(serving.child);
    rmSync(data, { recursive: true, force: true });
  });

  it('/v1/healthz answers while 600 silent sockets hold a serve of 400 descriptors', async () => {
    serving = await spawnServe(['--data-dir', join(data, 'data'), '--target-root', data, '--token', token], {}, 400);
    const sockets = await idleSockets(serving.url, 600);
    try {
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push(await healthz(serving.url));
      console.log(`healthz with 600 idle sockets: ${answers.map((a) => `${a.status} in ${a.ms} ms`).join(', ')}`);
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
      const metrics = await (await fetch(`${serving.url}/v1/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
      const open = Number(/^volbench_connections (\d+)/m.exec(metrics)?.[1]);
      expect(open).toBeLessThanOrEqual(300);
      expect(Number(/^volbench_connections_dropped (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(300);
    } finally {
      sockets.forEach((s) => s.destroy());
    }
  }, 60_000);
});

describe('a connection that sends nothing', () => {
  it('is closed after the silent timeout; one that talks stays', async () => {
    const dir = mkdtempSync(join('/dev/shm', `volbench-silent-${process.pid}-`));
    const app = await buildServer({ dataDir: join(dir, 'data'), token, targetRoots: [dir], silentTimeoutMs: 300, logger: false });
    try {
      const url = await app.listen({ host: '127.0.0.1', port: 0 });
      const [silent, talker] = await idleSockets(url, 2);
      talker.write('GET /v1/healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      const closed = new Promise<boolean>((resolve) => silent.once('close', () => resolve(true)));
      expect(await Promise.race([closed, sleep(3000).then(() => false)])).toBe(true);
      expect(talker.destroyed).toBe(false);
      talker.destroy();
    } finally {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
