/**
 * The IAM policy docs/first-real-run.md gives the user running the CLI, checked against every
 * AWS call the fleet, study and reap code can make with those credentials (read from the source:
 * tests/helpers/sdk-commands.ts). A call the policy lacks fails here, naming the call and the
 * files that make it, before a company account's explicit deny finds it. So are the roles the
 * templates make: the member's (instance.yaml) against its agent's SDK calls and its boot's AWS
 * CLI calls, and the stacks' service role (study-roles.yaml) against what CloudFormation does
 * for each resource of a member's stack and what EC2 needs of a customer-managed volume key.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, type Tags } from 'yaml';

import { VOLUME_KEY_ACTIONS } from '../../src/fleet/volume-key.js';
import { actionMatches, grantedBy, reachable, sdkActions, type PolicyStatement, type SdkCall } from '../helpers/sdk-commands.js';
import { requires } from '../helpers/requires.js';

requires();

const ROOT = join(import.meta.dirname, '..', '..');

/** What the user's credentials run: every fleet subcommand (study and reap among them) and the library's fleet. */
const USER_ROOTS = ['cli/fleet/index.ts', 'fleet/index.ts'];
/**
 * Reached through a barrel's re-exports but never called by a fleet command: each with why. The
 * member's own code runs with the member's role (instance.yaml), not the user's.
 */
const NOT_THE_USERS: Record<string, string> = {
  'cloud/aws-price-list.ts': 'catalog refresh --prices (the Price List API), re-exported by cloud/index.ts',
  'cloud/instance-refresh.ts': 'catalog refresh --instances, re-exported by cloud/index.ts',
  'fleet/member-agent': 'runs on a study member, with the member role of instance.yaml',
  'cli/fleet/member.ts': 'runs on a study member, with the member role of instance.yaml',
};

/** What a study's member runs on its instance, with the member role. */
const MEMBER_ROOTS = ['fleet/member-agent/index.ts', 'cli/fleet/member.ts'];

/** The policy in docs/first-real-run.md: the JSON block of "permissions for the user running the CLI". */
function documentedPolicy(): PolicyStatement[] {
  const doc = readFileSync(join(ROOT, 'docs', 'first-real-run.md'), 'utf8');
  const section = doc.slice(doc.indexOf('permissions for the user running the CLI'));
  const block = /```json\n([\s\S]*?)\n```/.exec(section);
  expect(block, 'a ```json block under "permissions for the user running the CLI"').not.toBeNull();
  return (JSON.parse(block![1]) as { Statement: PolicyStatement[] }).Statement;
}

/** The calls no statement grants. */
function lacking(calls: readonly SdkCall[], statements: readonly PolicyStatement[]): string[] {
  return calls.filter((c) => grantedBy(statements, c.action).length === 0).map((c) => `${c.action} (${c.files.join(', ')})`);
}

describe('the documented IAM policy', () => {
  const files = reachable(USER_ROOTS, Object.keys(NOT_THE_USERS));
  const calls = sdkActions(files);

  it('is read from the source: the fleet, study and reap code make calls of every service they use', () => {
    const services = new Set(calls.map((c) => c.action.split(':')[0]));
    expect([...services].sort()).toEqual(['cloudformation', 'ec2', 'kms', 's3', 'scheduler', 'servicequotas', 'ssm', 'sts']);
    for (const action of ['cloudformation:CreateStack', 'ec2:TerminateInstances', 's3:PutObject', 'scheduler:CreateSchedule', 'ssm:PutParameter',
      'ec2:GetEbsDefaultKmsKeyId', 'kms:DescribeKey', 'servicequotas:GetServiceQuota', 'cloudformation:ListStacks']) {
      expect(calls.map((c) => c.action)).toContain(action);
    }
    // The study's steps and reap are among the files read.
    expect(files).toEqual(expect.arrayContaining(['fleet/study/create-step.ts', 'fleet/study/teardown-step.ts', 'fleet/reap.ts', 'cli/fleet/reap.ts']));
  });

  it('grants every call they make', () => {
    expect(lacking(calls, documentedPolicy())).toEqual([]);
    console.log(`the documented policy grants all ${calls.length} calls of ${files.length} files`);
  });

  it('fails naming the call when a statement is missing', () => {
    const without = documentedPolicy().filter((s) => s.Sid !== 'VolumeKey' && s.Sid !== 'Schedules');
    const missing = lacking(calls, without);
    expect(missing).toContain('kms:DescribeKey (fleet/volume-key.ts)');
    expect(missing.some((m) => m.startsWith('scheduler:CreateSchedule '))).toBe(true);
  });

  it('names each statement in its table of which call needs which', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'first-real-run.md'), 'utf8');
    for (const s of documentedPolicy()) expect(doc, `a row for ${s.Sid}`).toMatch(new RegExp(`^\\| ${s.Sid} \\|`, 'm'));
  });
});

