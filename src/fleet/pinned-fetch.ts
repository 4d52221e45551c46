/**
 * HTTPS to a fleet member whose certificate is pinned by its SHA-256 fingerprint, and checked by
 * nothing else: no certificate authority, no host name, no expiry. The fleet makes each member's
 * self-signed certificate itself, so the fingerprint is the whole of the trust, and a connection
 * through a port forward (https://127.0.0.1:PORT) works as well as one to the member's address.
 *
 * The fingerprint is compared as soon as the handshake ends and before the request is written:
 * a peer with any other certificate never sees a header, the bearer token included.
 *
 *   const member = new PinnedTls('AB:CD:...');          // or pinnedFetch(url, fingerprint, init)
 *   const res = await member.fetch('https://127.0.0.1:8443/v1/healthz');   // a web Response
 *   member.close();
 */
import { request as httpsRequest, Agent, type AgentOptions, type RequestOptions } from 'node:https';
import { isIP } from 'node:net';
import { Readable, type Duplex } from 'node:stream';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';

import { VolbenchError } from '../errors.js';

/** The SHA-256 of a DER certificate in every spelling people paste, as Node spells it: AB:CD:... */
export function normalizeFingerprint(text: string, field = 'fingerprint'): string {
  const hex = text.trim().replace(/^sha-?256[:=]/i, '').replace(/[:\s]/g, '');
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
    throw new VolbenchError('EINVALID_ARGS', `${field}: '${text.slice(0, 120)}' is not a SHA-256 fingerprint`, {
      field,
      accepted: '64 hex digits, with or without colons (openssl x509 -noout -fingerprint -sha256)',
    });
  }
  return hex.toUpperCase().match(/../g)!.join(':');
}

/** A connection refused because the peer's certificate is not the pinned one. */
function mismatch(host: string, port: number, seen: string | undefined, pinned: string): VolbenchError {
  return new VolbenchError('ETLS', `${host}:${port} presented ${seen ? `the certificate ${seen}` : 'no certificate'}, not the pinned ${pinned}: nothing was sent`, {
    field: 'fingerprint',
    accepted: pinned,
  });
}

type Created = (err: Error | null, stream: Duplex) => void;

/** An https.Agent whose sockets reach the request only once the peer's certificate matched. */
class PinningAgent extends Agent {
  constructor(private readonly pinned: string, options: AgentOptions) {
    // No TLS session cache: a resumed session would skip the certificate this agent checks.
    super({ ...options, maxCachedSessions: 0 });
  }

  override createConnection(options: RequestOptions, created?: Created): undefined {
    // Node's agents always pass the callback; without one the socket could not wait for the check.
    if (!created) throw new Error('PinningAgent.createConnection needs a callback');
    const host = options.host ?? 'localhost';
    const port = Number(options.port ?? 443);
    let answered = false;
    const answer = (err: Error | null, socket?: TLSSocket): void => {
      if (answered) return;
      answered = true;
      created(err, socket as Duplex);
    };
    const socket = tlsConnect({
      host,
      port,
      // Trust is the fingerprint alone: no chain, no host name. SNI only for a name, never an address.
      rejectUnauthorized: false,
      servername: isIP(host) ? undefined : (options.servername ?? host),
      ALPNProtocols: ['http/1.1'],
    });
    socket.once('secureConnect', () => {
      const seen = socket.getPeerX509Certificate()?.fingerprint256;
      if (seen !== this.pinned) {
        const err = mismatch(host, port, seen, this.pinned);
        socket.destroy();
        answer(err);
        return;
      }
      answer(null, socket);
    });
    socket.once('error', (err) => answer(err));
    return undefined;
  }
}

export interface PinnedRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
}

/** HTTP statuses whose responses carry no body (the web Response refuses one for them). */
const NULL_BODY = new Set([101, 204, 205, 304]);

/** HTTPS requests to one pinned certificate, as web Responses (status, headers, text(), body). */
export class PinnedTls {
  readonly fingerprint: string;
  private readonly agent: PinningAgent;

  constructor(fingerprint: string, options: { keepAlive?: boolean } = {}) {
    this.fingerprint = normalizeFingerprint(fingerprint);
    this.agent = new PinningAgent(this.fingerprint, { keepAlive: options.keepAlive ?? true });
  }

  fetch(url: string, init: PinnedRequestInit = {}): Promise<Response> {
    const target = new URL(url);
    if (target.protocol !== 'https:') {
      return Promise.reject(new VolbenchError('EINVALID_ARGS', `${url} is not an https:// URL`, { field: 'url', accepted: 'https://host:port/path' }));
    }
    return new Promise((resolve, reject) => {
      const req = httpsRequest(target, { method: init.method ?? 'GET', headers: init.headers, agent: this.agent, signal: init.signal }, (res) => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
        }
        const status = res.statusCode ?? 502;
        const empty = NULL_BODY.has(status) || req.method === 'HEAD';
        if (empty) res.resume();
        const body = empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
        resolve(new Response(body, { status, statusText: res.statusMessage, headers }));
      });
      req.once('error', reject);
      req.end(init.body);
    });
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.agent.destroy();
  }
}

/** One request to a pinned certificate, with a connection of its own. */
export async function pinnedFetch(url: string, fingerprint: string, init: PinnedRequestInit = {}): Promise<Response> {
  const client = new PinnedTls(fingerprint, { keepAlive: false });
  try {
    const res = await client.fetch(url, init);
    const bytes = await res.arrayBuffer();
    return new Response(NULL_BODY.has(res.status) ? null : bytes, { status: res.status, statusText: res.statusText, headers: res.headers });
  } finally {
    client.close();
  }
}
