/**
 * The CloudFormation templates in infra/: cfn-lint clean, and the properties the fleet relies on
 * (IMDSv2 only, the service port open to one network, the token never in clear, every resource
 * of a fleet tagged with it and its expiry, nothing kept after the stack is deleted, no output
 * that fails in a private subnet, no read permission on every resource, a boot with no internet).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, type Tags } from 'yaml';

import { requires } from '../helpers/requires.js';

const needs = requires('child', 'cfn-lint');

const dir = join(import.meta.dirname, '..', '..', 'infra', 'cloudformation');
const templates = ['instance.yaml', 'lambda.yaml', 'study-roles.yaml'];

const lintReason = needs.missing('cfn-lint');

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
  const userData = (): string => r.Instance.Properties.UserData['Fn::Base64']['Fn::Sub'];
  const statements = (): Array<{ Sid?: string; Action: string | string[]; Resource: unknown }> =>
    r.InstanceRole.Properties.Policies.flatMap((p: any) => p.PolicyDocument.Statement)
      .map((s: any) => (s['Fn::If'] ? s['Fn::If'][1] : s));

  it('requires IMDSv2, is EBS-optimized and terminates when it shuts itself down', () => {
    expect(r.LaunchTemplate.Properties.LaunchTemplateData.MetadataOptions.HttpTokens).toBe('required');
    expect(r.Instance.Properties.EbsOptimized).toBe(true);
    expect(r.Instance.Properties.LaunchTemplate.LaunchTemplateId).toEqual({ Ref: 'LaunchTemplate' });
    expect(r.Instance.Properties.InstanceInitiatedShutdownBehavior).toBe('terminate');
  });

  it('opens the service port to AllowedCidr only, and nothing else', () => {
    const ingress = r.ServiceSecurityGroup.Properties.SecurityGroupIngress;
    expect(ingress).toHaveLength(1);
    expect(ingress[0]).toMatchObject({ IpProtocol: 'tcp', FromPort: { Ref: 'ServicePort' }, ToPort: { Ref: 'ServicePort' }, CidrIp: { Ref: 'AllowedCidr' } });
  });

  it('tags every resource that takes tags with the fleet id and its expiry', () => {
    for (const name of ['Instance', 'ServiceSecurityGroup', 'InstanceRole']) {
      expect(r[name].Properties.Tags, name).toContainEqual({ Key: 'volbench:fleet', Value: { Ref: 'FleetId' } });
      expect(r[name].Properties.Tags, name).toContainEqual({ Key: 'volbench:expires', Value: { Ref: 'ExpiresAt' } });
    }
    const volumeTags = r.LaunchTemplate.Properties.LaunchTemplateData.TagSpecifications[0];
    expect(volumeTags.ResourceType).toBe('volume');
    expect(volumeTags.Tags).toContainEqual({ Key: 'volbench:expires', Value: { Ref: 'ExpiresAt' } });
    expect(r.LaunchTemplate.Properties.TagSpecifications[0].Tags).toContainEqual({ Key: 'volbench:expires', Value: { Ref: 'ExpiresAt' } });
  });

  it('makes the data volume part of the instance: mapped at launch, encrypted, deleted with it', () => {
    const types = Object.values(r).map((x: any) => x.Type);
    expect(types).not.toContain('AWS::EC2::Volume');
    expect(types).not.toContain('AWS::EC2::VolumeAttachment');
    const mappings = r.LaunchTemplate.Properties.LaunchTemplateData.BlockDeviceMappings;
    expect(mappings[0].Ebs).toMatchObject({ DeleteOnTermination: true, Encrypted: true });
    const data = mappings[1]['Fn::If'];
    expect(data[0]).toBe('IsInstanceStore');
    expect(data[2].DeviceName).toBe('/dev/sdf');
    expect(data[2].Ebs).toMatchObject({
      VolumeType: { Ref: 'VolumeType' }, VolumeSize: { Ref: 'VolumeSize' }, Encrypted: true, DeleteOnTermination: true,
      Iops: { 'Fn::If': ['HasIops', { Ref: 'VolumeIops' }, { Ref: 'AWS::NoValue' }] },
      Throughput: { 'Fn::If': ['HasThroughput', { Ref: 'VolumeThroughput' }, { Ref: 'AWS::NoValue' }] },
    });
    // A mapping on the instance would replace the launch template's.
    expect(r.Instance.Properties.BlockDeviceMappings).toBeUndefined();
  });

  it('picks the AMI by the type\'s architecture from the public SSM parameters', () => {
    expect(r.Instance.Properties.ImageId).toEqual({ 'Fn::If': ['IsArm', { Ref: 'ImageIdArm64' }, { Ref: 'ImageIdX8664' }] });
    expect(t.Parameters.ImageIdArm64.Default).toMatch(/al2023-ami-kernel-default-arm64$/);
    expect(t.Parameters.ImageIdX8664.Default).toMatch(/al2023-ami-kernel-default-x86_64$/);
    expect(t.Parameters.Architecture.AllowedValues).toEqual(['x86_64', 'arm64']);
  });

  it('has no output that reads PublicIp unconditionally (a subnet without public addresses would fail the stack)', () => {
    for (const [name, output] of Object.entries(t.Outputs) as Array<[string, any]>) {
      if (JSON.stringify(output.Value).includes('PublicIp')) expect(output.Condition, name).toBe('HasPublicAddress');
    }
    expect(JSON.stringify(t.Outputs.PrivateEndpoint.Value)).toContain('Instance.PrivateIp');
    expect(t.Outputs.PrivateEndpoint.Condition).toBeUndefined();
  });

  it('checks every string parameter with a pattern or a list', () => {
    for (const [name, param] of Object.entries(t.Parameters) as Array<[string, any]>) {
      if (param.Type !== 'String') continue;
      expect(param.AllowedPattern ?? param.AllowedValues, name).toBeDefined();
    }
    expect(t.Parameters).not.toHaveProperty('PackageVersion');
    expect(t.Parameters.PackageSha256.AllowedPattern).toBe('^[0-9a-f]{64}$');
  });

  it('gives the member no resource wildcard on ssm:Get*, s3: or kms:, and no managed policy', () => {
    expect(r.InstanceRole.Properties.ManagedPolicyArns).toBeUndefined();
    const reads = /^(ssm:(Get|\*)|s3:|kms:|\*$)/i;
    for (const s of statements()) {
      const actions = [s.Action].flat();
      const resources = [s.Resource].flat();
      if (actions.some((a) => reads.test(a))) expect(resources, s.Sid).not.toContain('*');
      if (resources.includes('*')) for (const a of actions) expect(a, s.Sid).toMatch(/^(ssmmessages:|ec2messages:|ssm:UpdateInstanceInformation$|ec2:DescribeVolumes$)/);
    }
    const byId = Object.fromEntries(statements().map((s) => [s.Sid, s]));
    expect(byId.BucketKey).toMatchObject({ Action: 'kms:Decrypt', Resource: { Ref: 'PackageKmsKeyArn' } });
    // Results are the CLI's to upload: a member (which runs jobs for anyone with its token) writes nothing to S3.
    expect(byId.Results).toBeUndefined();
    expect(statements().flatMap((st) => [st.Action].flat()).filter((a) => /^s3:Put/.test(a))).toEqual([]);
    expect(byId.Signal.Resource).toEqual({ Ref: 'AWS::StackId' });
    expect(JSON.stringify(byId.Secrets.Resource)).toContain('parameter${TokenParameterName}');
  });

  it('uses an existing instance profile when named, and creates no IAM resource then', () => {
    expect(r.InstanceRole.Condition).toBe('CreateProfile');
    expect(r.InstanceProfile.Condition).toBe('CreateProfile');
    expect(r.Instance.Properties.IamInstanceProfile).toEqual({ 'Fn::If': ['CreateProfile', { Ref: 'InstanceProfile' }, { Ref: 'InstanceProfileName' }] });
  });

  it('boots with no internet: no package manager, no npm, no address but IMDS and loopback', () => {
    const text = userData();
    expect(text).not.toMatch(/\b(dnf|yum|npm|pip|cfn-signal)\b/);
    for (const url of text.match(/https?:\/\/[^\s"']+/g) ?? []) expect(url).toMatch(/^https?:\/\/(169\.254\.169\.254|127\.0\.0\.1)[:/]/);
    expect(text).toContain("s3://${PackageBucket}/${PackageKey}");
    expect(text).toContain('sha256sum -c');
  });

  it('reads the token and the TLS key from SSM on the instance: no parameter holds them', () => {
    const text = userData();
    expect(text).toMatch(/aws ssm get-parameter .*--name '\$\{TokenParameterName\}' --with-decryption/);
    expect(text).toMatch(/aws ssm get-parameter .*--name '\$\{TlsKeyParameterName\}' --with-decryption/);
    expect(text).toContain('--token-file /etc/volbench/token --tls-cert /etc/volbench/tls.crt --tls-key /etc/volbench/tls.key');
    expect(text).not.toMatch(/--token[ =][^f]/);
    expect(Object.keys(t.Parameters)).not.toContain('Token');
  });

  it('starts serve with the plan\'s limits and a unit that shuts the instance down at its expiry', () => {
    const text = userData();
    expect(text).toContain('--max-size ${MaxSizeBytes} --max-runtime ${MaxRuntimeSeconds}');
    expect(t.Parameters.MaxSizeBytes.Default).toBe(0);
    expect(text).toContain('ExecStart=/opt/volbench-expiry/watch.sh ${ExpiresAt}');
    expect(text).toContain('systemctl enable --now volbench-expiry.service');
    expect(r.LaunchTemplate.Properties.LaunchTemplateData.MetadataOptions.InstanceMetadataTags).toBe('enabled');
  });

  describe('the expiry watch (run with curl and shutdown stood in for, no network)', () => {
    const script = (): string => {
      const text = userData();
      const body = text.slice(text.indexOf("<<'WATCH'\n") + 9, text.indexOf('\nWATCH\n'));
      return `${body}\n`;
    };
    /** Runs the watch for at most `ms`; `tag` is what IMDS answers for volbench:expires (undefined: 404). */
    function watch(tag: string | undefined, fallback: string, ms = 1500): { shutdown: boolean; output: string } {
      const dir = mkdtempSync(join(tmpdir(), 'volbench-watch-'));
      try {
        writeFileSync(join(dir, 'watch.sh'), script(), { mode: 0o755 });
        writeFileSync(join(dir, 'curl'), tag === undefined
          ? '#!/bin/sh\ncase "$*" in *api/token*) echo token ;; *) exit 22 ;; esac\n'
          : `#!/bin/sh\ncase "$*" in *api/token*) echo token ;; *) printf '%s' '${tag}' ;; esac\n`, { mode: 0o755 });
        writeFileSync(join(dir, 'shutdown'), `#!/bin/sh\necho "$*" > ${join(dir, 'shutdown.called')}\n`, { mode: 0o755 });
        const out = spawnSync('bash', [join(dir, 'watch.sh'), fallback], {
          encoding: 'utf8', timeout: ms, env: { PATH: `${dir}:/usr/bin:/bin` },
        });
        return { shutdown: existsSync(join(dir, 'shutdown.called')) && readFileSync(join(dir, 'shutdown.called'), 'utf8') === '-h now\n', output: out.stdout };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    const past = '2001-01-01T00:00:00Z';
    const future = '2099-01-01T00:00:00Z';

    it('shuts down once the tag says expired, when it was created to expire then too', () => {
      const run = watch(past, past);
      expect(run.shutdown).toBe(true);
      expect(run.output).toContain('expired at 2001-01-01T00:00:00Z');
    });

    // Broke: the watch took whatever the tag said, earlier too, and the instance terminates when
    // it shuts down: whoever may tag (ec2:CreateTags, granted far more widely than
    // ec2:TerminateInstances) ended any member mid-run by tagging it volbench:expires=<past>.
    // Expected: a tag moves the expiry later (fleet run --ttl), never earlier than it was made.
    it('lives on when a tag says it expired before the expiry it was created with', () => {
      expect(watch(past, future).shutdown).toBe(false);
    });

    it('lives on while the tag (moved by fleet run --ttl) is in the future, though created to expire earlier', () => {
      expect(watch(future, past).shutdown).toBe(false);
    });

    // Broke: after run --ttl had moved the tag past the creation-time expiry, one failed IMDS
    // read fell back to that earlier time and the member terminated itself mid-run. Expected: a
    // failed read keeps the last expiry read.
    it('keeps the last expiry it read when a later read fails', () => {
      const dir = mkdtempSync(join(tmpdir(), 'volbench-watch-'));
      try {
        writeFileSync(join(dir, 'watch.sh'), script(), { mode: 0o755 });
        // The tag reads once (far off), then IMDS fails every time; sleep is instant, so it loops.
        writeFileSync(join(dir, 'curl'), `#!/bin/sh\ncase "$*" in *api/token*) echo token; exit 0 ;; esac\n`
          + `[ -e ${join(dir, 'read')} ] && exit 22\ntouch ${join(dir, 'read')}\nprintf '%s' '${future}'\n`, { mode: 0o755 });
        writeFileSync(join(dir, 'sleep'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
        writeFileSync(join(dir, 'shutdown'), `#!/bin/sh\ntouch ${join(dir, 'shutdown.called')}\n`, { mode: 0o755 });
        spawnSync('bash', [join(dir, 'watch.sh'), past], { encoding: 'utf8', timeout: 1500, env: { PATH: `${dir}:/usr/bin:/bin` } });
        expect(existsSync(join(dir, 'read')), 'the tag was read').toBe(true);
        expect(existsSync(join(dir, 'shutdown.called'))).toBe(false);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('falls back to the expiry it was created with when IMDS has no tag, or an unreadable one', () => {
      expect(watch(undefined, past).shutdown).toBe(true);
      expect(watch('', past).shutdown).toBe(true);
      expect(watch('soon', past).shutdown).toBe(true);
      expect(watch(undefined, future).shutdown).toBe(false);
    });
  });

  it('signals the stack with the AWS CLI, on success and on any failed step (a trap, with the reason)', () => {
    const text = userData();
    expect(r.Ready.CreationPolicy.ResourceSignal.Count).toBe(1);
    expect(text).toContain('aws cloudformation signal-resource');
    expect(text).toMatch(/trap failed ERR EXIT/);
    expect(text).toMatch(/signal FAILURE "\$STEP: /);
    expect(text).toMatch(/v1\/healthz.*signal SUCCESS/s);
  });

  it('renders to a script bash accepts', () => {
    const values: Record<string, string> = { 'AWS::Region': 'us-east-1', 'AWS::StackName': 'volbench-vb0123456789-gp3-8g' };
    for (const [name, param] of Object.entries(t.Parameters) as Array<[string, any]>) values[name] = String(param.Default ?? 'x');
    const text = userData().replace(/\$\{([A-Za-z0-9:]+)\}/g, (_, n: string) => values[n] ?? `\${${n}}`);
    const check = spawnSync('bash', ['-n'], { input: text, encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
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

describe('study-roles.yaml', () => {
  const t = load('study-roles.yaml');
  const r = t.Resources;
  const statements = (role: string): Array<{ Sid: string; Action: string | string[]; Resource: unknown; Condition?: unknown }> =>
    r[role].Properties.Policies.flatMap((p: any) => p.PolicyDocument.Statement);

  it("gives the schedules' role DeleteStack on volbench's fleet stacks and PassRole of the stack role to CloudFormation, nothing else", () => {
    expect(r.ScheduleRole.Properties.AssumeRolePolicyDocument.Statement).toEqual([expect.objectContaining({
      Principal: { Service: 'scheduler.amazonaws.com' }, Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
    })]);
    expect(statements('ScheduleRole').map((s) => [s.Action, s.Resource])).toEqual([
      ['cloudformation:DeleteStack', { 'Fn::Sub': 'arn:${AWS::Partition}:cloudformation:${AWS::Region}:${AWS::AccountId}:stack/volbench-vb*/*' }],
      ['iam:PassRole', { 'Fn::GetAtt': 'StackRole.Arn' }],
    ]);
  });

  it('lets the stack role make members\' roles only (volbench-vb*), never widen itself, and pass roles to EC2 only', () => {
    expect(r.StackRole.Properties.AssumeRolePolicyDocument.Statement[0].Principal).toEqual({ Service: 'cloudformation.amazonaws.com' });
    const iam = statements('StackRole').find((s) => s.Sid === 'MemberRole')!;
    expect(JSON.stringify(iam.Resource)).not.toContain('volbench-*');
    expect(JSON.stringify(iam.Resource)).toContain('role/volbench-vb*');
    expect(statements('StackRole').find((s) => s.Sid === 'PassMemberRole')!.Condition).toEqual({ StringEquals: { 'iam:PassedToService': 'ec2.amazonaws.com' } });
    // No managed policy, and no action on every service.
    expect(r.StackRole.Properties.ManagedPolicyArns).toBeUndefined();
    for (const s of statements('StackRole')) for (const a of [s.Action].flat()) expect(a).not.toMatch(/^[a-z0-9]+:\*$/);
  });

  it('gives back both roles and the version volbench checks', () => {
    expect(Object.keys(t.Outputs).sort()).toEqual(['ScheduleRoleArn', 'StackRoleArn', 'Version']);
  });
});