/** Each `new PutObjectCommand(...)` of a file, its argument's text (to the parenthesis that closes it). */
function putsIn(text: string): string[] {
  const out: string[] = [];
  for (let at = text.indexOf('new PutObjectCommand('); at >= 0; at = text.indexOf('new PutObjectCommand(', at + 1)) {
    let depth = 0;
    let end = at + 'new PutObjectCommand'.length;
    do {
      if (text[end] === '(') depth++;
      if (text[end] === ')') depth--;
      end++;
    } while (depth > 0 && end < text.length);
    out.push(text.slice(at, end));
  }
  return out;
}

describe('a bucket policy that denies PutObject without x-amz-server-side-encryption', () => {
  it('holds: every put of the fleet, its study and its members sends the header (putEncryption, sse.ts)', () => {
    const files = reachable([...USER_ROOTS, ...MEMBER_ROOTS]);
    const puts = files.flatMap((f) => putsIn(readFileSync(join(ROOT, 'src', f), 'utf8')).map((text) => ({ f, text })));
    expect(puts.length).toBeGreaterThanOrEqual(6);
    expect(puts.filter((p) => !/\.\.\.sse\b|ServerSideEncryption:/.test(p.text)).map((p) => `${p.f}: ${p.text.slice(0, 120)}`)).toEqual([]);
  });
});

/**
 * What CloudFormation calls, acting with the stack's service role, to create, read and delete
 * each resource type of a member's stack (and to resolve its SSM parameter types): the actions
 * of each type's create, read and delete handlers as AWS documents them, the ones a member's
 * stack needs. A type the template gains fails here until it is listed.
 */
const RESOURCE_ACTIONS: Record<string, string[]> = {
  'AWS::EC2::SecurityGroup': ['ec2:CreateSecurityGroup', 'ec2:DeleteSecurityGroup', 'ec2:AuthorizeSecurityGroupIngress', 'ec2:RevokeSecurityGroupIngress',
    'ec2:DescribeSecurityGroups', 'ec2:CreateTags'],
  'AWS::IAM::Role': ['iam:CreateRole', 'iam:DeleteRole', 'iam:GetRole', 'iam:PutRolePolicy', 'iam:GetRolePolicy', 'iam:DeleteRolePolicy', 'iam:TagRole',
    'iam:ListRolePolicies', 'iam:ListAttachedRolePolicies', 'iam:ListInstanceProfilesForRole'],
  'AWS::IAM::InstanceProfile': ['iam:CreateInstanceProfile', 'iam:DeleteInstanceProfile', 'iam:GetInstanceProfile', 'iam:AddRoleToInstanceProfile',
    'iam:RemoveRoleFromInstanceProfile'],
  'AWS::EC2::LaunchTemplate': ['ec2:CreateLaunchTemplate', 'ec2:DeleteLaunchTemplate', 'ec2:DescribeLaunchTemplates', 'ec2:DescribeLaunchTemplateVersions',
    'ec2:CreateTags'],
  'AWS::EC2::Instance': ['ec2:RunInstances', 'ec2:TerminateInstances', 'ec2:DescribeInstances', 'ec2:CreateTags', 'iam:PassRole'],
  'AWS::CloudFormation::WaitCondition': [],
  'AWS::SSM::Parameter::Value<AWS::EC2::Image::Id>': ['ssm:GetParameters'],
};

