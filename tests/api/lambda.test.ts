/**
 * The Lambda handler, invoked with Lambda function URL and API Gateway HTTP API (payload 2.0)
 * events: a POST waits for its run inside the invocation and answers 200 with fio's JSON; runs
 * use /tmp, the store lives under /tmp and is off limits to runs.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createLambdaHandler, handler, lambdaConfig } from '../../src/server/lambda.js';
import { requires } from '../helpers/requires.js';

requires();

const token = `lambda-${process.pid}`;
let dataDir: string;
let workDir: string;
const saved = { ...process.env };

beforeAll(() => {
  dataDir = mkdtempSync(`/tmp/volbench-api-lambda-data-${process.pid}-`);
  workDir = mkdtempSync(`/tmp/volbench-api-lambda-work-${process.pid}-`);
  Object.assign(process.env, { VOLBENCH_TOKEN: token, VOLBENCH_DATA_DIR: dataDir, VOLBENCH_MAX_RUNTIME: '20' });
  delete process.env.VOLBENCH_TARGET_ROOT;
});

afterAll(async () => {
  await handler.close();
  process.env = saved;
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(workDir, { recursive: true, force: true });
});

const context = {
  functionName: 'volbench',
  awsRequestId: 'test-request',
  getRemainingTimeInMillis: () => 60_000,
};

interface Request {
  method: string;
  path: string;
  query?: string;
  body?: string;
  contentType?: string;
  auth?: string | null;
  base64?: boolean;
}

/** A function URL event; API Gateway HTTP APIs send the same payload 2.0 with their own domain. */
function event(req: Request, domain = 'abc123.lambda-url.eu-west-1.on.aws') {
  const headers: Record<string, string> = { host: domain, 'user-agent': 'vitest' };
  if (req.auth !== null) headers.authorization = req.auth ?? `Bearer ${token}`;
  if (req.contentType) headers['content-type'] = req.contentType;
  const body = req.body === undefined ? undefined : req.base64 ? Buffer.from(req.body).toString('base64') : req.body;
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: req.path,
    rawQueryString: req.query ?? '',
    headers,
    ...(req.query ? { queryStringParameters: Object.fromEntries(new URLSearchParams(req.query)) } : {}),
    requestContext: {
      accountId: 'anonymous',
      apiId: domain.split('.')[0],
      domainName: domain,
      domainPrefix: domain.split('.')[0],
      http: { method: req.method, path: req.path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'vitest' },
      requestId: 'test-request',
      routeKey: '$default',
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    ...(body === undefined ? {} : { body }),
    isBase64Encoded: req.base64 ?? false,
  };
}

async function invoke(req: Request, domain?: string) {
  const res = await handler(event(req, domain), context);
  return { ...res, json: () => JSON.parse(res.body) };
}

describe('Lambda handler', () => {
  let runId: string;

  it('runs a JSON spec inside the invocation (function URL event) and answers 200 with the result', async () => {
    const spec = { global: { directory: workDir, size: '4m', direct: 1 }, jobs: [{ name: 'rr', rw: 'randread', bs: '4k', runtime: '1s', time_based: 1 }] };
    const res = await invoke({ method: 'POST', path: '/v1/runs', body: JSON.stringify(spec), contentType: 'application/json' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.status).toBe('finished');
    expect(body.targets).toEqual(['/tmp']);
    expect(body.result.jobs[0].read.total_ios).toBeGreaterThan(0);
    expect(existsSync(join(workDir, 'rr.0.0'))).toBe(true);
    runId = body.id;
  });

  it('takes a fio job file from an API Gateway HTTP API event with a base64 body', async () => {
    const jobFile = `[global]\ndirectory=${workDir}\nsize=4m\n[w]\nrw=write\nbs=64k\n`;
    const res = await invoke({ method: 'POST', path: '/v1/runs', body: jobFile, contentType: 'text/plain', base64: true }, 'api123.execute-api.eu-west-1.amazonaws.com');
    expect(res.statusCode).toBe(200);
    expect(res.json().status).toBe('finished');
    expect(res.json().result.jobs[0].write.io_bytes).toBe(4 * 1024 * 1024);
  });

  it("serves the result in fio's normal format and the run list", async () => {
    const normal = await invoke({ method: 'GET', path: `/v1/runs/${runId}/result`, query: 'format=normal' });
    expect(normal.statusCode).toBe(200);
    expect(normal.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(normal.body).toMatch(/^rr: \(groupid=0, jobs=1\)/);
    const list = await invoke({ method: 'GET', path: '/v1/runs', query: 'status=finished' });
    expect(list.json().runs).toHaveLength(2);
  });

  it('needs the token, and keeps runs out of the store under /tmp', async () => {
    expect((await invoke({ method: 'GET', path: '/v1/runs', auth: null })).statusCode).toBe(401);
    expect((await invoke({ method: 'GET', path: '/v1/healthz', auth: null })).statusCode).toBe(200);
    const spec = { jobs: [{ name: 'x', rw: 'write', filename: join(dataDir, 'volbench.sqlite'), size: '1m' }] };
    const res = await invoke({ method: 'POST', path: '/v1/runs', body: JSON.stringify(spec), contentType: 'application/json' });
    expect(res.statusCode).toBe(403);
    expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  });
});

describe('Lambda configuration', () => {
  it('reads VOLBENCH_MAX_RUNTIME in fio\'s time syntax and refuses what is not a time', () => {
    expect(lambdaConfig({ VOLBENCH_TOKEN: 't', VOLBENCH_MAX_RUNTIME: '10m' }).maxRuntimeSec).toBe(600);
    expect(lambdaConfig({ VOLBENCH_TOKEN: 't', VOLBENCH_MAX_RUNTIME: '90' }).maxRuntimeSec).toBe(90);
    for (const bad of ['ten', '0']) {
      expect(() => lambdaConfig({ VOLBENCH_TOKEN: 't', VOLBENCH_MAX_RUNTIME: bad })).toThrow(/VOLBENCH_MAX_RUNTIME/);
    }
  });

  it('does not keep a failed start: the next invocation builds the app again', async () => {
    let calls = 0;
    const own = createLambdaHandler(() => {
      calls++;
      if (calls === 1) throw new Error('first start fails');
      return lambdaConfig({ ...process.env, VOLBENCH_TARGET_ROOT: workDir, VOLBENCH_DATA_DIR: join(workDir, 'own-data') });
    });
    try {
      await expect(own(event({ method: 'GET', path: '/v1/healthz', auth: null }), context)).rejects.toThrow('first start fails');
      const res = await own(event({ method: 'GET', path: '/v1/healthz', auth: null }), context);
      expect(res.statusCode).toBe(200);
      expect(calls).toBe(2);
    } finally {
      await own.close();
    }
  });
});
