/**
 * The service, device and package projects' global setup: the costly fixtures, made at most once per run
 * and handed to every test file that asks (tests/helpers/fixtures.ts), each only when first asked:
 *
 * - `moto`: a moto server for each worker process (`moto/<VITEST_POOL_ID>`), so the two files the
 *   service project runs at once never share one (each file resets its worker's before use);
 * - `tarball`: npm pack of this checkout (scripts/artefacts.mjs: kept in VOLBENCH_CACHE by its inputs);
 * - `bundle-x64`, `bundle-arm64`: npm run bundle of that tarball (kept the same way);
 * - `lambda-x64`, `lambda-arm64`: npm run package:lambda of that tarball (kept the same way).
 *
 * It is a small HTTP service on loopback in vitest's own process, shared by the projects of a run
 * (they run one after the other), so a file that needs none of them costs nothing.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { TestProject } from 'vitest/node';

import { bundle, lambdaZip, tarball } from '../../scripts/artefacts.mjs';
import { startMoto } from '../harness/moto.js';

export type FixtureName = `moto/${number}` | 'tarball' | 'bundle-x64' | 'bundle-arm64' | 'lambda-x64' | 'lambda-arm64';

interface Service {
  url: Promise<string>;
  users: number;
  close(): Promise<void>;
}

const SHARED = Symbol.for('volbench.fixture-service');

function start(): Service {
  const made = new Map<FixtureName, Promise<{ value: string; reused?: boolean }>>();
  const motos: Array<{ endpoint: string; stop(): Promise<void> }> = [];
  const startOne = async () => {
    const moto = await startMoto();
    motos.push(moto);
    return { value: moto.endpoint };
  };
  const makers: Record<Exclude<FixtureName, `moto/${number}`>, () => Promise<{ value: string; reused?: boolean }>> = {
    tarball: async () => {
      const t = await tarball();
      return { value: t.path, reused: t.reused };
    },
    'bundle-x64': async () => {
      const b = await bundle('x64');
      return { value: b.dir, reused: b.reused };
    },
    'bundle-arm64': async () => {
      const b = await bundle('arm64');
      return { value: b.dir, reused: b.reused };
    },
    'lambda-x64': async () => {
      const z = await lambdaZip('x64');
      return { value: z.path, reused: z.reused };
    },
    'lambda-arm64': async () => {
      const z = await lambdaZip('arm64');
      return { value: z.path, reused: z.reused };
    },
  };
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const name = (req.url ?? '').slice(1) as FixtureName;
    // A worker's moto: vitest numbers its workers from 1 to the pool's size.
    const worker = /^moto\/[1-9]\d{0,2}$/.test(name);
    if (req.method !== 'POST' || !(worker || Object.hasOwn(makers, name))) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `no fixture ${req.url}` }));
      return;
    }
    if (!made.has(name)) made.set(name, worker ? startOne() : makers[name as keyof typeof makers]());
    try {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(await made.get(name)));
    } catch (err) {
      // A failed build is reported to every file that asks, with the build's own message.
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `${name}: ${(err as Error).message}` }));
    }
  };
  const server: Server = createServer((req, res) => void answer(req, res));
  // A bundle takes minutes on a loaded machine: no timeout of the server's own.
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  const url = new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
  return {
    url,
    users: 0,
    async close() {
      // moto first and whatever the server does: a close that outlived vitest's teardown once
      // left moto running after the run.
      const stopping = Promise.all(motos.map((m) => m.stop()));
      server.closeAllConnections();
      await Promise.race([new Promise((resolve) => server.close(resolve)), new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
      await stopping;
    },
  };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const shared = globalThis as unknown as Record<symbol, Service | undefined>;
  const service = (shared[SHARED] ??= start());
  service.users += 1;
  project.provide('volbenchFixtures', await service.url);
  return async () => {
    service.users -= 1;
    if (service.users > 0) return;
    shared[SHARED] = undefined;
    await service.close();
  };
}
