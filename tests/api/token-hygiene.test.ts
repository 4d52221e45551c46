/**
 * Regression: the service's credential and what it guards leaked: `--token` stayed readable by
 * every local user in /proc/PID/cmdline, with no warning and no file to give the token in
 * instead; in a data directory that already existed the SQLite files were created 0644 (umask
 * 022), so any local user could read every run; and at VOLBENCH_LOG_LEVEL=info a request URL
 * carrying ?token= was logged whole.
 * Expected: `--token` still works but warns (recommending VOLBENCH_TOKEN or --token-file) and is
 * scrubbed from the process's command line; `--token-file FILE` reads the token once, trimmed,
 * and refuses a file group or others may read; the database, -wal and -shm (and the lock) are
 * 0600 whatever the directory and umask; logged URLs and headers never carry a credential.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { serveConfig } from '../../src/cli/serve-command.js';
import { requires } from '../helpers/requires.js';
import { ensureBuilt, spawnServe, waitForExit } from './helpers/child.js';
import { ApiClient, startServer, type TestServer } from './helpers/server.js';

const needs = requires('child', 'tmpfs');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), `volbench-api-token-${process.pid}-`));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** serveConfig with what it writes to stderr (a root given: serve checks the roots before the token). */
function configFrom(argv: string[], env: NodeJS.ProcessEnv = {}): { token: string; stderr: string } {
  let stderr = '';
  const sink = { write: (text: string) => (stderr += text, true) } as unknown as NodeJS.WriteStream;
  const config = serveConfig(['--data-dir', join(dir, 'data'), '--target-root', dir, ...argv], env, { stdout: sink, stderr: sink });
  return { token: config.token, stderr };
}

