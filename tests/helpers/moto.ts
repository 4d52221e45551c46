/**
 * The AWS API emulator (moto server, PyPI `moto[server]`) for tests of the cloud code: real AWS
 * SDK v3 calls, pointed at it with AWS_ENDPOINT_URL. The run has one server, started by the
 * harness's launcher (tests/harness/moto.ts) in the global setup when a file first asks; each file
 * that declares requires('moto') gets it reset to empty with /moto-api/reset. Files of the device
 * project run one at a time (moto keeps a file there, never in the two-at-a-time service project),
 * so none sees another's resources.
 */
export { awsDefaultVpc } from '../harness/moto.js';
import type { Moto as MotoServer } from '../harness/moto.js';
import { fixture } from './fixtures.js';

/** The run's server as a test file sees it: it is stopped by the global setup, never by a file. */
export type Moto = Omit<MotoServer, 'stop'>;

/** The run's moto server, emptied of what earlier files made. */
export async function freshMoto(region = 'us-east-1'): Promise<Moto> {
  const endpoint = await fixture('moto');
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
