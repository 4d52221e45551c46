/**
 * The rehearsal waits for a stack the fleet is creating without leaving anything of it behind.
 *
 * Regression: the rehearsal polled DescribeStacks while moto was creating the stack; moto renders
 * a stack's outputs by building the resources they name in the asking thread, so the stack got a
 * second instance and security group that outlived its deletion. A rehearsal under load left
 * `leftover security_groups: 1`. Expected: waiters polling as fast as they can while instance.yaml's
 * stack is created each get the complete stack (its parameters read), and once it is deleted
 * moto holds no instance, security group or launch template.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { CloudFormationClient, CreateStackCommand, DeleteStackCommand } from '@aws-sdk/client-cloudformation';
import { DescribeInstancesCommand, DescribeLaunchTemplatesCommand, DescribeSecurityGroupsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { waitForStack } from '../harness/fleet/wait-stack.js';
import { ROOT } from '../helpers/cli.js';
import { freshMoto, type Moto } from '../helpers/moto.js';
import { requires } from '../helpers/requires.js';

const REGION = 'us-east-1';
const needs = requires('moto');
const skip = needs.missing('moto');

describe.skipIf(skip)(`waiting for a stack being created${skip ? ` [skipped: ${skip}]` : ''}`, () => {
  let moto: Moto;
  let cfn: CloudFormationClient;
  let ec2: EC2Client;

  beforeAll(async () => {
    moto = await freshMoto(REGION);
    const config = { region: REGION, endpoint: moto.endpoint, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } };
    cfn = new CloudFormationClient(config);
    ec2 = new EC2Client(config);
  }, 60_000);

  afterAll(async () => {
    cfn?.destroy();
    ec2?.destroy();
  });

  it('leaves no second instance or security group once the stack is deleted', async () => {
    const name = 'volbench-vb0000000077-gp3-8g';
    const waiters = Array.from({ length: 4 }, () => waitForStack(cfn, name, 60_000, { pollMs: 0 }));
    await cfn.send(new CreateStackCommand({
      StackName: name, Capabilities: ['CAPABILITY_IAM'],
      TemplateBody: readFileSync(join(ROOT, 'infra', 'cloudformation', 'instance.yaml'), 'utf8'),
      Parameters: Object.entries({
        FleetId: 'vb0000000077', VolumeLabel: 'gp3-8g', AllowedCidr: '10.0.0.1/32', VolumeType: 'gp3', VolumeSize: '8', ServicePort: '9443',
        TokenParameterName: '/volbench/vb0000000077/gp3-8g/token', ResultsBucket: 'volbench-results',
        TlsKeyParameterName: '/volbench/vb0000000077/tls-key', TlsCertKey: 'vb0000000077/tls.crt', PackageBucket: 'volbench-results',
        PackageKey: 'vb0000000077/bundle/volbench-0.0.0-linux-x64.tar.gz', PackageSha256: '0'.repeat(64), ExpiresAt: '2030-01-01T00:00:00Z',
      }).map(([ParameterKey, ParameterValue]) => ({ ParameterKey, ParameterValue })),
    }));
    for (const stack of await Promise.all(waiters)) {
      expect(stack.StackStatus).toBe('CREATE_COMPLETE');
      expect(stack.Parameters?.find((p) => p.ParameterKey === 'ServicePort')?.ParameterValue).toBe('9443');
    }
    await cfn.send(new DeleteStackCommand({ StackName: name }));
    const instances = (await ec2.send(new DescribeInstancesCommand({}))).Reservations?.flatMap((r) => r.Instances ?? []) ?? [];
    expect(instances.filter((i) => i.State?.Name !== 'terminated').map((i) => i.InstanceId)).toEqual([]);
    const groups = (await ec2.send(new DescribeSecurityGroupsCommand({}))).SecurityGroups ?? [];
    expect(groups.filter((g) => g.GroupName !== 'default').map((g) => g.GroupName)).toEqual([]);
    expect((await ec2.send(new DescribeLaunchTemplatesCommand({}))).LaunchTemplates ?? []).toEqual([]);
  }, 60_000);
});
