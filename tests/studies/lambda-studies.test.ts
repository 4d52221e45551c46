/**
 * The Lambda form as the control plane of studies, its handler invoked in-process against moto
 * server as the function URL and the stack's one-minute schedule invoke it: a POST starts the
 * study (and answers at once), then each scheduled invocation advances every open study by the
 * steps that are due, none waiting on a member; the members' objects are written to moto's S3 by
 * the test, as a member would, through the contract's schemas (no member runs here). Lambda has
 * no store: the study is found by listing the index prefix of the bucket. The figures (scheduled
 * invocations to done, the longest) are printed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateBucketCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

import { createLambdaHandler, lambdaConfig, type LambdaHandler, type LambdaResult } from '../../src/server/lambda.js';
import { awsDefaultVpc, freshMoto, type Moto } from '../helpers/moto.js';
import { requires } from '../helpers/requires.js';
import { PlayedMembers } from '../helpers/study-members.js';

const needs = requires('moto');
const reason = needs.missing('moto');
const BUCKET = 'volbench-lambda-studies';
const REGION = 'us-east-1';
const STUDY_TOKEN = `lambda-study-${process.pid}`;
const BUNDLE_KEY = 'bundles/volbench-0.0.0-linux-x64.tar.gz';
const LABELS = ['gp3-1g', 'st1-125g'];

function urlEvent(method: string, path: string, body?: unknown, query = '') {
  const domain = 'abc123.lambda-url.us-east-1.on.aws';
  return {
    version: '2.0', routeKey: '$default', rawPath: path, rawQueryString: query,
    headers: { host: domain, authorization: `Bearer ${STUDY_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(query ? { queryStringParameters: Object.fromEntries(new URLSearchParams(query)) } : {}),
    requestContext: {
      accountId: 'anonymous', apiId: 'abc123', domainName: domain, domainPrefix: 'abc123',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'vitest' },
      requestId: 'r', routeKey: '$default', stage: '$default', time: new Date().toUTCString(), timeEpoch: Date.now(),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    isBase64Encoded: false,
  };
}

const context = { functionName: 'volbench', awsRequestId: 'r', getRemainingTimeInMillis: () => 900_000 };

describe.skipIf(reason !== undefined)(`the Lambda form's studies, against moto${reason ? ` [skipped: ${reason}]` : ''}`, () => {
  let moto: Moto;
  let s3: S3Client;
  let dataDir: string;
  let handler: LambdaHandler;
  const saved = { ...process.env };

  beforeAll(async () => {
    moto = await freshMoto(REGION);
    // An internet gateway and its route, as every AWS default VPC has (preflight reads them).
    await awsDefaultVpc(moto, REGION);
    Object.assign(process.env, moto.env);
    s3 = new S3Client({ region: REGION, endpoint: moto.endpoint, forcePathStyle: true, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: BUNDLE_KEY, Body: 'a stand-in for the bundle' }));
    dataDir = mkdtempSync(`/tmp/volbench-lambda-studies-${process.pid}-`);
    const env = {
      ...process.env, AWS_REGION: REGION, VOLBENCH_TOKEN: `run-${process.pid}`, VOLBENCH_STUDY_TOKEN: STUDY_TOKEN, VOLBENCH_STUDY_BUCKET: BUCKET,
      VOLBENCH_STUDY_PACKAGE_X64: BUNDLE_KEY, VOLBENCH_STUDY_MAX_COST: '5', VOLBENCH_DATA_DIR: dataDir, VOLBENCH_TARGET_ROOT: dataDir,
    };
    handler = createLambdaHandler(() => lambdaConfig(env));
  }, 60_000);

  afterAll(async () => {
    await handler?.close();
    process.env = saved;
    s3?.destroy();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const call = async (method: string, path: string, body?: unknown, query?: string) => {
    const out: LambdaResult = await handler(urlEvent(method, path, body, query), context);
    return { status: out.statusCode, body: out.body && /json/.test(out.headers['content-type'] ?? '') ? JSON.parse(out.body) : out.body, headers: out.headers };
  };

  it('a POST starts a study; the schedule advances it to done, one invocation at a time, none waiting on a member', async () => {
    const region = await call('POST', '/v1/studies', { volumes: ['gp3:1g'], region: 'eu-west-1' });
    expect(region.status).toBe(403);
    expect(region.body).toMatchObject({ field: 'region', limit: '--study-regions' });

    const created = await call('POST', '/v1/studies', { volumes: ['gp3:1g', 'st1:125g'], runtime: '2s' });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const { id } = created.body;
    expect(created.headers.location).toBe(`/v1/studies/${id}`);
    // No store: the study is an object under the bucket's index prefix.
    const index = (await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'volbench-studies/' }))).Contents ?? [];
    expect(index.map((o) => o.Key)).toEqual([`volbench-studies/${id}.json`]);
    expect((await call('GET', `/v1/studies/${id}`)).body.lease).toBeUndefined();

    const members = new PlayedMembers(s3, BUCKET);
    const ticks: Array<{ ms: number; to: string }> = [];
    const tick = async () => {
      const started = performance.now();
      const out = await handler({ volbench: 'advance-studies' }, context);
      const mine = out.advanced.find((a) => a.id === id);
      expect(out.skipped).toEqual([]);
      ticks.push({ ms: performance.now() - started, to: mine!.to });
      return mine!.to;
    };
    let step = '';
    for (let i = 0; i < 10 && step !== 'running'; i++) step = await tick();
    expect(step).toBe('running');
    // Running: nothing is due until a member writes; an invocation looks once and returns.
    expect(await tick()).toBe('running');
    await members.progress(id, LABELS[0], 1, 3, 40, 30);
    expect(await tick()).toBe('running');
    const view = (await call('GET', `/v1/studies/${id}`)).body;
    expect(view.members[0].progress).toMatchObject({ test_index: 1, percent: 40 });
    expect(view.members.map((m: { volume: string }) => m.volume)).toEqual(['gp3:1g', 'st1:125g']);
    for (const label of LABELS) await members.done(id, label);
    for (let i = 0; i < 10 && step !== 'done'; i++) step = await tick();
    expect(step).toBe('done');
    // Done: the next invocation finds nothing open.
    expect((await handler({ volbench: 'advance-studies' }, context)).advanced).toEqual([]);

    const report = await call('GET', `/v1/studies/${id}/report`, undefined, 'format=json');
    expect(report.status).toBe(200);
    expect(report.body.groups.flatMap((g: { rows: unknown[] }) => g.rows)).toHaveLength(2);
    const list = await call('GET', '/v1/studies');
    expect(list.body.studies).toEqual([expect.objectContaining({ id, step: 'done' })]);
    const longest = Math.max(...ticks.map((t) => t.ms));
    console.log(`lambda studies: ${ticks.length} scheduled invocations from POST to done (${ticks.map((t) => t.to).join(' → ')}); longest ${longest.toFixed(0)} ms`);
    expect(longest).toBeLessThan(60_000);
  }, 120_000);
});
