/**
 * HTTPS for the service: the certificate and private key `volbench serve --tls-cert --tls-key`
 * serves, read once at start. Each file is read through the descriptor that was opened and
 * checked (a regular file, of bounded size), so nothing can be swapped in between a check and
 * the read; the key is refused when group or others may read it, as the token file is. The pair
 * is checked before the service starts: PEM that parses, a key that belongs to the certificate.
 */
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';

import { VolbenchError } from '../../errors.js';
import type { TlsIdentity } from '../config.js';


/** A certificate chain or a key is a few KiB; a larger file is not one. */
const MAX_PEM_BYTES = 1 << 20;

const ACCEPTED = {
  '--tls-cert': 'a readable PEM file holding the server certificate (and any intermediates after it)',
  '--tls-key': 'a PEM file holding the certificate\'s private key, unencrypted, that only its owner may read (chmod 600)',
} as const;

type TlsFlag = keyof typeof ACCEPTED;

function refuse(flag: TlsFlag, path: string, why: string): never {
  throw new VolbenchError('EINVALID_ARGS', `${flag} ${path} ${why}`, { field: flag, accepted: ACCEPTED[flag], path });
}

/** The file's text, read from the descriptor that was checked. */
function readPemFile(flag: TlsFlag, path: string, ownerOnly: boolean): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    return refuse(flag, path, `cannot be read: ${(err as Error).message}`);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) refuse(flag, path, 'is not a regular file');
    if (stats.size > MAX_PEM_BYTES) refuse(flag, path, `is ${stats.size} bytes, more than a PEM file of ${MAX_PEM_BYTES} bytes holds`);
    const mode = stats.mode & 0o777;
    if (ownerOnly && (mode & 0o077) !== 0) {
      refuse(flag, path, `may be read or written by group or others (mode ${mode.toString(8).padStart(4, '0')}); chmod 600 it`);
    }
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** The first certificate of a PEM chain, parsed; refused naming the flag when there is none. */
function leafCertificate(pem: string, path: string): X509Certificate {
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) refuse('--tls-cert', path, 'holds no PEM certificate (-----BEGIN CERTIFICATE-----)');
  try {
    return new X509Certificate(pem);
  } catch (err) {
    return refuse('--tls-cert', path, `is not a certificate: ${(err as Error).message}`);
  }
}

function privateKey(pem: string, path: string): KeyObject {
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem)) refuse('--tls-key', path, 'holds no PEM private key (-----BEGIN PRIVATE KEY-----)');
  if (pem.includes('ENCRYPTED')) refuse('--tls-key', path, 'holds an encrypted key; the service cannot ask for a passphrase');
  try {
    return createPrivateKey(pem);
  } catch (err) {
    return refuse('--tls-key', path, `is not a private key: ${(err as Error).message}`);
  }
}

/**
 * Reads and checks the pair `volbench serve` serves: both files once, the key owner-only, the
 * key the certificate's own. Every refusal is an EINVALID_ARGS naming the flag.
 */
export function readTlsFiles(certPath: string, keyPath: string): TlsIdentity {
  const cert = readPemFile('--tls-cert', certPath, false);
  const leaf = leafCertificate(cert, certPath);
  const key = readPemFile('--tls-key', keyPath, true);
  const keyObject = privateKey(key, keyPath);
  if (!leaf.checkPrivateKey(keyObject)) {
    refuse('--tls-key', keyPath, `is not the private key of the certificate in ${certPath} (subject ${leaf.subject.replace(/\n/g, ', ')})`);
  }
  return { cert, key };
}

/** The certificate's SHA-256 fingerprint as clients pin it: colon-separated upper-case hex. */
export function certificateFingerprint(certPem: string): string {
  return new X509Certificate(certPem).fingerprint256;
}
