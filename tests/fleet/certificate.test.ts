/**
 * The fleet's self-signed certificate, written in DER here: openssl reads it field by field and
 * verifies its signature, and a real TLS handshake with it reaches a client that pins its
 * fingerprint (and a client pinning another fingerprint is refused).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';

import { fleetCertificate } from '../../src/fleet/certificate.js';
import { PinnedTls } from '../../src/fleet/pinned-fetch.js';
import { requires } from '../helpers/requires.js';

const needs = requires('child', 'openssl');

const dir = mkdtempSync(join(tmpdir(), 'volbench-cert-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('fleetCertificate', () => {
  const notAfter = new Date('2031-03-04T05:06:07Z');
  const made = fleetCertificate({ commonName: 'volbench vb0123456789', notAfter });

  it('is an X.509 v3 certificate Node parses, self-signed, for the key it returns', () => {
    const x = new X509Certificate(made.cert);
    expect(x.subject).toBe('CN=volbench vb0123456789');
    expect(x.issuer).toBe(x.subject);
    expect(x.checkPrivateKey(createPrivateKey(made.key))).toBe(true);
    expect(x.verify(x.publicKey)).toBe(true);
    expect(x.fingerprint256).toBe(made.fingerprint);
    expect(made.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    // A day past the fleet's expiry, for clock skew.
    expect(new Date(x.validTo).toISOString()).toBe('2031-03-05T05:06:07.000Z');
    expect(x.ca).toBe(false);
    expect(x.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
  });

  it('uses GeneralizedTime from 2050 on', () => {
    const late = fleetCertificate({ commonName: 'late', notAfter: new Date('2051-01-01T00:00:00Z') });
    expect(new Date(new X509Certificate(late.cert).validTo).getUTCFullYear()).toBe(2051);
  });

  it.skipIf(needs.missing('openssl') !== undefined)('openssl reads every field and verifies the signature', () => {
    const file = join(dir, 'fleet.crt');
    writeFileSync(file, made.cert);
    const text = spawnSync('openssl', ['x509', '-noout', '-text', '-in', file], { encoding: 'utf8' });
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/Version: 3 \(0x2\)/);
    expect(text.stdout).toMatch(/Signature Algorithm: ecdsa-with-SHA256/);
    expect(text.stdout).toMatch(/ASN1 OID: prime256v1/);
    expect(text.stdout).toMatch(/X509v3 Basic Constraints: critical\s+CA:FALSE/);
    expect(text.stdout).toMatch(/X509v3 Key Usage: critical\s+Digital Signature/);
    expect(text.stdout).toMatch(/X509v3 Extended Key Usage:\s+TLS Web Server Authentication/);
    expect(text.stdout).toMatch(/Not After : Mar {2}5 05:06:07 2031 GMT/);
    const verify = spawnSync('openssl', ['verify', '-CAfile', file, '-partial_chain', file], { encoding: 'utf8' });
    expect(verify.stdout.trim(), verify.stderr).toBe(`${file}: OK`);
  });

  it('serves a real TLS handshake to a client pinning its fingerprint, and none to another pin', async () => {
    const server = createServer({ cert: made.cert, key: made.key }, (_req, res) => res.end('pinned'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const good = new PinnedTls(made.fingerprint);
    const other = new PinnedTls(fleetCertificate({ commonName: 'other', notAfter }).fingerprint);
    try {
      const res = await good.fetch(url);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('pinned');
      await expect(other.fetch(url)).rejects.toMatchObject({ code: 'ETLS' });
    } finally {
      good.close();
      other.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
