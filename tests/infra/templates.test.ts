/**
 * The CloudFormation templates in infra/: cfn-lint clean, and the properties the fleet relies on
 * (IMDSv2 only, the service port open to one network and an autonomous member open to none, the
 * token never in clear, every resource of a fleet tagged with it and its expiry, nothing kept
 * after the stack is deleted, no output that fails in a private subnet, no read permission on
 * every resource, an autonomous member writing its own prefix and nowhere else, a boot with no
 * internet and no EC2 call, one signal to the resource whose creation policy has begun).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, type Tags } from 'yaml';

import { RESERVED_LABELS } from '../../src/api/study-objects.js';
import { VOLUME_LABEL } from '../../src/fleet/names.js';
import { MEMBER_SIGNAL_RESOURCE } from '../../src/fleet/member-agent/index.js';
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
  type Mode = 'interactive' | 'autonomous';
  /** The role's statements as CloudFormation makes them for a mode (and a bucket key or not): each Fn::If decided. */
  const policyFor = (mode: Mode, kms = false): Array<{ Sid: string; Action: string[]; Resource: string[] }> => {
    const holds: Record<string, boolean> = { IsAutonomous: mode === 'autonomous', IsInteractive: mode === 'interactive', HasKms: kms };
    const decide = (v: any): any => {
      if (Array.isArray(v)) return v.map(decide).filter((x) => x !== undefined);
      if (v && typeof v === 'object') {
        if (v['Fn::If']) {
          const [cond, yes, no] = v['Fn::If'];
          expect(holds, `condition ${cond}`).toHaveProperty(cond);
          return decide(holds[cond] ? yes : no);
        }
        if (v.Ref === 'AWS::NoValue') return undefined;
        if (v['Fn::Sub'] !== undefined) return v['Fn::Sub'];
        if (v.Ref !== undefined) return `\${${v.Ref}}`;
        return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, decide(x)]).filter(([, x]) => x !== undefined));
      }
      return v;
    };
    return decide(r.InstanceRole.Properties.Policies.flatMap((p: any) => p.PolicyDocument.Statement))
      .map((st: any) => ({ Sid: st.Sid, Action: [st.Action].flat(), Resource: [st.Resource].flat() }));
  };
  /** Every action a mode's role grants on a resource, as `action resource`. */
  const grants = (mode: Mode, kms = false) => policyFor(mode, kms).flatMap((st) => st.Action.flatMap((a) => st.Resource.map((res) => `${a} ${res}`)));

  it('requires IMDSv2, is EBS-optimized and terminates when it shuts itself down', () => {
    expect(r.LaunchTemplate.Properties.LaunchTemplateData.MetadataOptions.HttpTokens).toBe('required');
    expect(r.Instance.Properties.EbsOptimized).toBe(true);
    expect(r.Instance.Properties.LaunchTemplate.LaunchTemplateId).toEqual({ Ref: 'LaunchTemplate' });
    expect(r.Instance.Properties.InstanceInitiatedShutdownBehavior).toBe('terminate');
  });

  it('opens the service port to AllowedCidr only for an interactive member, and nothing at all for an autonomous one', () => {
    const [cond, autonomous, interactive] = r.ServiceSecurityGroup.Properties.SecurityGroupIngress['Fn::If'];
    expect(cond).toBe('IsAutonomous');
    expect(t.Conditions.IsAutonomous).toEqual({ 'Fn::Equals': [{ Ref: 'MemberMode' }, 'autonomous'] });
    expect(autonomous).toEqual({ Ref: 'AWS::NoValue' });
    expect(interactive).toHaveLength(1);
    expect(interactive[0]).toMatchObject({ IpProtocol: 'tcp', FromPort: { Ref: 'ServicePort' }, ToPort: { Ref: 'ServicePort' }, CidrIp: { Ref: 'AllowedCidr' } });
    // No other way in: no ingress resource beside the group's own rules.
    expect(Object.values(r).map((x: any) => x.Type)).not.toContain('AWS::EC2::SecurityGroupIngress');
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

  it('has no output that reads PublicIp unconditionally (a subnet without public addresses would fail the stack), and no endpoint for an autonomous member', () => {
    for (const [name, output] of Object.entries(t.Outputs) as Array<[string, any]>) {
      if (JSON.stringify(output.Value).includes('PublicIp')) expect(output.Condition, name).toBe('HasPublicEndpoint');
    }
    expect(t.Conditions.HasPublicEndpoint['Fn::And']).toContainEqual({ 'Fn::Equals': [{ Ref: 'PublicAddress' }, 'true'] });
    expect(t.Conditions.HasPublicEndpoint['Fn::And']).toContainEqual({ 'Fn::Equals': [{ Ref: 'MemberMode' }, 'interactive'] });
    expect(JSON.stringify(t.Outputs.PrivateEndpoint.Value)).toContain('Instance.PrivateIp');
    expect(t.Outputs.PrivateEndpoint.Condition).toBe('IsInteractive');
  });

  it('takes only the labels a member\'s folder may have, as the library checks them', () => {
    const pattern = new RegExp(t.Parameters.VolumeLabel.AllowedPattern);
    expect(pattern.source).toBe(VOLUME_LABEL.source);
    for (const reserved of RESERVED_LABELS) expect(pattern.test(reserved), reserved).toBe(false);
    for (const label of ['gp3-500g', 'io2-500g-16000iops', 'st1-2t', 'studyx', 'results2']) expect(pattern.test(label), label).toBe(true);
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
    const reads = /^(ssm:(Get|\*)|s3:|kms:|ec2:|\*$)/i;
    for (const mode of ['interactive', 'autonomous'] as const) {
      for (const s of policyFor(mode, true)) {
        if (s.Action.some((a) => reads.test(a))) expect(s.Resource, `${mode} ${s.Sid}`).not.toContain('*');
        if (s.Resource.includes('*')) for (const a of s.Action) expect(a, s.Sid).toMatch(/^(ssmmessages:|ec2messages:|ssm:UpdateInstanceInformation$)/);
      }
    }
    expect(policyFor('interactive').find((s) => s.Sid === 'Signal')!.Resource).toEqual(['${AWS::StackId}']);
  });

  it('lets an interactive member read its own token, key and certificate and write nothing (its results are the CLI\'s to upload)', () => {
    const arn = (what: string) => `arn:\${AWS::Partition}:${what}`;
    expect(grants('interactive').filter((g) => !/^(ssmmessages:|ec2messages:|ssm:UpdateInstanceInformation |cloudformation:SignalResource )/.test(g))).toEqual([
      `s3:GetObject ${arn('s3:::${PackageBucket}/${PackageKey}')}`,
      `s3:GetObject ${arn('s3:::${ResultsBucket}/${TlsCertKey}')}`,
      `ssm:GetParameter ${arn('ssm:${AWS::Region}:${AWS::AccountId}:parameter${TokenParameterName}')}`,
      `ssm:GetParameter ${arn('ssm:${AWS::Region}:${AWS::AccountId}:parameter${TlsKeyParameterName}')}`,
    ]);
    expect(grants('interactive', true)).toContain('kms:Decrypt ${PackageKmsKeyArn}');
    expect(grants('interactive', true)).not.toContain('kms:GenerateDataKey ${PackageKmsKeyArn}');
  });

  it('lets an autonomous member read the bundle and the study\'s spec, and write under FLEET/LABEL/ and nowhere else', () => {
    const arn = (what: string) => `arn:\${AWS::Partition}:${what}`;
    const own = grants('autonomous', true).filter((g) => !/^(ssmmessages:|ec2messages:|ssm:UpdateInstanceInformation |cloudformation:SignalResource )/.test(g));
    expect(own).toEqual([
      `s3:GetObject ${arn('s3:::${PackageBucket}/${PackageKey}')}`,
      `s3:GetObject ${arn('s3:::${ResultsBucket}/${FleetId}/study/spec.json')}`,
      `s3:PutObject ${arn('s3:::${ResultsBucket}/${FleetId}/${VolumeLabel}/*')}`,
      // The bucket's default encryption, which its writes' header follows (sse.ts), nothing else of the bucket.
      `s3:GetEncryptionConfiguration ${arn('s3:::${ResultsBucket}')}`,
      // Its writes are SSE-KMS under the bucket's own key, when it has one.
      'kms:Decrypt ${PackageKmsKeyArn}',
      'kms:GenerateDataKey ${PackageKmsKeyArn}',
    ]);
    // The prefix is the one the agent writes (the contract's memberPrefix), and a label cannot widen it.
    expect(own.filter((g) => /^s3:Put/.test(g))).toHaveLength(1);
    for (const wider of ['gp3*', 'gp3?', 'gp3/x', '..', '*']) expect(new RegExp(t.Parameters.VolumeLabel.AllowedPattern).test(wider), wider).toBe(false);
    expect(grants('autonomous').some((g) => /^ssm:Get/.test(g))).toBe(false);
  });

  it('uses an existing instance profile when named, and creates no IAM resource then', () => {
    expect(r.InstanceRole.Condition).toBe('CreateProfile');
    expect(r.InstanceProfile.Condition).toBe('CreateProfile');
    expect(r.Instance.Properties.IamInstanceProfile).toEqual({ 'Fn::If': ['CreateProfile', { Ref: 'InstanceProfile' }, { Ref: 'InstanceProfileName' }] });
  });

  it('boots with no internet: no package manager, no npm, no address but IMDS and loopback, no EC2 call', () => {
    const text = userData();
    expect(text).not.toMatch(/\b(dnf|yum|npm|pip|cfn-signal)\b/);
    // The data device is found without EC2 (a private subnet then needs no EC2 endpoint).
    expect(text).not.toMatch(/\baws ec2\b/);
    expect(text).toMatch(/lsblk -nro MOUNTPOINT "\$dev"/);
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

  // Broke: the creation policy was on a wait condition that depended on the instance, so it began
  // only once CloudFormation had seen the instance complete. A boot that failed in its first
  // seconds signalled a resource that had not begun; CloudFormation refused the FAILURE and the
  // stack waited 30 minutes. Expected: the policy on the instance itself, whose creation began
  // before its user data ran, and every signal (the user data's, the agent's) sent to it.
  it('holds its creation policy on the instance, which every signal names: a FAILURE in the boot\'s first second is taken', () => {
    const holders = Object.entries(r).filter(([, x]: [string, any]) => x.CreationPolicy).map(([name]) => name);
    expect(holders).toEqual(['Instance']);
    expect(MEMBER_SIGNAL_RESOURCE).toBe('Instance');
    expect(r.Instance.CreationPolicy.ResourceSignal).toEqual({ Count: 1, Timeout: 'PT30M' });
    expect(Object.values(r).map((x: any) => x.Type)).not.toContain('AWS::CloudFormation::WaitCondition');
    const text = userData();
    expect(text).toMatch(/aws cloudformation signal-resource .* --logical-resource-id Instance /);
    expect(text.match(/--logical-resource-id/g)).toHaveLength(1);
    expect(text).toMatch(/trap failed ERR EXIT/);
    expect(text).toMatch(/signal FAILURE "\$STEP: /);
    expect(text).toMatch(/v1\/healthz.*signal SUCCESS/s);
  });

  it('starts an autonomous member\'s agent on its device with the stack\'s own values, and leaves it the one signal', () => {
    const text = userData();
    const unit = text.slice(text.indexOf('volbench-member.service <<UNIT'), text.indexOf('systemctl enable --now volbench-member.service'));
    expect(unit).toContain('ExecStart=/opt/volbench/bin/volbench fleet member $AGENT');
    expect(unit).toContain('Restart=no');
    expect(text).toContain('AGENT="--region $REGION --bucket ${ResultsBucket} --fleet ${FleetId} --label ${VolumeLabel} --spec-sha256 ${StudySpecSha256}"');
    expect(text).toContain('--device $TARGET --stack ${AWS::StackName} --instance-id $INSTANCE_ID --shutdown');
    expect(text).toMatch(/systemctl enable --now volbench-member.service\n\s*SIGNALLED=1\n\s*exit 0/);
    // It reads no secret: the token and the TLS key are an interactive member's.
    const autonomous = text.slice(0, text.indexOf("STEP='service'"));
    expect(autonomous).toMatch(/if \[ "\$MODE" = interactive \]; then\n\s*STEP='ssm'/);
  });

  it('renders to a script bash accepts, in either mode', () => {
    for (const mode of ['interactive', 'autonomous']) {
      const values: Record<string, string> = { 'AWS::Region': 'us-east-1', 'AWS::StackName': 'volbench-vb0123456789-gp3-8g' };
      for (const [name, param] of Object.entries(t.Parameters) as Array<[string, any]>) values[name] = String(param.Default ?? 'x');
      values.MemberMode = mode;
      // Fn::Sub's ${!x} is a literal ${x}.
      const text = userData().replace(/\$\{([A-Za-z0-9:]+)\}/g, (_, n: string) => values[n] ?? `\${${n}}`).replace(/\$\{!/g, '${');
      const check = spawnSync('bash', ['-n'], { input: text, encoding: 'utf8' });
      expect(check.stderr, mode).toBe('');
      expect(check.status).toBe(0);
    }
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