describe('--token', () => {
  it('still works, with a warning that recommends VOLBENCH_TOKEN or --token-file', () => {
    const { token, stderr } = configFrom(['--token', 'on-the-command-line']);
    expect(token).toBe('on-the-command-line');
    expect(stderr).toMatch(/warning: --token .*process list/);
    expect(stderr).toContain('VOLBENCH_TOKEN');
    expect(stderr).toContain('--token-file');
  });

  it('VOLBENCH_TOKEN warns about nothing', () => {
    expect(configFrom([], { VOLBENCH_TOKEN: 'from-env' })).toEqual({ token: 'from-env', stderr: '' });
  });

  it('is scrubbed from /proc/PID/cmdline of a running server', async () => {
    ensureBuilt();
    const root = mkdtempSync(join('/dev/shm', `volbench-api-token-root-${process.pid}-`));
    const secret = `cmdline-secret-${process.pid}`;
    const serving = await spawnServe(['--data-dir', join(dir, 'cmdline'), '--target-root', root, '--token', secret]);
    try {
      expect(serving.stderr()).toContain('warning: --token');
      const cmdline = readFileSync(`/proc/${serving.child.pid}/cmdline`, 'utf8');
      expect(cmdline).toContain('--token');
      expect(cmdline).not.toContain(secret);
      expect((await new ApiClient(serving.url, secret).get('/v1/runs')).status).toBe(200);
    } finally {
      serving.child.kill('SIGTERM');
      await waitForExit(serving.child);
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('--token-file', () => {
  const tokenFile = (): string => join(dir, 'token-file');

  it('reads the token once, trimmed, without a warning', () => {
    writeFileSync(tokenFile(), '  from-a-file \n', { mode: 0o600 });
    chmodSync(tokenFile(), 0o600);
    expect(configFrom(['--token-file', tokenFile()])).toEqual({ token: 'from-a-file', stderr: '' });
  });

  it('refuses a file group or others may read, naming it and its mode', () => {
    writeFileSync(tokenFile(), 'loose\n');
    chmodSync(tokenFile(), 0o644);
    expect(() => configFrom(['--token-file', tokenFile()])).toThrow(/--token-file .*token-file.* 0644/);
    chmodSync(tokenFile(), 0o640);
    expect(() => configFrom(['--token-file', tokenFile()])).toThrow(/0640/);
  });

  it('refuses an empty file, a missing one, and --token given as well', () => {
    writeFileSync(tokenFile(), ' \n', { mode: 0o600 });
    chmodSync(tokenFile(), 0o600);
    expect(() => configFrom(['--token-file', tokenFile()])).toThrow(/no token/);
    expect(() => configFrom(['--token-file', join(dir, 'missing')])).toThrow(/--token-file/);
    expect(() => configFrom(['--token-file', tokenFile(), '--token', 'both'])).toThrow(/either --token or --token-file/);
  });
});

describe('the store in a data directory that already exists', () => {
  let server: TestServer | null = null;
  const previousUmask = process.umask(0o022);
  afterAll(() => {
    process.umask(previousUmask);
  });
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  const modeOf = (path: string): string => (statSync(path).mode & 0o777).toString(8);
  const storeFiles = (dataDir: string): string[] =>
    ['volbench.sqlite', 'volbench.sqlite-wal', 'volbench.sqlite-shm', 'serve.lock'].map((f) => join(dataDir, f));

  it('creates the database, its -wal and -shm and the lock 0600 in a 0755 directory', async () => {
    const dataDir = join(dir, 'open-dir');
    mkdirSync(dataDir, { mode: 0o755 });
    server = await startServer({ dataDir });
    await server.client.submit({ jobs: [{ name: 'n', rw: 'read', bs: '4k', size: '1m', ioengine: 'null' }] }, '?wait=10');
    expect(storeFiles(dataDir).map(modeOf)).toEqual(['600', '600', '600', '600']);
  });

  it('tightens the files an earlier version left 0644, a crash\'s -wal and -shm included', async () => {
    const dataDir = join(dir, 'open-dir');
    for (const file of [join(dataDir, 'volbench.sqlite'), join(dataDir, 'serve.lock')]) chmodSync(file, 0o644);
    // A clean close removes -wal and -shm; a killed server leaves them (empty ones open as no WAL).
    for (const file of [join(dataDir, 'volbench.sqlite-wal'), join(dataDir, 'volbench.sqlite-shm')]) writeFileSync(file, '', { mode: 0o644 });
    server = await startServer({ dataDir });
    expect((await server.client.get('/v1/runs')).body.runs).toHaveLength(1);
    expect(storeFiles(dataDir).map(modeOf)).toEqual(['600', '600', '600', '600']);
  });
});

describe('the request log', () => {
  let server: TestServer;
  let log = '';
  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        log += chunk.toString();
        done();
      },
    });
    // trace: more than VOLBENCH_LOG_LEVEL=info logs, so nothing at any level carries a credential.
    server = await startServer({ logger: { level: 'trace', stream } });
  });
  afterAll(async () => server?.close());

  it('redacts token and authorization values in logged URLs and never logs the bearer token', async () => {
    await server.client.get('/v1/runs?limit=5&token=query-secret-1');
    await server.client.get('/v1/docs/?access_token=query-secret-2&Authorization=query-secret-3');
    await server.client.get('/v1/runs/some-id?api_key=query-secret-4');
    await server.client.request('GET', '/v1/runs', { headers: { 'x-padding': 'y'.repeat(20_000) } });
    expect(log).toContain('limit=5&token=[redacted]');
    expect(log).toContain('access_token=[redacted]');
    for (const secret of ['query-secret-1', 'query-secret-2', 'query-secret-3', 'query-secret-4', server.token]) {
      expect(log).not.toContain(secret);
    }
    // Node's error for the 431 holds the raw bytes of the request, its Authorization header too.
    expect(log).not.toContain('rawPacket');
  });

  it('censors credential headers wherever a header object is logged', () => {
    server.app.log.info({ headers: { authorization: 'Bearer header-secret-1', accept: 'text/plain' } }, 'headers');
    server.app.log.info({ req: { headers: { cookie: 'session=header-secret-2' } } }, 'nested headers');
    expect(log).not.toContain('header-secret');
    expect(log).toContain('"accept":"text/plain"');
    expect(log).toContain('"authorization":"[redacted]"');
  });
});
