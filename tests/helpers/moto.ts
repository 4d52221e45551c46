/**
 * A local AWS API emulator (moto server, PyPI `moto[server]`) for tests of the cloud code: real
 * AWS SDK v3 calls, pointed at it with AWS_ENDPOINT_URL. Started on a free port per test file.
 */
import { spawnSync } from 'node:child_process';

import { startMoto as launch } from '../harness/moto.mjs';

/** Why moto cannot run here, or undefined when it can. */
export function motoSkipReason(): string | undefined {
  const probe = spawnSync('python3', ['-c', 'import moto.server'], { stdio: 'ignore' });
  return probe.status === 0 ? undefined : "moto server is not installed (pip install 'moto[server]')";
}

export interface Moto {
  endpoint: string;
  /** The environment an SDK client needs to talk to it (fake credentials, a region). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export async function startMoto(region = 'us-east-1'): Promise<Moto> {
  const { endpoint, stop } = await launch();
  return {
    endpoint,
    env: {
      AWS_ENDPOINT_URL: endpoint,
      AWS_REGION: region,
      AWS_ACCESS_KEY_ID: 'testing',
      AWS_SECRET_ACCESS_KEY: 'testing',
    },
    stop,
  };
}
