/**
 * `volbench serve` runs the service in a child process (serve-worker.ts) and waits on it. A
 * thread stuck in the kernel on a device that does not answer (a frozen filesystem, a dead
 * disk) cannot be killed, and a process is not gone until its last thread is: a service with
 * such a thread, told to stop, closed its port and its store and then stayed alive until the
 * device answered (96 s, until a thaw). So the threads that touch devices live in the child:
 * on SIGINT or SIGTERM this process asks it to stop, and once the child has closed its store
 * (it says so) this process exits, within a second more, whether or not the child could end.
 * The child's stop is bounded (runs given up on, removals past their deadline), so `serve`
 * exits within 10 s of the signal whatever the devices do.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { VolbenchError, type VolbenchErrorCode } from '../errors.js';
import type { ServerConfig } from '../server/config.js';
import type { FromWorker, SentError, ToWorker } from './serve-worker.js';
import type { CommandIo } from './io.js';

const WORKER = join(dirname(fileURLToPath(import.meta.url)), 'serve-worker.js');

/** How long, after its store is closed, the child may take to end before this process leaves it. */
const EXIT_GRACE_MS = 1000;
/** The child's stop is bounded well below this; past it the child is killed. */
const STOP_BOUND_MS = 9500;

function rebuilt(error: SentError): Error {
  if (error.name === 'VolbenchError' && error.code !== undefined) {
    return new VolbenchError(error.code as VolbenchErrorCode, error.message, {
      ...(error.field === undefined ? {} : { field: error.field }),
      ...(error.accepted === undefined ? {} : { accepted: error.accepted }),
      ...(error.path === undefined ? {} : { path: error.path }),
    });
  }
  return Object.assign(new Error(error.message), { code: error.code });
}

function nextMessage(child: ChildProcess): Promise<FromWorker | null> {
  return new Promise((resolve) => {
    const onMessage = (m: FromWorker): void => done(m);
    const onExit = (): void => done(null);
    const done = (m: FromWorker | null): void => {
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(m);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

function exited(child: ChildProcess, withinMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), withinMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Starts the service in its child; resolves with its address, or throws what stopped it. */
async function started(child: ChildProcess, config: ServerConfig & { host: string; port: number }, prices: string | null): Promise<string> {
  const first = nextMessage(child);
  child.send({ type: 'start', config, prices } satisfies ToWorker);
  const answer = await first;
  if (answer?.type === 'listening') return answer.address;
  if (answer?.type === 'failed') throw rebuilt(answer.error);
  throw new Error(`the service's process ended before it listened (${child.exitCode ?? child.signalCode})`);
}

/** Waits for SIGINT or SIGTERM, or for the child to end on its own (then its exit code). */
function signalled(child: ChildProcess): Promise<'signal' | number> {
  return new Promise((resolve) => {
    const stop = (): void => done('signal');
    const gone = (code: number | null): void => done(code ?? 1);
    const done = (why: 'signal' | number): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      child.off('exit', gone);
      resolve(why);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    child.once('exit', gone);
  });
}

/** Asks the child to stop; resolves once its store is closed and it ended, or was left to end. */
async function stopped(child: ChildProcess, io: CommandIo): Promise<number> {
  const answer = nextMessage(child);
  child.send({ type: 'stop' } satisfies ToWorker);
  const bound = new Promise<'bound'>((resolve) => setTimeout(() => resolve('bound'), STOP_BOUND_MS).unref());
  const closed = await Promise.race([answer, bound]);
  if (closed === 'bound') {
    io.stderr.write(`volbench: the service did not close within ${STOP_BOUND_MS / 1000} s; its process ${child.pid} was killed (the next start recovers its runs)\n`);
    child.kill('SIGKILL');
    return 1;
  }
  if (closed === null || (await exited(child, EXIT_GRACE_MS))) return 0;
  io.stderr.write(`volbench: stopped; the service's process ${child.pid} has threads stuck on a device that does not answer, and ends when it does\n`);
  return 0;
}

/**
 * Runs the service in its child until SIGINT or SIGTERM; `listening` is told its address once
 * it listens. Resolves with the exit code; a service that could not start throws its error.
 */
export async function superviseService(
  config: ServerConfig & { host: string; port: number }, prices: string | null, io: CommandIo, listening: (address: string) => void,
): Promise<number> {
  const child = fork(WORKER, [], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let address: string;
  try {
    address = await started(child, config, prices);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  listening(address);
  const why = await signalled(child);
  let code: number;
  if (why === 'signal') {
    io.stderr.write('volbench: stopping; running runs end as interrupted, queued runs stay queued\n');
    code = await stopped(child, io);
  } else {
    code = why;
  }
  // What is left of the child is not this process's to wait for.
  if (child.connected) child.disconnect();
  child.unref();
  return code;
}
