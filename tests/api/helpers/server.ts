/**
 * A real server on 127.0.0.1 and a free port, with its own data directory and target root, and
 * a small client for it. Each test file starts its own; close() removes everything it made.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { FastifyInstance } from 'fastify';

import { buildServer } from '../../../src/server/http/app.js';
import type { ServerConfig } from '../../../src/server/config.js';

export interface TestServer {
  app: FastifyInstance;
  url: string;
  token: string;
  dataDir: string;
  /** The default target root: a fresh directory on /dev/shm (tmpfs takes O_DIRECT). */
  root: string;
  client: ApiClient;
  close(): Promise<void>;
}

export interface StartOptions extends Partial<ServerConfig> {
  /** Extra roots after the default one. */
  extraRoots?: string[];
  /** Called with the app before it listens, while hooks may still be added. */
  beforeListen?: (app: FastifyInstance) => void;
}

export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), `volbench-api-data-${process.pid}-`));
  const root = mkdtempSync(join('/dev/shm', `volbench-api-root-${process.pid}-`));
  const token = `test-token-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const { extraRoots = [], beforeListen, ...config } = options;
  const app = await buildServer({ dataDir, token, targetRoots: [root, ...extraRoots], ...config });
  beforeListen?.(app);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    app,
    url,
    token,
    dataDir,
    root,
    client: new ApiClient(url, token),
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  body: any;
}

export class ApiClient {
  constructor(readonly url: string, readonly token: string | null) {}

  withToken(token: string | null): ApiClient {
    return new ApiClient(this.url, token);
  }

  async request(method: string, path: string, init: { json?: unknown; text?: string; headers?: Record<string, string> } = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...(this.token ? { authorization: `Bearer ${this.token}` } : {}), ...init.headers };
    let body: string | undefined;
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers['content-type'] ??= 'application/json';
    } else if (init.text !== undefined) {
      body = init.text;
      headers['content-type'] ??= 'text/plain';
    }
    const res = await fetch(`${this.url}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, text, body: parsed };
  }

  get(path: string): Promise<ApiResponse> {
    return this.request('GET', path);
  }

  submit(spec: unknown, query = ''): Promise<ApiResponse> {
    return this.request('POST', `/v1/runs${query}`, { json: spec });
  }

  /** Polls the run until it has ended (bounded: a test never hangs here). */
  async waitForEnd(id: string, timeoutMs = 30_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const res = await this.get(`/v1/runs/${id}`);
      if (['finished', 'failed', 'cancelled'].includes(res.body?.status)) return res.body;
      if (Date.now() > deadline) throw new Error(`run ${id} still ${res.body?.status} after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Polls until the run is running. */
  async waitForStatus(id: string, status: string, timeoutMs = 15_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const res = await this.get(`/v1/runs/${id}`);
      if (res.body?.status === status) return res.body;
      if (Date.now() > deadline) throw new Error(`run ${id} is ${res.body?.status}, not ${status}, after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** A short 4k random read job on the default root: enough I/O to report, quick to run. */
export function randreadSpec(options: Record<string, string | number | boolean> = {}): { global: Record<string, string | number | boolean>; jobs: Array<Record<string, string | number | boolean>> } {
  return {
    global: { size: '8m', direct: 1 },
    jobs: [{ name: 'rr', rw: 'randread', bs: '4k', runtime: '1s', time_based: 1, ...options }],
  };
}
