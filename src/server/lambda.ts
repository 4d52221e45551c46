/**
 * The service as an AWS Lambda handler (function URL or API Gateway HTTP API, payload 2.0).
 * A Lambda sandbox is frozen between invocations, so a run must finish inside the request that
 * submits it: every POST waits for its run (as ?wait does). Runs use the function's /tmp, the
 * store lives in /tmp/volbench; the token comes from VOLBENCH_TOKEN.
 *
 *   VOLBENCH_TOKEN        required
 *   VOLBENCH_TARGET_ROOT  default /tmp
 *   VOLBENCH_DATA_DIR     default /tmp/volbench (reserved: runs cannot touch it)
 *   VOLBENCH_MAX_RUNTIME  a time (seconds by default, or 10m), default 600s: keep it under the
 *                         function's timeout
 */
import awsLambdaFastify from '@fastify/aws-lambda';
import type { FastifyInstance } from 'fastify';

import { VolbenchError } from '../errors.js';
import { buildServer } from './app.js';
import { parseMaxRuntimeSec } from '../plan/index.js';
import type { ServerConfig } from './config.js';

export interface LambdaResult {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  isBase64Encoded?: boolean;
}

export interface LambdaHandler {
  (event: unknown, context: unknown): Promise<LambdaResult>;
  /** Stops the app (runs, store) if it was built: for tests and graceful shutdown hooks. */
  close(): Promise<void>;
}

export function lambdaConfig(env: NodeJS.ProcessEnv): ServerConfig {
  const token = env.VOLBENCH_TOKEN;
  if (!token) throw new VolbenchError('EINVALID_ARGS', 'VOLBENCH_TOKEN must be set for the Lambda handler', { accepted: 'a secret token' });
  const maxRuntime = env.VOLBENCH_MAX_RUNTIME;
  return {
    token,
    targetRoots: [env.VOLBENCH_TARGET_ROOT ?? '/tmp'],
    dataDir: env.VOLBENCH_DATA_DIR ?? '/tmp/volbench',
    waitForEveryRun: true,
    // One sandbox serves one request at a time; a queue would only hold runs no request waits for.
    maxConcurrent: 1,
    queueLimit: 0,
    ...(maxRuntime ? { maxRuntimeSec: parseMaxRuntimeSec(maxRuntime, 'VOLBENCH_MAX_RUNTIME') } : {}),
  };
}

/** A handler that builds the app on its first invocation and reuses it while the sandbox lives. */
export function createLambdaHandler(config: () => ServerConfig = () => lambdaConfig(process.env)): LambdaHandler {
  let app: Promise<FastifyInstance> | null = null;
  let proxy: Promise<(event: unknown, context: unknown) => Promise<LambdaResult>> | null = null;
  const handle = async (event: unknown, context: unknown): Promise<LambdaResult> => {
    if (proxy === null) {
      const building = (app = Promise.resolve().then(() => buildServer(config())));
      proxy = building.then((built) => {
        const lambda = awsLambdaFastify(built, { decorateRequest: false });
        return (e: unknown, c: unknown) => lambda(e, c as never) as Promise<LambdaResult>;
      });
      // A failed start is not kept: the next invocation tries again.
      proxy.catch(() => {
        if (app === building) app = proxy = null;
      });
    }
    return (await proxy)(event, context);
  };
  return Object.assign(handle, {
    async close() {
      if (app !== null) await (await app).close();
      app = null;
      proxy = null;
    },
  });
}

export const handler: LambdaHandler = createLambdaHandler();
