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
 *
 * Studies (the control plane: /v1/studies, advanced by a schedule), off unless the bucket is set:
 *   VOLBENCH_STUDY_BUCKET            the bucket studies live in (and the index of them: no store here)
 *   VOLBENCH_STUDY_TOKEN_PARAMETER   the SecureString holding the study token (or VOLBENCH_STUDY_TOKEN)
 *   VOLBENCH_STUDY_MAX_COST, VOLBENCH_STUDY_MAX_CONCURRENT, VOLBENCH_STUDY_INSTANCE_TYPES,
 *   VOLBENCH_STUDY_VOLUME_TYPES (comma-separated; empty: any), VOLBENCH_STUDY_PACKAGE_X64 and
 *   _ARM64 (the members' bundles, keys in the bucket); the region is the function's (AWS_REGION).
 * An invocation whose event is `{"volbench": "advance-studies"}` (the stack's one-minute schedule)
 * advances every open study by the steps that are due, and answers what it did.
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
import { STUDY_DEFAULTS, type StudyConfig } from './studies/study-config.js';
import type { StudyService, TickOutcome } from './studies/study-service.js';

export interface LambdaResult {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  isBase64Encoded?: boolean;
}

/** What the stack's one-minute schedule sends. */
export interface AdvanceEvent {
  volbench: 'advance-studies';
}

export interface LambdaHandler {
  (event: AdvanceEvent, context: unknown): Promise<TickOutcome>;
  (event: unknown, context: unknown): Promise<LambdaResult>;
  /** Stops the app (runs, store) if it was built: for tests and graceful shutdown hooks. */
  close(): Promise<void>;
}

const listOf = (text: string | undefined) => (text ? text.split(',').map((s) => s.trim()).filter(Boolean) : undefined);

function studyNumber(env: NodeJS.ProcessEnv, name: string, fallback: number, integer: boolean): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new VolbenchError('EINVALID_ARGS', `${name} is '${text}'`, { field: name, accepted: integer ? 'a whole number of at least 1' : 'a number above 0' });
  }
  return n;
}

/** Studies as the environment sets them (the stack's Study* parameters), or none without a bucket. */
export function lambdaStudies(env: NodeJS.ProcessEnv, token = env.VOLBENCH_STUDY_TOKEN): StudyConfig | undefined {
  const bucket = env.VOLBENCH_STUDY_BUCKET;
  if (!bucket) return undefined;
  if (!token) {
    throw new VolbenchError('EINVALID_ARGS', 'VOLBENCH_STUDY_TOKEN_PARAMETER or VOLBENCH_STUDY_TOKEN must be set with VOLBENCH_STUDY_BUCKET', {
      field: 'VOLBENCH_STUDY_TOKEN_PARAMETER', accepted: 'the name of an SSM SecureString holding the study token',
    });
  }
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION;
  if (!region) throw new VolbenchError('EINVALID_ARGS', 'AWS_REGION is not set', { field: 'AWS_REGION', accepted: "the function's region (Lambda sets it)" });
  const instanceTypes = listOf(env.VOLBENCH_STUDY_INSTANCE_TYPES);
  const volumeTypes = listOf(env.VOLBENCH_STUDY_VOLUME_TYPES);
  const keys = { ...(env.VOLBENCH_STUDY_PACKAGE_X64 ? { x64: env.VOLBENCH_STUDY_PACKAGE_X64 } : {}), ...(env.VOLBENCH_STUDY_PACKAGE_ARM64 ? { arm64: env.VOLBENCH_STUDY_PACKAGE_ARM64 } : {}) };
  return {
    token, bucket, regions: [region], maxCostUsd: studyNumber(env, 'VOLBENCH_STUDY_MAX_COST', STUDY_DEFAULTS.maxCostUsd, false),
    maxConcurrent: studyNumber(env, 'VOLBENCH_STUDY_MAX_CONCURRENT', STUDY_DEFAULTS.maxConcurrent, true),
    ...(instanceTypes ? { instanceTypes } : {}), ...(volumeTypes ? { volumeTypes } : {}), packages: { keys }, driver: 'schedule', index: 'bucket',
  };
}

