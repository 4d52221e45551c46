/**
 * The autonomous member's agent, run for real: against moto's S3 (and CloudFormation, behind the
 * rehearsal's SignalResource stand-in), on a file in tmpfs standing for its device. It writes
 * the contract's objects under its own prefix and nowhere else (progress.json as the run moves,
 * result.json that is fio's JSON with the volume's entitlements, member.log, done.json last),
 * sends with every write the encryption header the bucket's default names (as the CLI does), and
 * signals its stack once. A spec whose SHA-256 is not its stack's is refused: nothing of it runs,
 * done.json and the stack's FAILURE say why.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudFormationClient, CreateStackCommand } from '@aws-sdk/client-cloudformation';
import { CreateBucketCommand, DeleteBucketEncryptionCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutBucketEncryptionCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

import { fioResultSchema } from '../../src/api/fio-result.js';
import { memberDoneSchema, memberProgressSchema, type MemberProgress, type StudySpec } from '../../src/api/study-objects.js';
import { runMemberAgent, type MemberAgentOptions } from '../../src/fleet/member-agent/index.js';
import { SignalStandIn } from '../harness/sandbox/signal-standin.js';
import { freshMoto, type Moto } from '../helpers/moto.js';
import { requires } from '../helpers/requires.js';

const needs = requires('moto', 'tmpfs', 'libaio');

const reason = needs.missing('moto', 'tmpfs', 'libaio');
const BUCKET = 'volbench-member-agent';
const FLEET = 'vb00000000a7';
const LABEL = 'gp3-8g';
const STACK = `volbench-${FLEET}-${LABEL}`;
const MiB = 1024 * 1024;

/** Two stages of 1 s on the member's device: a random read, then a random write. */
const JOB = `[global]
ioengine=psync
direct=1
bs=4k
size=8m
time_based
runtime=1s

[rr]
rw=randread

[rw]
stonewall
rw=randwrite
`;

function specOf(extra: Partial<StudySpec['members'][0]> = {}): StudySpec {
  return {
    schema_version: 1, fleet_id: FLEET, region: 'us-east-1', instance_type: 'm6i.large', created_at: new Date().toISOString(),
    members: [
      { label: LABEL, job: JOB, volume: 'gp3:8g', precondition_bytes: 4 * MiB, assert: ['rr.read.iops > 0'], ...extra },
      { label: 'st1-2t', suite: 'aws-hdd', volume: 'st1:2t' },
    ],
  };
}

