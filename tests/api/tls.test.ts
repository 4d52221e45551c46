/**
 * HTTPS for the service and the fleet's pinned client: `volbench serve --tls-cert --tls-key`
 * serves TLS with a certificate read once at start (refusals name the flag), prints its SHA-256
 * fingerprint, and PinnedTls reaches it by that fingerprint alone (no CA, no host name: through
 * 127.0.0.1 and 'localhost' alike), while a peer with any other certificate never receives a
 * byte of the request.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createTlsServer } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { serveConfig } from '../../src/cli/serve-command.js';
import { PinnedTls, normalizeFingerprint, pinnedFetch } from '../../src/fleet/pinned-fetch.js';
import { VolbenchError } from '../../src/errors.js';
import { requires } from '../helpers/requires.js';
import { ensureBuilt, spawnServe, waitForExit, type ServeChild } from './helpers/child.js';

const needs = requires('child', 'openssl');

let dir: string;
const TOKEN = 'tls-test-token-0123456789';

/** A self-signed P-256 certificate and its key (chmod 600), made by openssl; its fingerprint as openssl prints it. */
function makeIdentity(name: string, cn = 'volbench-member'): { cert: string; key: string; fingerprint: string } {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2',
    '-subj', `/CN=${cn}`, '-keyout', key, '-out', cert], { stdio: 'ignore' });
  chmodSync(key, 0o600);
  const printed = execFileSync('openssl', ['x509', '-in', cert, '-noout', '-fingerprint', '-sha256'], { encoding: 'utf8' });
  return { cert, key, fingerprint: printed.trim().split('=')[1] };
}

function configError(argv: string[]): VolbenchError {
  const sink = { write: () => true } as unknown as NodeJS.WriteStream;
  try {
    serveConfig(['--data-dir', join(dir, 'data'), '--target-root', dir, '--token', TOKEN, ...argv], {}, { stdout: sink, stderr: sink });
  } catch (err) {
    if (err instanceof VolbenchError) return err;
    throw err;
  }
  throw new Error('expected serveConfig to refuse');
}

