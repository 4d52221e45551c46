/**
 * A port forward from loopback to a member's service, as a user reaches a member in a private
 * subnet (SSM or SSH port forwarding): the fleet's endpoint map names 127.0.0.1:PORT. Until the
 * member answers, a connection is reset, which the fleet's client retries.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/** A loopback port free now (another process may take it before it is used). */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => done(port));
    }).on('error', fail);
  });
}

export function forward(localPort: number, host: string, port: number): Promise<{ close(): void }> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => { client.destroy(); upstream.destroy(); });
    }
    client.pipe(upstream).pipe(client);
  });
  return new Promise((done, fail) => {
    server.listen(localPort, '127.0.0.1', () => done({
      close() {
        for (const s of sockets) s.destroy();
        server.close();
      },
    })).on('error', fail);
  });
}
