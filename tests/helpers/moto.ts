/**
 * The AWS API emulator (moto server, PyPI `moto[server]`) for tests of the cloud code: real AWS
 * SDK v3 calls, pointed at it with AWS_ENDPOINT_URL. Each worker process of the run has a server of
 * its own, started by the harness's launcher (tests/harness/moto.ts) in the global setup when a
 * file of that worker first asks; each file that declares requires('moto') gets its worker's reset
 * to empty with /moto-api/reset. A worker runs one file at a time, so none sees another's
 * resources, and the service project's two files at once each have their own server.
 */
export { awsDefaultVpc } from '../harness/moto.js';
import type { Moto as MotoServer } from '../harness/moto.js';
import { fixture } from './fixtures.js';

/** The worker's server as a test file sees it: it is stopped by the global setup, never by a file. */
export type Moto = Omit<MotoServer, 'stop'>;

/** vitest's number for this worker process, from 1 to its pool's size. */
function workerId(): number {
  const id = Number(process.env.VITEST_POOL_ID);
  if (!Number.isInteger(id) || id < 1) throw new Error(`moto: VITEST_POOL_ID=${process.env.VITEST_POOL_ID}: not in a vitest worker`);
  return id;
}

/** This worker's moto server, emptied of what earlier files made. */
export async function freshMoto(region = 'us-east-1'): Promise<Moto> {
  const endpoint = await fixture(`moto/${workerId()}`);
  const reset = await fetch(`${endpoint}/moto-api/reset`, { method: 'POST' });
  if (!reset.ok) throw new Error(`moto at ${endpoint} refused /moto-api/reset: HTTP ${reset.status}`);
  return {
    endpoint,
    env: {
      AWS_ENDPOINT_URL: endpoint,
      AWS_REGION: region,
      AWS_ACCESS_KEY_ID: 'testing',
      AWS_SECRET_ACCESS_KEY: 'testing',
    },
  };
}