/** A template read with CloudFormation's short forms as plain tags (what they hold does not matter here). */
const plainTemplate = (name: string) => parse(readFileSync(join(ROOT, 'infra', 'cloudformation', name), 'utf8').replace(/!\w+(?=[ \n])/g, ''));

// CloudFormation's short forms (!Ref, !If, ...) as the long ones, so a role's conditions can be decided.
const CFN_TAGS: Tags = ['Ref', 'Sub', 'GetAtt', 'If', 'Equals', 'Not', 'And', 'Or', 'Join', 'Base64', 'Select', 'Split', 'Condition', 'FindInMap', 'GetAZs', 'ImportValue']
  .flatMap((name) => (['scalar', 'seq', 'map'] as const).map((collection) => ({
    tag: `!${name}`,
    collection: collection === 'scalar' ? undefined : collection,
    resolve: (value: unknown) => ({ [name === 'Ref' || name === 'Condition' ? name : `Fn::${name}`]: (value as { toJSON?: () => unknown })?.toJSON?.() ?? value }),
  }))) as Tags;

type Mode = 'interactive' | 'autonomous';

/** The member role of instance.yaml as CloudFormation makes it for a mode, with a bucket key: each Fn::If decided, each AWS::NoValue dropped. */
function memberRole(mode: Mode): PolicyStatement[] {
  const holds: Record<string, boolean> = { IsAutonomous: mode === 'autonomous', IsInteractive: mode === 'interactive', HasKms: true };
  const decide = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(decide).filter((x) => x !== undefined);
    if (!v || typeof v !== 'object') return v;
    const o = v as Record<string, unknown>;
    if (o['Fn::If']) {
      const [cond, yes, no] = o['Fn::If'] as [string, unknown, unknown];
      if (!(cond in holds)) throw new Error(`instance.yaml's member role depends on ${cond}, which this test does not decide`);
      return decide(holds[cond] ? yes : no);
    }
    if (o.Ref === 'AWS::NoValue') return undefined;
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, decide(x)]).filter(([, x]) => x !== undefined));
  };
  const t = parse(readFileSync(join(ROOT, 'infra', 'cloudformation', 'instance.yaml'), 'utf8'), { customTags: CFN_TAGS });
  return (decide(t.Resources.InstanceRole.Properties.Policies) as Array<{ PolicyDocument: { Statement: PolicyStatement[] } }>).flatMap((p) => p.PolicyDocument.Statement);
}

/** The AWS CLI calls of the member's user data (`aws s3 cp`, `aws ssm get-parameter`, ...) as IAM actions. */
const CLI_ACTIONS: Record<string, string> = {
  's3 cp': 's3:GetObject', 'ssm get-parameter': 'ssm:GetParameter', 'cloudformation signal-resource': 'cloudformation:SignalResource',
  'ec2 describe-volumes': 'ec2:DescribeVolumes',
};

function userDataCalls(): string[] {
  const t = parse(readFileSync(join(ROOT, 'infra', 'cloudformation', 'instance.yaml'), 'utf8'), { customTags: CFN_TAGS });
  const script = t.Resources.Instance.Properties.UserData['Fn::Base64']['Fn::Sub'] as string;
  return [...new Set([...script.matchAll(/\baws ([a-z0-9-]+) ([a-z0-9-]+)/g)].map((m) => {
    const action = CLI_ACTIONS[`${m[1]} ${m[2]}`];
    if (!action) throw new Error(`the user data calls aws ${m[1]} ${m[2]}, which this test cannot name as an IAM action`);
    return action;
  }))].sort();
}