describe.skipIf(reason !== undefined)(`the member agent against moto${reason ? ` [skipped: ${reason}]` : ''}`, () => {
  let moto: Moto;
  let aws: SignalStandIn;
  let s3: S3Client;
  let cfn: CloudFormationClient;
  let dir: string;
  let device: string;
  /** Every progress.json as the agent sent it. */
  const progressSent: MemberProgress[] = [];

  const text = async (Key: string) => (await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key }))).Body!.transformToString();
  const keys = async () => ((await s3.send(new ListObjectsV2Command({ Bucket: BUCKET }))).Contents ?? []).map((o) => o.Key!).sort();

  async function putSpec(spec: StudySpec): Promise<string> {
    const body = `${JSON.stringify(spec)}\n`;
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${FLEET}/study/spec.json`, Body: body }));
    return createHash('sha256').update(body).digest('hex');
  }

  function agent(specSha256: string, extra: Partial<MemberAgentOptions> = {}) {
    return runMemberAgent({
      s3, bucket: BUCKET, fleetId: FLEET, label: LABEL, specSha256, device, progressEveryMs: 300,
      stack: { cfn, stackName: STACK, instanceId: 'i-0123456789abcdef0' }, ...extra,
    });
  }

  beforeAll(async () => {
    moto = await freshMoto('us-east-1');
    aws = new SignalStandIn({ moto: moto.endpoint });
    const front = await aws.listen('127.0.0.1');
    const config = { region: 'us-east-1', endpoint: front.url, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } };
    s3 = new S3Client({ ...config, forcePathStyle: true });
    cfn = new CloudFormationClient(config);
    // What the agent sends, seen on the wire side of the SDK: each progress.json as written.
    s3.middlewareStack.add((next) => async (args) => {
      const input = args.input as { Key?: string; Body?: unknown };
      if (input.Key?.endsWith('/progress.json') && typeof input.Body === 'string') progressSent.push(JSON.parse(input.Body));
      return next(args);
    }, { step: 'initialize', name: 'progressSeen' });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    await cfn.send(new CreateStackCommand({
      StackName: STACK, TemplateBody: JSON.stringify({ Resources: { Handle: { Type: 'AWS::CloudFormation::WaitConditionHandle' } } }),
    }));
    dir = mkdtempSync('/dev/shm/volbench-member-agent-');
    device = join(dir, 'nvme1n1');
    writeFileSync(device, Buffer.alloc(16 * MiB));
  }, 60_000);

  afterAll(async () => {
    s3?.destroy();
    cfn?.destroy();
    await aws?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a spec whose SHA-256 is not its stack\'s: nothing runs, done.json and the stack\'s FAILURE say why', async () => {
    await putSpec(specOf());
    const outcome = await agent('0'.repeat(64));
    expect(outcome).toMatchObject({ status: 'failed', exitCode: 2 });
    expect(outcome.reason).toMatch(/^fetching: the spec is not the one this member's stack names: .*has SHA-256 [0-9a-f]{64}, not 0{64} \(StudySpecSha256\)/);
    const done = memberDoneSchema.parse(JSON.parse(await text(`${FLEET}/${LABEL}/done.json`)));
    expect(done).toMatchObject({ label: LABEL, status: 'failed', exit_code: 2 });
    expect(done.result_sha256).toBeUndefined();
    expect(await keys()).toEqual([`${FLEET}/${LABEL}/done.json`, `${FLEET}/${LABEL}/member.log`, `${FLEET}/${LABEL}/progress.json`, `${FLEET}/study/spec.json`]);
    const signals = aws.signals(STACK);
    expect(signals).toHaveLength(1);
    expect(signals[0]).toMatchObject({ resource: 'Instance', status: 'FAILURE' });
    expect(signals[0].uniqueId).toBe('fetching__the_spec_is_not_the_one_this_member_s_stack_names__s3_');
    expect(progressSent.at(-1)).toMatchObject({ label: LABEL, step: 'failed' });
  }, 30_000);

  it('runs its job on its device and writes progress, result, log and done.json under its own prefix only', async () => {
    progressSent.length = 0;
    const before = aws.signals(STACK).length;
    const sha = await putSpec(specOf());
    const outcome = await agent(sha);
    expect(outcome, outcome.reason).toMatchObject({ status: 'ok', exitCode: 0 });

    // Nothing outside FLEET/LABEL/ but the spec the test wrote.
    const prefix = `${FLEET}/${LABEL}/`;
    expect((await keys()).filter((k) => !k.startsWith(prefix))).toEqual([`${FLEET}/study/spec.json`]);
    expect((await keys()).filter((k) => k.startsWith(prefix))).toEqual(['done.json', 'member.log', 'progress.json', 'result.json'].map((n) => prefix + n));
    for (const name of ['done.json', 'member.log', 'progress.json', 'result.json']) {
      const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: prefix + name }));
      expect(head.ServerSideEncryption, name).toBe('AES256');
    }

    // result.json: fio's JSON, held against gp3:8g behind m6i.large, with its gate; done.json names its digest.
    const resultText = await text(`${prefix}result.json`);
    const result = fioResultSchema.parse(JSON.parse(resultText)) as { jobs: Array<{ jobname: string; read: { io_bytes: number } }>; volbench: any };
    expect(result.jobs.map((j) => j.jobname)).toEqual(['rr', 'rw']);
    expect(result.jobs[0].read.io_bytes).toBeGreaterThan(0);
    expect(result.volbench.cloud).toMatchObject({ instance_type: 'm6i.large', region: 'us-east-1', volume: { type: 'gp3', size_gib: 8 } });
    expect(result.volbench.jobs[0].entitlement.bound_by).toBeDefined();
    expect(result.volbench.assertions).toEqual([expect.objectContaining({ passed: true })]);
    const done = memberDoneSchema.parse(JSON.parse(await text(`${prefix}done.json`)));
    expect(done).toMatchObject({ label: LABEL, status: 'ok', exit_code: 0, result_sha256: createHash('sha256').update(resultText).digest('hex') });

    // progress.json followed the run: its steps in order, each stage as test i of 2, rates once
    // running. One write at a time, the newest waiting: a step shorter than a write to S3 (the
    // upload, the precondition of a small device) can be overtaken by the next, as it was once on
    // a busy machine; the first step, the run and the end are always written.
    const seen = progressSent.map((p) => memberProgressSchema.parse(p));
    const steps = seen.map((p) => p.step).filter((s, i, all) => s !== all[i - 1]);
    const ORDER: string[] = ['fetching', 'preconditioning', 'running', 'uploading', 'done'];
    expect(ORDER.filter((s) => (steps as string[]).includes(s))).toEqual(steps);
    expect([steps[0], steps.includes('running'), steps.at(-1)]).toEqual(['fetching', true, 'done']);
    const running = seen.filter((p) => p.step === 'running');
    expect(running.filter((p) => p.test_index === 1 && p.tests_total === 2 && p.test === 'rr').length).toBeGreaterThan(0);
    expect(running.filter((p) => p.test_index === 2 && p.test === 'rw').length).toBeGreaterThan(0);
    expect(running.some((p) => (p.iops ?? 0) > 0 && p.percent !== undefined && p.clat_p99_us !== undefined)).toBe(true);
    expect(seen.at(-1)).toMatchObject({ step: 'done', percent: 100 });
    expect(JSON.parse(await text(`${prefix}progress.json`))).toMatchObject({ step: 'done' });

    expect(await text(`${prefix}member.log`)).toMatch(/spec accepted \(sha256 [0-9a-f]{64}\): a job file on gp3:8g[\s\S]*step: preconditioning[\s\S]*stage 2\/2: rw[\s\S]*done: ok, exit 0/);
    const signals = aws.signals(STACK).slice(before);
    expect(signals.map((s) => [s.resource, s.status, s.uniqueId])).toEqual([['Instance', 'SUCCESS', 'i-0123456789abcdef0']]);
  }, 60_000);

  it('writes under the bucket\'s default encryption, as the CLI does (its own KMS key, aws/s3, SSE-S3), and refuses a job that names another target', async () => {
    const sha = await putSpec(specOf({ job: JOB.replace('[rr]', '[rr]\nfilename=/etc/hostname') }));
    const key = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
    const written = async (rule: { SSEAlgorithm: 'aws:kms' | 'AES256'; KMSMasterKeyID?: string } | undefined) => {
      if (rule) await s3.send(new PutBucketEncryptionCommand({ Bucket: BUCKET, ServerSideEncryptionConfiguration: { Rules: [{ ApplyServerSideEncryptionByDefault: rule }] } }));
      else await s3.send(new DeleteBucketEncryptionCommand({ Bucket: BUCKET }));
      // A member is its own process: its client has read no bucket's encryption yet.
      const own = new S3Client({ region: 'us-east-1', endpoint: moto.endpoint, forcePathStyle: true, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
      try {
        const outcome = await agent(sha, { s3: own, stack: undefined });
        expect(outcome).toMatchObject({ status: 'failed', exitCode: 2 });
        expect(outcome.reason).toMatch(/fetching: the spec's job rr for gp3-8g names its own target \(\/etc\/hostname\)/);
      } finally {
        own.destroy();
      }
      return s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `${FLEET}/${LABEL}/done.json` }));
    };
    expect(await written({ SSEAlgorithm: 'aws:kms', KMSMasterKeyID: key })).toMatchObject({ ServerSideEncryption: 'aws:kms', SSEKMSKeyId: key });
    // aws/s3: the bucket names no key; a policy that asks for aws:kms holds.
    expect((await written({ SSEAlgorithm: 'aws:kms' })).ServerSideEncryption).toBe('aws:kms');
    expect((await written(undefined)).ServerSideEncryption).toBe('AES256');
  }, 60_000);

  it('names no object outside a member\'s folder: a reserved label writes nothing', async () => {
    const count = (await keys()).length;
    await expect(runMemberAgent({ s3, bucket: BUCKET, fleetId: FLEET, label: 'study', specSha256: '0'.repeat(64), device })).rejects.toMatchObject({ code: 'EFLEET_STATE', field: 'label' });
    expect((await keys()).length).toBe(count);
  });
});
