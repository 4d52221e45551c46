/**
 * A fleet's self-signed TLS certificate, made without openssl: Node signs but cannot build an
 * X.509 certificate, so the TBSCertificate is written here in DER (only the few types it needs)
 * and signed with `crypto.sign` (ECDSA P-256, SHA-256). The CLI trusts it by its SHA-256
 * fingerprint alone (PinnedTls), so no name in it matters; it names the fleet for people.
 */
import { createPublicKey, generateKeyPairSync, randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto';

export interface FleetCertificate {
  /** PEM certificate: public, uploaded beside the fleet's state. */
  cert: string;
  /** PEM PKCS#8 private key: stored as an SSM SecureString, read by the members only. */
  key: string;
  /** SHA-256 of the DER certificate, AB:CD:... as Node and PinnedTls spell it. */
  fingerprint: string;
}

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** One DER element: tag, length, content. */
function tlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), length(content.length), content]);
}

const seq = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items));
const explicit = (n: number, item: Buffer) => tlv(0xa0 | n, item);
const octets = (content: Buffer) => tlv(0x04, content);
const bits = (content: Buffer) => tlv(0x03, Buffer.concat([Buffer.from([0]), content]));
const utf8 = (text: string) => tlv(0x0c, Buffer.from(text, 'utf8'));
const bool = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0]));

/** A non-negative INTEGER from big-endian bytes (a leading zero where the top bit is set). */
function integer(bytes: Buffer): Buffer {
  let b = bytes;
  while (b.length > 1 && b[0] === 0 && (b[1] & 0x80) === 0) b = b.subarray(1);
  return tlv(0x02, b[0] & 0x80 ? Buffer.concat([Buffer.from([0]), b]) : b);
}

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const out = [40 * a + b];
  for (const arc of rest) {
    const groups: number[] = [];
    for (let v = arc; ; v = Math.floor(v / 128)) {
      groups.unshift(v % 128);
      if (v < 128) break;
    }
    out.push(...groups.map((g, i) => (i < groups.length - 1 ? g | 0x80 : g)));
  }
  return tlv(0x06, Buffer.from(out));
}

/** UTCTime until 2049, GeneralizedTime after (RFC 5280 4.1.2.5). */
function time(at: Date): Buffer {
  const iso = at.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return at.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`)) : tlv(0x18, Buffer.from(`${iso}Z`));
}

const ECDSA_SHA256 = seq(oid('1.2.840.10045.4.3.2'));
const name = (cn: string) => seq(set(seq(oid('2.5.4.3'), utf8(cn))));

function extensions(): Buffer {
  const basicConstraints = seq(oid('2.5.29.19'), bool(true), octets(seq()));
  // keyUsage: digitalSignature only: a BIT STRING of one byte, its top bit set, 7 bits unused.
  const keyUsage = seq(oid('2.5.29.15'), bool(true), octets(tlv(0x03, Buffer.from([0x07, 0x80]))));
  const serverAuth = seq(oid('2.5.29.37'), octets(seq(oid('1.3.6.1.5.5.7.3.1'))));
  return explicit(3, seq(basicConstraints, keyUsage, serverAuth));
}

export interface CertificateOptions {
  /** The subject and issuer's common name (the fleet id). */
  commonName: string;
  /** The last moment it is valid (the fleet's expiry); a day is added for clock skew. */
  notAfter: Date;
  /** Valid from (default: an hour ago, for clock skew). */
  notBefore?: Date;
  /** A key to certify (tests); a new P-256 key otherwise. */
  privateKey?: KeyObject;
}

/** Builds and signs the certificate; returns it with its key and fingerprint. */
export function fleetCertificate(opts: CertificateOptions): FleetCertificate {
  const privateKey = opts.privateKey ?? generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const spki = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  const serial = randomBytes(16);
  serial[0] &= 0x7f;
  const notBefore = opts.notBefore ?? new Date(Date.now() - 3600_000);
  const notAfter = new Date(opts.notAfter.getTime() + 86_400_000);
  const tbs = seq(
    explicit(0, integer(Buffer.from([2]))), // v3
    integer(serial),
    ECDSA_SHA256,
    name(opts.commonName),
    seq(time(notBefore), time(notAfter)),
    name(opts.commonName),
    spki,
    extensions(),
  );
  const signature = sign('sha256', tbs, privateKey); // ECDSA-Sig-Value in DER, as X.509 wants it
  const der = seq(tbs, ECDSA_SHA256, bits(signature));
  const cert = `-----BEGIN CERTIFICATE-----\n${der.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
  const key = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return { cert, key, fingerprint: new X509Certificate(cert).fingerprint256 };
}
