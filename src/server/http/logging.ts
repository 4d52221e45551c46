/**
 * The service's log, Fastify's pino logger, with nothing in it that lets a reader act as a
 * client. Fastify logs every request's URL at info, and a client that puts its token in the
 * query (?token=, ?access_token=, as some tools do for a docs page) would have it written whole:
 * URLs are logged with such values redacted, and headers that carry credentials are censored
 * wherever a header object is logged.
 */
import type { FastifyRequest } from 'fastify';

import type { LogOptions } from '../config.js';

export const REDACTED = '[redacted]';

/** Query parameter names that say their value is a credential. */
const CREDENTIAL_NAME = /token|auth|passw|secret|api[-_]?key|signature|session/i;

const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'x-api-key'];

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** `url` with the value of each query parameter named like a credential replaced by [redacted]. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  // & and ; both end a pair here: whichever a client meant, the value is not logged.
  const query = url.slice(q + 1).replace(/([^&;=]*)=([^&;]*)/g, (pair, name: string) =>
    (CREDENTIAL_NAME.test(decoded(name)) ? `${name}=${REDACTED}` : pair));
  return `${url.slice(0, q + 1)}${query}`;
}

/** Fastify's own request serializer, with the URL redacted (and whatever else is under `req` dropped). */
function requestForLog(request: FastifyRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: typeof request.url === 'string' ? redactUrl(request.url) : undefined,
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** Fastify's logger option for the service's: off, or pino with the redactions above. */
export function loggerOptions(logger: boolean | LogOptions | undefined) {
  if (!logger) return false;
  const { level, stream } = logger === true ? { level: 'info', stream: undefined } : logger;
  return {
    level,
    ...(stream === undefined ? {} : { stream }),
    serializers: { req: requestForLog },
    redact: {
      paths: CREDENTIAL_HEADERS.flatMap((h) => [`headers["${h}"]`, `*.headers["${h}"]`]),
      censor: REDACTED,
    },
  };
}
