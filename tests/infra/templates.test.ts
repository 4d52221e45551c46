/**
 * The CloudFormation templates in infra/: cfn-lint clean, and the properties the fleet relies on
 * (IMDSv2 only, the service port open to one network, the token never in clear, every resource
 * of a fleet tagged with it, nothing kept after the stack is deleted).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, type Tags } from 'yaml';

const dir = join(import.meta.dirname, '..', '..', 'infra', 'cloudformation');
const templates = ['instance.yaml', 'lambda.yaml'];

const lint = spawnSync('cfn-lint', ['--version'], { encoding: 'utf8' });
const lintReason = lint.status === 0 ? undefined : 'cfn-lint is not installed (pip install cfn-lint)';

// CloudFormation's short forms (!Ref, !Sub, …) as plain objects, so the tests can walk them.
const CFN_TAGS = ['Ref', 'Sub', 'GetAtt', 'If', 'Equals', 'Not', 'And', 'Or', 'Join', 'Base64', 'Select', 'Split', 'Condition',
  'FindInMap', 'GetAZs', 'ImportValue'];
const customTags: Tags = CFN_TAGS.flatMap((name) => (['scalar', 'seq', 'map'] as const).map((collection) => ({
  tag: `!${name}`,
  collection: collection === 'scalar' ? undefined : collection,
  resolve: (value: unknown) => ({ [name === 'Ref' || name === 'Condition' ? name : `Fn::${name}`]: (value as { toJSON?: () => unknown })?.toJSON?.() ?? value }),
}))) as Tags;

function load(name: string): any {
  return parse(readFileSync(join(dir, name), 'utf8'), { customTags });
}

describe.skipIf(lintReason !== undefined)(`cfn-lint${lintReason ? ` [skipped: ${lintReason}]` : ''}`, () => {
  for (const name of templates) {
    it(`${name} has no error or warning`, () => {
      const out = spawnSync('cfn-lint', ['--format', 'json', join(dir, name)], { encoding: 'utf8' });
      expect(JSON.parse(out.stdout || '[]')).toEqual([]);
      expect(out.status).toBe(0);
    });
  }
});

describe('instance.yaml', () => {
  const t = load('instance.yaml');
  const r = t.Resources;

  it('requires IMDSv2 and is EBS-optimized', () => {
    expect(r.LaunchTemplate.Properties.LaunchTemplateData.MetadataOptions.HttpTokens).toBe('required');
    expect(r.Instance.Properties.EbsOptimized).toBe(true);
    expect(r.Instance.Properties.LaunchTemplate.LaunchTemplateId).toEqual({ Ref: 'LaunchTemplate' });
  });

  it('opens the service port to AllowedCidr only, and nothing else', () => {
    const ingress = r.ServiceSecurityGroup.Properties.SecurityGroupIngress;
    expect(ingress).toHaveLength(1);
    expect(ingress[0]).toMatchObject({ IpProtocol: 'tcp', FromPort: { Ref: 'ServicePort' }, ToPort: { Ref: 'ServicePort' }, CidrIp: { Ref: 'AllowedCidr' } });
  });

  it('tags every instance, volume and group with the fleet id', () => {
    for (const name of ['Instance', 'DataVolume', 'ServiceSecurityGroup', 'InstanceRole']) {
      expect(r[name].Properties.Tags, name).toContainEqual({ Key: 'volbench:fleet', Value: { Ref: 'FleetId' } });
    }
    const rootTags = r.LaunchTemplate.Properties.LaunchTemplateData.TagSpecifications[0];
    expect(rootTags.ResourceType).toBe('volume');
    expect(rootTags.Tags).toContainEqual({ Key: 'volbench:fleet', Value: { Ref: 'FleetId' } });
  });

  it('deletes its volumes with the stack', () => {
    expect(r.DataVolume.DeletionPolicy).toBe('Delete');
    expect(r.Instance.Properties.BlockDeviceMappings[0].Ebs.DeleteOnTermination).toBe(true);
  });

  it('reads the token from SSM on the instance: no parameter holds it, the user data names only the parameter', () => {
    const userData = JSON.stringify(r.Instance.Properties.UserData);
    expect(userData).toContain('aws ssm get-parameter');
    expect(userData).toContain('--with-decryption');
    expect(userData).toContain('--token-file /etc/volbench/token');
    expect(userData).not.toMatch(/--token[ =][^f]/);
    expect(Object.keys(t.Parameters)).not.toContain('Token');
  });

  it('lets the instance write results under its prefix only, and signal its own stack', () => {
    const statements = r.InstanceRole.Properties.Policies[0].PolicyDocument.Statement;
    const put = statements.find((s: { Sid: string }) => s.Sid === 'Results');
    expect(put.Action).toBe('s3:PutObject');
    expect(put.Resource['Fn::Sub']).toMatch(/\$\{ResultsBucket\}\/\$\{ResultsPrefix\}\*$/);
    const signal = statements.find((s: { Sid: string }) => s.Sid === 'Signal');
    expect(signal.Resource).toEqual({ Ref: 'AWS::StackId' });
  });

  it('holds the stack until the service answers (cfn-signal on the Ready wait condition)', () => {
    expect(r.Ready.CreationPolicy.ResourceSignal.Count).toBe(1);
    expect(JSON.stringify(r.Instance.Properties.UserData)).toMatch(/v1\/healthz.*signal 0/s);
  });

  it('outputs the endpoint, the instance and the volume', () => {
    expect(Object.keys(t.Outputs)).toEqual(expect.arrayContaining(['Endpoint', 'InstanceId', 'VolumeId']));
  });
});

describe('lambda.yaml', () => {
  const t = load('lambda.yaml');
  const r = t.Resources;

  it('runs a supported Node.js runtime (22 or newer)', () => {
    for (const runtime of t.Parameters.Runtime.AllowedValues) expect(Number(/^nodejs(\d+)\.x$/.exec(runtime)?.[1])).toBeGreaterThanOrEqual(22);
  });

  it('passes the token parameter\'s name, never a token, and defaults to IAM auth', () => {
    const vars = r.Function.Properties.Environment.Variables;
    expect(vars.VOLBENCH_TOKEN_PARAMETER).toEqual({ Ref: 'TokenParameterName' });
    expect(vars).not.toHaveProperty('VOLBENCH_TOKEN');
    expect(t.Parameters.AuthType.Default).toBe('AWS_IAM');
  });

  it('sizes /tmp up to 10 GiB and keeps logs for a bounded time', () => {
    expect(t.Parameters.EphemeralStorageMiB.MaxValue).toBe(10240);
    expect(r.LogGroup.Properties.RetentionInDays).toEqual({ Ref: 'LogRetentionDays' });
  });
});
