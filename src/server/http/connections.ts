/**
 * How many connections the service keeps, and for how long one that says nothing. Each socket
 * is a descriptor: 20,600 idle connections that never sent a byte took all 20,000 the process
 * had, and /v1/healthz failed until Node dropped them a minute later (any client could do it
 * again). So the service keeps at most `maxConnections`, below its descriptor limit (the store,
 * the roots, the runs' files and the report threads need some of their own); a connection that
 * has sent nothing is closed after `silentTimeoutMs`; and a new connection over the cap takes the
 * place of the oldest one with no request in flight (one that has sent nothing yet, or a
 * keep-alive connection between requests), so a client that talks is heard. Only a cap filled
 * with requests in flight refuses a new connection.
 *
 * "Sent nothing" is the socket's own byte count (bytesRead), so TLS and plain HTTP are alike
 * and nothing reads the socket but the server.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server, Socket } from 'node:net';

/** How long a connection may stay open without sending a byte. */
export const SILENT_TIMEOUT_MS = 10_000;

/** The process's soft limit on open descriptors (RLIMIT_NOFILE), or null when /proc does not say. */
export function descriptorLimit(limitsText?: string): number | null {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return null;
    }
  }
  const soft = /^Max open files\s+(\S+)/m.exec(text)?.[1];
  if (soft === undefined || soft === 'unlimited') return null;
  const n = Number(soft);
  return Number.isInteger(n) && n > 0 ? n : null;
}

/**
 * The most connections kept with `limit` descriptors: a quarter of them (at most 1,024) stay for
 * the service's own files; never fewer than 16 connections.
 */
export function connectionCap(limit: number | null): number {
  if (limit === null) return 65_536;
  return Math.max(16, limit - Math.min(1024, Math.ceil(limit / 4)));
}

export interface ConnectionLimits {
  maxConnections: number;
  silentTimeoutMs: number;
}

/**
 * Holds `server` to the limits; returns what it counts, for the metrics. A connection over the
 * cap takes the place of the oldest one that has no request in flight (one that sent nothing, or
 * a keep-alive connection between requests); with none, it is refused.
 */
export function limitConnections(server: Server, limits: ConnectionLimits): { open: () => number; dropped: () => number } {
  // By peer address (the same on a TLS socket as on the TCP socket under it), in insertion order:
  // the oldest first, with the requests in flight on each.
  const open = new Map<string, { socket: Socket; busy: number }>();
  let dropped = 0;
  const drop = (key: string, socket: Socket): void => {
    dropped++;
    if (open.get(key)?.socket === socket) open.delete(key);
    socket.destroy();
  };
  server.on('connection', (socket: Socket) => {
    const key = peerOf(socket);
    if (open.size >= limits.maxConnections) {
      const idle = oldestIdle(open);
      if (idle === null) {
        drop(key, socket);
        return;
      }
      drop(idle[0], idle[1]);
    }
    open.set(key, { socket, busy: 0 });
    const timer = setTimeout(() => {
      if (socket.bytesRead === 0) drop(key, socket);
    }, limits.silentTimeoutMs);
    timer.unref();
    socket.once('close', () => {
      clearTimeout(timer);
      if (open.get(key)?.socket === socket) open.delete(key);
    });
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const entry = open.get(peerOf(req.socket));
    if (entry === undefined) return;
    entry.busy++;
    res.once('close', () => {
      entry.busy = Math.max(0, entry.busy - 1);
    });
  });
  return { open: () => open.size, dropped: () => dropped };
}

function peerOf(socket: Socket): string {
  return `${socket.remoteAddress}:${socket.remotePort}`;
}

function oldestIdle(open: Map<string, { socket: Socket; busy: number }>): [string, Socket] | null {
  for (const [key, { socket, busy }] of open) if (busy === 0) return [key, socket];
  return null;
}