let good: ReturnType<typeof makeIdentity>;
let other: ReturnType<typeof makeIdentity>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), `volbench-tls-${process.pid}-`));
  good = makeIdentity('good');
  other = makeIdentity('other');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('--tls-cert and --tls-key refusals name the flag', () => {
  it('one without the other', () => {
    expect(configError(['--tls-cert', good.cert])).toMatchObject({ code: 'EINVALID_ARGS', field: '--tls-key' });
    expect(configError(['--tls-key', good.key])).toMatchObject({ code: 'EINVALID_ARGS', field: '--tls-cert' });
  });

  it('a missing file, a directory, a file that holds no certificate', () => {
    const missing = configError(['--tls-cert', join(dir, 'nope.crt'), '--tls-key', good.key]);
    expect(missing).toMatchObject({ code: 'EINVALID_ARGS', field: '--tls-cert' });
    expect(missing.message).toMatch(/cannot be read/);
    const folder = join(dir, 'a-directory');
    mkdirSync(folder, { recursive: true });
    expect(configError(['--tls-cert', folder, '--tls-key', good.key]).message).toMatch(/--tls-cert .* is not a regular file/);
    const junk = join(dir, 'junk.crt');
    writeFileSync(junk, 'not a certificate\n');
    expect(configError(['--tls-cert', junk, '--tls-key', good.key])).toMatchObject({ field: '--tls-cert' });
    const broken = join(dir, 'broken.crt');
    writeFileSync(broken, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    expect(configError(['--tls-cert', broken, '--tls-key', good.key]).message).toMatch(/--tls-cert .* is not a certificate/);
  });

  it('a key others may read, a key that is not the certificate\'s, a certificate given as the key', () => {
    const loose = join(dir, 'loose.key');
    writeFileSync(loose, readFileSync(good.key));
    chmodSync(loose, 0o644);
    const looseErr = configError(['--tls-cert', good.cert, '--tls-key', loose]);
    expect(looseErr).toMatchObject({ code: 'EINVALID_ARGS', field: '--tls-key' });
    expect(looseErr.message).toMatch(/chmod 600/);
    const wrong = configError(['--tls-cert', good.cert, '--tls-key', other.key]);
    expect(wrong).toMatchObject({ code: 'EINVALID_ARGS', field: '--tls-key' });
    expect(wrong.message).toMatch(/is not the private key of the certificate/);
    const certAsKey = join(dir, 'cert-as.key');
    writeFileSync(certAsKey, readFileSync(good.cert), { mode: 0o600 });
    expect(configError(['--tls-cert', good.cert, '--tls-key', certAsKey])).toMatchObject({ field: '--tls-key' });
  });

  it('a file too large to be PEM is refused before it is read whole', () => {
    const huge = join(dir, 'huge.crt');
    writeFileSync(huge, Buffer.alloc(2 << 20, 0x41));
    expect(configError(['--tls-cert', huge, '--tls-key', good.key]).message).toMatch(/more than a PEM file/);
  });
});

describe('normalizeFingerprint', () => {
  it('takes openssl\'s and plain hex spellings, refuses anything else naming the field', () => {
    const plain = good.fingerprint.replace(/:/g, '').toLowerCase();
    expect(normalizeFingerprint(plain)).toBe(good.fingerprint);
    expect(normalizeFingerprint(`sha256=${good.fingerprint}`)).toBe(good.fingerprint);
    for (const bad of ['', 'AB:CD', `${plain}00`, plain.replace(/^./, 'g')]) {
      expect(() => normalizeFingerprint(bad, '--fingerprint')).toThrow(expect.objectContaining({ code: 'EINVALID_ARGS', field: '--fingerprint' }));
    }
  });
});

describe('volbench serve over TLS', () => {
  let serve: ServeChild;
  let port: string;

  beforeAll(async () => {
    ensureBuilt();
    serve = await spawnServe(['--data-dir', join(dir, 'serve-data'), '--target-root', dir, '--tls-cert', good.cert, '--tls-key', good.key],
      { VOLBENCH_TOKEN: TOKEN });
    port = new URL(serve.url).port;
  });
  afterAll(async () => {
    serve?.child.kill('SIGTERM');
    if (serve) await waitForExit(serve.child);
  });

  it('listens on https:// and prints the fingerprint openssl computes', () => {
    expect(serve.url).toMatch(/^https:\/\//);
    expect(serve.stderr()).toContain(`TLS certificate SHA-256 fingerprint ${good.fingerprint}`);
  });

  it('answers the pinned client by address and by a name the certificate does not carry', async () => {
    const client = new PinnedTls(good.fingerprint);
    try {
      for (const host of ['127.0.0.1', 'localhost']) {
        const health = await client.fetch(`https://${host}:${port}/v1/healthz`);
        expect(health.status).toBe(200);
        const runs = await client.fetch(`https://${host}:${port}/v1/runs`, { headers: { authorization: `Bearer ${TOKEN}` } });
        expect(runs.status).toBe(200);
        expect(await runs.json()).toHaveProperty('runs');
      }
      const unauthorized = await client.fetch(`https://127.0.0.1:${port}/v1/runs`);
      expect(unauthorized.status).toBe(401);
    } finally {
      client.close();
    }
    const once = await pinnedFetch(`https://127.0.0.1:${port}/v1/healthz`, good.fingerprint.replace(/:/g, ''));
    expect(once.status).toBe(200);
  });

  it('plain HTTP and a CA-checking client get nothing from it', async () => {
    await expect(fetch(`http://127.0.0.1:${port}/v1/healthz`)).rejects.toThrow();
    await expect(fetch(`https://127.0.0.1:${port}/v1/healthz`)).rejects.toThrow();
  });

  it('the pinned client refuses it under another fingerprint', async () => {
    await expect(pinnedFetch(`https://127.0.0.1:${port}/v1/healthz`, other.fingerprint)).rejects.toMatchObject({ code: 'ETLS', field: 'fingerprint' });
  });
});

describe('a peer with another certificate', () => {
  it('is connected to but never receives a byte of the request', async () => {
    let received = 0;
    let connections = 0;
    const impostor = createTlsServer({ cert: readFileSync(other.cert), key: readFileSync(other.key) }, (socket) => {
      socket.on('data', (chunk: Buffer) => (received += chunk.length));
      socket.on('error', () => {});
    });
    impostor.on('connection', () => (connections += 1));
    impostor.on('tlsClientError', () => {});
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
    const { port } = impostor.address() as { port: number };
    try {
      const err = await pinnedFetch(`https://127.0.0.1:${port}/v1/runs`, good.fingerprint, {
        method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: '{"secret": true}',
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(VolbenchError);
      expect((err as VolbenchError).message).toContain(other.fingerprint);
      await new Promise((r) => setTimeout(r, 200));
      expect(connections).toBe(1);
      expect(received).toBe(0);
    } finally {
      impostor.close();
    }
  });

  it('a plain http:// URL is refused naming the field', async () => {
    await expect(new PinnedTls(good.fingerprint).fetch('http://127.0.0.1:1/')).rejects.toMatchObject({ code: 'EINVALID_ARGS', field: 'url' });
  });
});
