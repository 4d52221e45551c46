/**
 * The service's own process under `volbench serve` (serve-supervisor.ts forks it). It builds the
 * server from the configuration its parent sends (never from a command line, which would show
 * the token), listens, and closes the service when its parent says stop: the store closed, it
 * says so and exits. Threads of a device that never answers may keep this process from ending
 * (a thread in the kernel cannot be taken back); its parent does not wait for that.
 *
 * Signals are the parent's to handle (a terminal's Ctrl-C reaches both): this process ignores
 * SIGINT and SIGTERM. A parent that is gone (kill -9) takes this process with it, as kill -9
 * would: nothing is closed, and the next start recovers the runs.
 */
import { VolbenchError } from '../errors.js';
import { usePrices } from '../cloud/price-source.js';
import { buildServer } from '../server/http/app.js';
import type { ServerConfig } from '../server/config.js';

/** What the parent sends. */
export type ToWorker =
  | { type: 'start'; config: ServerConfig & { host: string; port: number }; prices: string | null }
  | { type: 'stop' };

/** An error as it crosses to the parent. */
export interface SentError {
  name: string;
  message: string;
  code?: string;
  field?: string;
  accepted?: string;
  path?: string;
}

/** What this process says. */
export type FromWorker = { type: 'listening'; address: string } | { type: 'failed'; error: SentError } | { type: 'closed' };

function sendThen(message: FromWorker, then: () => void): void {
  if (!process.send || !process.connected) {
    then();
    return;
  }
  process.send(message, undefined, {}, () => then());
}

function sentError(err: unknown): SentError {
  if (err instanceof VolbenchError) {
    return { name: err.name, message: err.message, code: err.code, field: err.field, accepted: err.accepted, path: err.path };
  }
  const e = err as NodeJS.ErrnoException;
  return { name: e?.name ?? 'Error', message: e?.stack ?? String(err), code: e?.code };
}

type Server = Awaited<ReturnType<typeof buildServer>>;
let app: Server | null = null;
let stopping = false;

async function start(message: Extract<ToWorker, { type: 'start' }>): Promise<void> {
  try {
    if (message.prices !== null) usePrices(message.prices);
    const { host, port, ...config } = message.config;
    app = await buildServer(config);
    const address = await app.listen({ host, port });
    sendThen({ type: 'listening', address }, () => undefined);
  } catch (err) {
    sendThen({ type: 'failed', error: sentError(err) }, () => process.exit(2));
  }
}

async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await app?.close().catch(() => undefined);
  sendThen({ type: 'closed' }, () => process.exit(0));
}

process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => undefined);
process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));
process.on('message', (message: ToWorker) => {
  if (message.type === 'start') void start(message);
  else if (message.type === 'stop') void stop();
});
