/**
 * The service as an AWS Lambda handler (function URL or API Gateway HTTP API, payload 2.0).
 * A Lambda sandbox is frozen between invocations, so a run must finish inside the request that
 * submits it: every POST waits for its run (as ?wait does). Runs use the function's /tmp, the
 * store lives in /tmp/volbench; the token comes from an SSM SecureString (read once per sandbox,
 * never kept in the function's environment) or from VOLBENCH_TOKEN.
 *
 *   VOLBENCH_TOKEN_PARAMETER   name of the SecureString holding the token (infra/cloudformation/lambda.yaml)
 *   VOLBENCH_TOKEN             the token itself, when there is no parameter
 *   VOLBENCH_TARGET_ROOT       default /tmp
 *   VOLBENCH_EXTRA_ROOT        a second target root, e.g. an EFS mount (/mnt/efs); empty for none
 *   VOLBENCH_DATA_DIR          default /tmp/volbench (reserved: runs cannot touch it)
 *   VOLBENCH_MAX_RUNTIME       a time (seconds by default, or 10m); without it, the function's
 *   VOLBENCH_FUNCTION_TIMEOUT  timeout (seconds) less a tenth (at least 30 s), else 600s
 */
// First: on a Node older than volbench needs, this import fails with the reason.
import '../require-node.js';
import awsLambdaFastify from '@fastify/aws-lambda';
import type { FastifyInstance } from 'fastify';

import { awsClient } from '../cloud/aws-clients.js';
import { VolbenchError } from '../errors.js';
import { buildServer } from './http/app.js';
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

export function lambdaConfig(env: NodeJS.ProcessEnv, token = env.VOLBENCH_TOKEN): ServerConfig {
  if (!token) {
    throw new VolbenchError('EINVALID_ARGS', 'VOLBENCH_TOKEN_PARAMETER or VOLBENCH_TOKEN must be set for the Lambda handler', {
      field: 'VOLBENCH_TOKEN_PARAMETER', accepted: 'the name of an SSM SecureString holding the token',
    });
  }
  const maxRuntime = env.VOLBENCH_MAX_RUNTIME;
  const extraRoot = env.VOLBENCH_EXTRA_ROOT;
  return {
    token,
    targetRoots: [env.VOLBENCH_TARGET_ROOT ?? '/tmp', ...(extraRoot ? [extraRoot] : [])],
    dataDir: env.VOLBENCH_DATA_DIR ?? '/tmp/volbench',
    waitForEveryRun: true,
    // One sandbox serves one request at a time; a queue would only hold runs no request waits for.
    maxConcurrent: 1,
    queueLimit: 0,
    // Lambda answers at most 6 MB: a larger report is refused naming the budget, not cut off.
    reportMaxBytes: 5 * 1024 * 1024,
    ...(maxRuntime
      ? { maxRuntimeSec: parseMaxRuntimeSec(maxRuntime, 'VOLBENCH_MAX_RUNTIME') }
      : env.VOLBENCH_FUNCTION_TIMEOUT
        ? { maxRuntimeSec: runtimeUnderTimeout(env.VOLBENCH_FUNCTION_TIMEOUT) }
        : {}),
  };
}

/** The longest run a function with this timeout can finish inside its request. */
function runtimeUnderTimeout(text: string): number {
  const timeout = parseMaxRuntimeSec(text, 'VOLBENCH_FUNCTION_TIMEOUT');
  return Math.max(1, timeout - Math.max(30, Math.ceil(timeout / 10)));
}

/**
 * The configuration from the environment, the token read from SSM when a parameter is named
 * (AWS SDK v3, the function's own credentials and region). Loaded lazily: the library and the
 * service outside Lambda never load the SSM client.
 */
export async function lambdaConfigFromEnv(env: NodeJS.ProcessEnv): Promise<ServerConfig> {
  const name = env.VOLBENCH_TOKEN_PARAMETER;
  if (!name) return lambdaConfig(env);
  const { SSMClient, GetParameterCommand } = await import('@aws-sdk/client-ssm');
  const client = awsClient(SSMClient);
  try {
    const out = await client.send(new GetParameterCommand({ Name: name, WithDecryption: true }));
    const token = out.Parameter?.Value;
    if (!token) {
      throw new VolbenchError('EINVALID_ARGS', `SSM parameter ${name} has no value`, { field: 'VOLBENCH_TOKEN_PARAMETER', accepted: 'a SecureString holding the token' });
    }
    return lambdaConfig(env, token);
  } catch (err) {
    if (err instanceof VolbenchError) throw err;
    const why = (err as { name?: string; message?: string }).name ?? 'Error';
    throw new VolbenchError('EINVALID_ARGS', `cannot read the token from SSM parameter ${name}: ${why}: ${(err as Error).message}`, {
      field: 'VOLBENCH_TOKEN_PARAMETER', accepted: 'a SecureString the function may read (ssm:GetParameter)',
    });
  } finally {
    client.destroy();
  }
}

/** A handler that builds the app on its first invocation and reuses it while the sandbox lives. */
export function createLambdaHandler(
  config: () => ServerConfig | Promise<ServerConfig> = () => lambdaConfigFromEnv(process.env),
): LambdaHandler {
  let app: Promise<FastifyInstance> | null = null;
  let proxy: Promise<(event: unknown, context: unknown) => Promise<LambdaResult>> | null = null;
  const handle = async (event: unknown, context: unknown): Promise<LambdaResult> => {
    if (proxy === null) {
      const building = (app = Promise.resolve().then(config).then((c) => buildServer(c)));
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
