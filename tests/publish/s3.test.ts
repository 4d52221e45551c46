/**
 * `volbench report s3://...`: results read from S3 (moto server standing in for it, through the
 * real AWS SDK), one object or every .json object under a prefix as a fleet writes them; a
 * missing object and missing credentials are named.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';

import { volbench } from '../helpers/cli.js';
import { freshMoto, type Moto } from '../helpers/moto.js';
import { requires } from '../helpers/requires.js';
import { FIXTURES } from './helpers.js';

const needs = requires('child', 'moto');

const reason = needs.missing('moto');

describe.skipIf(reason !== undefined)('volbench report from S3', () => {
  let moto: Moto;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    moto = await freshMoto();
    env = { ...process.env, ...moto.env };
    delete env.AWS_PROFILE;
    const s3 = new S3Client({ region: 'us-east-1', endpoint: moto.endpoint, forcePathStyle: true, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
    await s3.send(new CreateBucketCommand({ Bucket: 'vb-results' }));
    for (const v of ['a', 'b', 'c']) {
      await s3.send(new PutObjectCommand({
        Bucket: 'vb-results', Key: `fleet-1/results/vol-${v}.json`, Body: readFileSync(join(FIXTURES, `aws-ssd-vol-${v}.json`)),
      }));
    }
    await s3.send(new PutObjectCommand({ Bucket: 'vb-results', Key: 'fleet-1/results/state.txt', Body: 'not a result' }));
    s3.destroy();
  }, 30_000);

  it('reads every .json object under a prefix, in key order, one row each', async () => {
    const out = await volbench(['report', 's3://vb-results/fleet-1/results/', '--format', 'json'], undefined, env);
    expect(out.code, out.stderr).toBe(0);
    const rows = JSON.parse(out.stdout).groups[0].rows;
    expect(rows.map((r: { source: string }) => r.source)).toEqual(['a', 'b', 'c'].map((v) => `s3://vb-results/fleet-1/results/vol-${v}.json`));
  });

  it('reads one object beside a local file', async () => {
    const out = await volbench(['report', 's3://vb-results/fleet-1/results/vol-b.json', join(FIXTURES, 'aws-ssd-vol-d.json')], undefined, env);
    expect(out.code, out.stderr).toBe(0);
    // A row per result, its object or file named in the last column (Source).
    expect(out.stdout.split('\n').filter((l) => /[/ ](vol-b|aws-ssd-vol-d)\.json \|$/.test(l))).toHaveLength(2);
  });

  it('names a missing object, an empty prefix, and missing credentials', async () => {
    const missing = await volbench(['report', 's3://vb-results/fleet-1/results/vol-z.json'], undefined, env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('s3://vb-results/fleet-1/results/vol-z.json does not exist');
    const empty = await volbench(['report', 's3://vb-results/fleet-2/'], undefined, env);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('s3://vb-results/fleet-2/ holds no .json objects');
    const bare: NodeJS.ProcessEnv = { ...env, AWS_SHARED_CREDENTIALS_FILE: '/nonexistent', AWS_CONFIG_FILE: '/nonexistent', AWS_EC2_METADATA_DISABLED: 'true' };
    delete bare.AWS_ACCESS_KEY_ID;
    delete bare.AWS_SECRET_ACCESS_KEY;
    const anonymous = await volbench(['report', 's3://vb-results/fleet-1/results/'], undefined, bare);
    expect(anonymous.code).not.toBe(0);
    expect(anonymous.stderr).toContain('s3:ListBucket: no AWS credentials');
  });
});