export function lambdaConfig(env: NodeJS.ProcessEnv, token = env.VOLBENCH_TOKEN, studyToken = env.VOLBENCH_STUDY_TOKEN): ServerConfig {
  if (!token) {
    throw new VolbenchError('EINVALID_ARGS', 'VOLBENCH_TOKEN_PARAMETER or VOLBENCH_TOKEN must be set for the Lambda handler', {
      field: 'VOLBENCH_TOKEN_PARAMETER', accepted: 'the name of an SSM SecureString holding the token',
    });
  }
  const maxRuntime = env.VOLBENCH_MAX_RUNTIME;
  const extraRoot = env.VOLBENCH_EXTRA_ROOT;
  const studies = lambdaStudies(env, studyToken);
  return {
    token,
    ...(studies ? { studies } : {}),
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
  const studyName = env.VOLBENCH_STUDY_BUCKET ? env.VOLBENCH_STUDY_TOKEN_PARAMETER : undefined;
  if (!name && !studyName) return lambdaConfig(env);
  const { SSMClient, GetParameterCommand } = await import('@aws-sdk/client-ssm');
  const client = awsClient(SSMClient);
  const read = async (parameter: string, field: string): Promise<string> => {
    try {
      const out = await client.send(new GetParameterCommand({ Name: parameter, WithDecryption: true }));
      const token = out.Parameter?.Value;
      if (!token) throw new VolbenchError('EINVALID_ARGS', `SSM parameter ${parameter} has no value`, { field, accepted: 'a SecureString holding the token' });
      return token;
    } catch (err) {
      if (err instanceof VolbenchError) throw err;
      const why = (err as { name?: string; message?: string }).name ?? 'Error';
      throw new VolbenchError('EINVALID_ARGS', `cannot read the token from SSM parameter ${parameter}: ${why}: ${(err as Error).message}`, {
        field, accepted: 'a SecureString the function may read (ssm:GetParameter)',
      });
    }
  };
  try {
    const token = name ? await read(name, 'VOLBENCH_TOKEN_PARAMETER') : env.VOLBENCH_TOKEN;
    const studyToken = studyName ? await read(studyName, 'VOLBENCH_STUDY_TOKEN_PARAMETER') : env.VOLBENCH_STUDY_TOKEN;
    return lambdaConfig(env, token, studyToken);
  } finally {
    client.destroy();
  }
}

/** The schedule's invocation (the stack's rule), not an HTTP request. */
export function isAdvanceEvent(event: unknown): boolean {
  return typeof event === 'object' && event !== null && (event as { volbench?: unknown }).volbench === 'advance-studies';
}

/** A handler that builds the app on its first invocation and reuses it while the sandbox lives. */
export function createLambdaHandler(
  config: () => ServerConfig | Promise<ServerConfig> = () => lambdaConfigFromEnv(process.env),
): LambdaHandler {
  let app: Promise<FastifyInstance> | null = null;
  let proxy: Promise<(event: unknown, context: unknown) => Promise<LambdaResult>> | null = null;
  const handle = async (event: unknown, context: unknown): Promise<LambdaResult | TickOutcome> => {
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
    const http = await proxy;
    if (isAdvanceEvent(event)) {
      const studies = (await app!) as unknown as { studies?: StudyService };
      if (!studies.studies) throw new VolbenchError('EINVALID_ARGS', 'an advance-studies event, and studies are off (no VOLBENCH_STUDY_BUCKET)', { field: 'VOLBENCH_STUDY_BUCKET' });
      return studies.studies.tick();
    }
    return http(event, context);
  };
  return Object.assign(handle as LambdaHandler, {
    async close() {
      if (app !== null) await (await app).close();
      app = null;
      proxy = null;
    },
  });
}

export const handler: LambdaHandler = createLambdaHandler();
