/**
 * Every AWS client is made one way (src/cloud/aws-clients.ts): the region and profile given,
 * else the standard chain; one retry policy; AWS_ENDPOINT_URL as the SDK reads it, which is how
 * the tests reach moto. Before, five places made clients with three retry policies, and only
 * fleets and the price refresh honoured --profile.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { awsClient, awsClientConfig, awsRegion, AWS_MAX_ATTEMPTS, checkAwsRegion } from '../../src/cloud/index.js';
import { errorOf } from '../helpers/errors.js';
import { freshMoto, type Moto } from '../helpers/moto.js';
import { requires } from '../helpers/requires.js';

const needs = requires('moto');

describe('the client configuration', () => {
  it('is the region, profile and endpoint given, and one retry policy', () => {
    expect(awsClientConfig({ region: 'eu-west-1', profile: 'p', endpoint: 'http://127.0.0.1:1' })).toEqual({
      region: 'eu-west-1', profile: 'p', endpoint: 'http://127.0.0.1:1', maxAttempts: AWS_MAX_ATTEMPTS, retryMode: 'standard',
    });
    expect(awsClientConfig({})).toEqual({ maxAttempts: AWS_MAX_ATTEMPTS, retryMode: 'standard' });
  });

  it('addresses S3 by path with an emulator, and follows a bucket to its region', () => {
    expect(awsClientConfig({ endpoint: 'http://127.0.0.1:1' }, 's3')).toMatchObject({ forcePathStyle: true, followRegionRedirects: true });
  });

  it('checks a region by one pattern, from the flag or the environment', () => {
    expect(checkAwsRegion('us-gov-west-1')).toBe('us-gov-west-1');
    expect(errorOf(() => checkAwsRegion('mars')).field).toBe('--region');
    expect(awsRegion(undefined, '--region', { AWS_DEFAULT_REGION: 'ap-south-1' })).toBe('ap-south-1');
    expect(errorOf(() => awsRegion(undefined, '--region', {})).message).toMatch(/no region/);
  });
});

const skip = needs.missing('moto');

describe.skipIf(skip !== undefined)(`clients against moto${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let moto: Moto;
  const saved = { ...process.env };
  const home = mkdtempSync(join(tmpdir(), `volbench-aws-${process.pid}-`));
  beforeAll(async () => {
    moto = await freshMoto();
    Object.assign(process.env, moto.env);
  });
  afterAll(async () => {
    process.env = saved;
    rmSync(home, { recursive: true, force: true });
  });

  it('reach the endpoint AWS_ENDPOINT_URL names, with no endpoint of their own', async () => {
    const sts = awsClient(STSClient, { region: 'us-east-1' });
    try {
      const who = await sts.send(new GetCallerIdentityCommand({}));
      expect(who.Account).toMatch(/^\d{12}$/);
    } finally {
      sts.destroy();
    }
    const s3 = awsClient(S3Client, { region: 'us-east-1' }, 's3');
    expect(await s3.config.forcePathStyle).toBe(true);
    s3.destroy();
  });

  it("take a profile's credentials from the shared files when given one", async () => {
    const credentials = join(home, 'credentials');
    writeFileSync(credentials, '[bench]\naws_access_key_id = AKIDBENCHPROFILE\naws_secret_access_key = secret\n');
    process.env.AWS_SHARED_CREDENTIALS_FILE = credentials;
    process.env.AWS_CONFIG_FILE = join(home, 'config');
    writeFileSync(process.env.AWS_CONFIG_FILE, '');
    const sts = awsClient(STSClient, { region: 'us-east-1', profile: 'bench' });
    try {
      expect((await sts.config.credentials()).accessKeyId).toBe('AKIDBENCHPROFILE');
    } finally {
      sts.destroy();
    }
  });
});