describe("the Lambda form's study policy (lambda.yaml)", () => {
  it('holds every statement of the documented policy: a study driven by the Lambda calls what the CLI does', () => {
    const t = parse(readFileSync(join(ROOT, 'infra', 'cloudformation', 'lambda.yaml'), 'utf8'), { customTags: CFN_TAGS });
    const studies = (t.Resources.FunctionRole.Properties.Policies as Array<Record<string, unknown>>)
      .map((p) => (p['Fn::If'] as [string, { PolicyName: string; PolicyDocument: { Statement: PolicyStatement[] } }] | undefined))
      .find((p) => p?.[0] === 'HasStudies')![1];
    expect(studies.PolicyName).toBe('volbench-studies');
    const lambda = studies.PolicyDocument.Statement;
    const missing = documentedPolicy().flatMap((d) => {
      const own = lambda.find((l) => l.Sid === d.Sid);
      if (!own) return [`${d.Sid} (no such statement)`];
      return [d.Action].flat().filter((a) => ![own.Action].flat().some((p) => actionMatches(p, a))).map((a) => `${d.Sid}: ${a}`);
    });
    expect(missing).toEqual([]);
  });
});

describe("the member's role (instance.yaml)", () => {
  it("grants an autonomous member every call its agent makes", () => {
    // The agent's own files: what else they reach, through the library's barrel, runs no AWS call on a member.
    const files = reachable(MEMBER_ROOTS).filter((f) => f.startsWith('fleet/member-agent/') || f === 'cli/fleet/member.ts');
    const calls = sdkActions(files);
    expect(calls.map((c) => c.action)).toEqual(expect.arrayContaining(['cloudformation:SignalResource', 's3:GetObject', 's3:PutObject']));
    expect(lacking(calls, memberRole('autonomous'))).toEqual([]);
  });

  it("grants an interactive member every call of its boot, and an autonomous one the same but SSM's", () => {
    const calls = userDataCalls();
    expect(calls).toEqual(expect.arrayContaining(['cloudformation:SignalResource', 's3:GetObject', 'ssm:GetParameter']));
    const asCalls = (actions: string[]) => actions.map((action) => ({ action, files: ['instance.yaml user data'] }));
    expect(lacking(asCalls(calls), memberRole('interactive'))).toEqual([]);
    expect(lacking(asCalls(calls.filter((a) => !a.startsWith('ssm:'))), memberRole('autonomous'))).toEqual([]);
    // Nothing beyond: an autonomous member may not read the secrets an interactive one holds.
    expect(memberRole('autonomous').some((s) => [s.Action].flat().some((a) => actionMatches(a, 'ssm:GetParameter')))).toBe(false);
  });
});

describe("the stacks' service role", () => {
  const stackRole = () => plainTemplate('study-roles.yaml').Resources.StackRole.Properties.Policies[0].PolicyDocument.Statement as PolicyStatement[];

  it("holds what CloudFormation does for each resource of a member's stack", () => {
    const member = plainTemplate('instance.yaml');
    const types = new Set<string>([
      ...Object.values(member.Resources as Record<string, { Type: string }>).map((r) => r.Type),
      ...Object.values(member.Parameters as Record<string, { Type: string }>).map((p) => p.Type).filter((t) => t.startsWith('AWS::SSM::')),
    ]);
    const unlisted = [...types].filter((t) => !RESOURCE_ACTIONS[t]);
    expect(unlisted, 'resource types of instance.yaml this test does not know').toEqual([]);
    const role = stackRole();
    const lacking = [...types].flatMap((t) => RESOURCE_ACTIONS[t].filter((a) => grantedBy(role, a).length === 0).map((a) => `${a} (${t})`));
    expect(lacking).toEqual([]);
  });

  it('holds what EC2 needs of a customer-managed volume key, through EC2 only', () => {
    const role = stackRole();
    for (const action of VOLUME_KEY_ACTIONS) expect(grantedBy(role, action), action).toEqual(['EbsKey']);
    const ebsKey = role.find((s) => s.Sid === 'EbsKey') as PolicyStatement & { Condition?: Record<string, Record<string, string>> };
    expect(ebsKey.Condition?.StringEquals?.['kms:ViaService']).toMatch(/^ec2\.\$\{AWS::Region\}\.amazonaws\.com$/);
  });
});
