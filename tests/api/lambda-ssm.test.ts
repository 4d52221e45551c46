/**
 * The Lambda handler reads its bearer token from an SSM SecureString at start (the template
 * passes only the parameter's name), through the real AWS SDK against a local AWS emulator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';

import { lambdaConfigFromEnv } from '../../src/server/lambda.js';
import { freshMoto, type Moto } from '../helpers/moto.js';
import { requires } from '../helpers/requires.js';

const needs = requires('moto');

const reason = needs.missing('moto');

describe.skipIf(reason !== undefined)(`Lambda token from SSM${reason ? ` [skipped: ${reason}]` : ''}`, () => {
  let moto: Moto;
  const saved: Record<string, string | undefined> = {};
  beforeAll(async () => {
    moto = await freshMoto();
    for (const [k, v] of Object.entries(moto.env)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
    const ssm = new SSMClient({});
    await ssm.send(new PutParameterCommand({ Name: '/volbench/test/token', Type: 'SecureString', Value: 'sekrit-token-123' }));
    await ssm.send(new PutParameterCommand({ Name: '/volbench/test/study-token', Type: 'SecureString', Value: 'study-sekrit-456' }));
    ssm.destroy();
  }, 30_000);
  afterAll(async () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('reads and decrypts the named SecureString; the environment never holds the token', async () => {
    const env = { VOLBENCH_TOKEN_PARAMETER: '/volbench/test/token', VOLBENCH_TARGET_ROOT: '/tmp', VOLBENCH_FUNCTION_TIMEOUT: '900' };
    const config = await lambdaConfigFromEnv(env);
    expect(config.token).toBe('sekrit-token-123');
    expect(Object.values(env)).not.toContain('sekrit-token-123');
    // 900 s less a tenth: runs end inside the request.
    expect(config.maxRuntimeSec).toBe(810);
  });

  it('names the parameter and the missing permission or value when it cannot read it', async () => {
    await expect(lambdaConfigFromEnv({ VOLBENCH_TOKEN_PARAMETER: '/volbench/test/missing' })).rejects.toMatchObject({
      code: 'EINVALID_ARGS',
      message: expect.stringContaining('/volbench/test/missing'),
    });
  });

  it('reads the study token from its own SecureString when the stack names a study bucket, and names that parameter when it cannot', async () => {
    const env = {
      VOLBENCH_TOKEN_PARAMETER: '/volbench/test/token', VOLBENCH_STUDY_BUCKET: 'studies', VOLBENCH_STUDY_TOKEN_PARAMETER: '/volbench/test/study-token',
      VOLBENCH_STUDY_PACKAGE_X64: 'bundles/volbench-0.1.0-linux-x64.tar.gz', AWS_REGION: 'eu-west-1',
    };
    const config = await lambdaConfigFromEnv(env);
    expect(config.token).toBe('sekrit-token-123');
    expect(config.studies).toMatchObject({ token: 'study-sekrit-456', bucket: 'studies', regions: ['eu-west-1'], driver: 'schedule', index: 'bucket' });
    expect(Object.values(env)).not.toContain('study-sekrit-456');
    // Without a study bucket the parameter is not read: no studies.
    expect((await lambdaConfigFromEnv({ ...env, VOLBENCH_STUDY_BUCKET: '' })).studies).toBeUndefined();
    await expect(lambdaConfigFromEnv({ ...env, VOLBENCH_STUDY_TOKEN_PARAMETER: '/volbench/test/no-study-token' })).rejects.toMatchObject({
      code: 'EINVALID_ARGS', field: 'VOLBENCH_STUDY_TOKEN_PARAMETER', message: expect.stringContaining('/volbench/test/no-study-token'),
    });
  });

  it('mounts a second root (EFS) beside /tmp when VOLBENCH_EXTRA_ROOT is set', async () => {
    const config = await lambdaConfigFromEnv({ VOLBENCH_TOKEN: 't', VOLBENCH_EXTRA_ROOT: '/mnt/efs' });
    expect(config.targetRoots).toEqual(['/tmp', '/mnt/efs']);
  });
});
