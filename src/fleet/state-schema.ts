/**
 * A fleet's state as read back, parsed strictly: a copy in S3 is anyone's who may write to the
 * bucket, so it is untrusted input. Every key must be known, every label the template's
 * VolumeLabel, every name in it the one volbench derives from the fleet id and the labels
 * (names.ts), its fleet id the one its key says and its bucket the one it was read from. What
 * passes is a cache of the plan and of what happened: the fleet's stacks still decide where its
 * members answer and what they are trusted with (member-stacks.ts).
 */
import { z } from 'zod';

import { memberDoneSchema, memberProgressSchema } from '../api/study-objects.js';
import { AWS_REGION_NAME } from '../cloud/aws-clients.js';
import { VolbenchError } from '../errors.js';
import { KMS_KEY_ARN } from './member-account.js';
import { parseEndpoint } from './member-stacks.js';
import { checkTag, MAX_USER_TAGS } from './tags.js';
import { FLEET_ID, objectPrefix, resultKey, stackNameFor, tlsKeyParameterName, tokenParameterName, VOLUME_LABEL } from './names.js';

const label = z.string().regex(VOLUME_LABEL, 'a volume label as the template takes it: letters, digits, . _ - (not first), up to 63');
const text = (max: number) => z.string().max(max);
const count = z.number().finite().nonnegative();
const isoTime = z.string().max(40).refine((s) => /^\d{4}-\d{2}-\d{2}T/.test(s) && Number.isFinite(Date.parse(s)), 'an ISO-8601 time');
const fingerprint = z.string().regex(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/, 'a SHA-256 fingerprint');
const bucketName = z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'an S3 bucket name');

const datedPrice = z.strictObject({
  usd: count, source: text(400), as_of: z.string().regex(/^\d{4}-\d{2}-\d{2}$/), confidence: z.enum(['H', 'M', 'L']).optional(), region_used: text(40).optional(),
});

const volume = z.strictObject({
  label, type: text(40), sizeGiB: count, iops: count.optional(), throughputMiBps: count.optional(), suite: text(200).optional(),
});

const cloudVolume = z.strictObject({ type: text(40), size_gib: count, iops: count.optional(), throughput_mibps: count.optional() });

const entitlement = z.strictObject({
  test: text(200), bs: count, rw: text(20), iops: count, mibps: count,
  bound_by: z.enum(['volume-iops', 'volume-throughput', 'burst-credits', 'instance-iops', 'instance-bandwidth', 'instance-burst']),
  after_instance_burst: z.strictObject({ seconds: count, iops: count, mibps: count }).optional(),
});

const planMember = z.strictObject({
  label, volume, cloudVolume: cloudVolume.optional(), suite: text(200).optional(),
  precondition: z.strictObject({ bytes: z.number().int().nonnegative(), seconds: count }).optional(),
  stackName: text(128), volumeMonthly: datedPrice.optional(), tests: z.array(entitlement).max(256).optional(),
});

const perUnit = z.strictObject({ usd: count, test: text(200) }).nullable();

// A state's tags make tags on the stacks: held to what --tag takes (no aws: or volbench: key).
const tag = z.strictObject({ Key: text(128), Value: text(256) }).refine((t) => {
  try {
    checkTag(t, 'tag');
    return true;
  } catch {
    return false;
  }
}, 'a tag as --tag takes it (not aws: or volbench:)');

const account = z.strictObject({
  tags: z.array(tag).max(MAX_USER_TAGS).optional(), noPublicIp: z.boolean().optional(),
  ebsKmsKeyArn: z.string().regex(KMS_KEY_ARN, 'a KMS key ARN').optional(),
});

const plan = z.strictObject({
  fleetId: z.string(), region: z.string().regex(AWS_REGION_NAME, 'an AWS region'), instanceType: z.string().regex(/^[a-z][a-z0-9-]*\.[a-z0-9]+$/, 'an instance type'),
  suite: text(4096), runtime: text(64).optional(), members: z.array(planMember).min(1).max(64),
  precondition: z.strictObject({ seconds: count, usd: count.optional() }).optional(),
  instanceHourly: datedPrice.optional(), rootVolumeMonthly: datedPrice.optional(), publicIpv4Hourly: datedPrice.optional(), hours: count, workloadSeconds: count, estimatedUsd: count.optional(), volumesOnlyUsd: count.optional(),
  findings: z.array(z.strictObject({ kind: z.enum(['instance-baseline', 'block-size', 'hdd-on-ssd-suite']), label, message: text(2000) })).max(256),
  cost: z.strictObject({
    cost_scope: z.enum(['volume', 'total']),
    basis: z.strictObject({ kind: z.enum(['730h', 'calendar']), hours_per_month: count, month: z.string().regex(/^\d{4}-\d{2}$/).optional() }),
    members: z.array(z.strictObject({ label, usd_per_month: count.nullable(), usd_per_1000_iops: perUnit, usd_per_mibps: perUnit })).max(64),
  }).optional(),
  ttlSec: count, account: account.optional(), warnings: z.array(text(2000)).max(256),
});

const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 in hex');

const member = z.strictObject({
  label, stackName: text(128), status: z.enum(['creating', 'created', 'failed', 'deleted']), reason: text(4096).optional(),
  // Kept as they were seen; never used: the stack's outputs say these.
  endpoint: text(2048).refine(httpsUrl, 'https://HOST:PORT, as a stack output gives it').optional(), instanceId: z.string().regex(/^i-[0-9a-f]{8,17}$/, 'an instance id').optional(),
  volumeId: z.string().regex(/^(vol-[0-9a-f]{8,17}|instance-store)$/, 'a volume id').optional(), tokenParameter: text(512).optional(),
  tlsFingerprint: fingerprint.optional(), tlsKeyParameter: text(512).optional(),
  stackId: z.string().regex(/^arn:aws[a-z-]*:cloudformation:[a-z0-9-]+:\d{12}:stack\/[A-Za-z0-9-]{1,128}\/[0-9a-f-]{36}$/, 'a stack id (ARN)').optional(),
  // A study's: what its member wrote, as the contract parses it, and what the controller made of it.
  progress: memberProgressSchema.optional(), done: memberDoneSchema.optional(), error: text(4096).optional(),
  collected: z.strictObject({ key: text(1024), sha256, gate: z.enum(['passed', 'failed']).optional() }).optional(),
});

const study = z.strictObject({
  step: z.enum(['planned', 'creating', 'running', 'collecting', 'reporting', 'tearing-down', 'done', 'failed']),
  failure: text(4096).optional(), keep: z.boolean().optional(), specSha256: sha256.optional(), updatedAt: isoTime,
  deleteAttempts: z.number().int().nonnegative().max(1000).optional(),
  stacks: z.strictObject({
    architecture: z.enum(['x86_64', 'arm64']), ttlSec: count, allowedCidr: z.string().regex(/^(\d{1,3}\.){3}\d{1,3}\/(3[0-2]|[12]?\d)$/, 'an IPv4 CIDR'),
    bundleKey: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._/-]{0,500}\.tar\.gz$/, 'a bundle key'), bundleSha256: sha256,
    subnetId: z.string().regex(/^subnet-[0-9a-f]{8,17}$/, 'a subnet id'), vpcId: z.string().regex(/^vpc-[0-9a-f]{8,17}$/, 'a VPC id'),
    availabilityZone: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d[a-z]$/, 'an availability zone'), publicAddress: z.boolean(),
    kmsKeyArn: z.string().regex(/^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]{1,64}$/, 'a KMS key ARN').optional(),
    instanceProfile: z.string().regex(/^[A-Za-z0-9+=,.@_-]{1,128}$/, 'an instance profile name').optional(),
    // Checked again as a user's tags where they are used (tags.ts): a state may be planted.
    tags: z.record(z.string().max(128), z.string().max(256)).optional(),
  }).optional(),
});

const state = z.strictObject({
  fleetId: z.string(), region: z.string().regex(AWS_REGION_NAME, 'an AWS region'), createdAt: isoTime,
  status: z.enum(['creating', 'up', 'running', 'deleting', 'down', 'failed']), plan,
  bucket: bucketName.optional(), expiresAt: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/, 'ISO-8601 UTC to the second').optional(),
  // The bundle and an interactive member's certificate each.
  objects: z.array(text(1024)).max(1 + 64).optional(), study: study.optional(), members: z.array(member).min(1).max(64),
});

/** The state as parsed: FleetState (state.ts) in all but the plan's exact types. */
export type ParsedState = z.infer<typeof state>;

function httpsUrl(value: string): boolean {
  try {
    parseEndpoint(value, 'endpoint');
    return true;
  } catch {
    return false;
  }
}

type Issue = { path: string; expected: string; seen: unknown };

/** What the state names that volbench would not have: each a field, what it should be, what it is. */
function namesOf(s: z.infer<typeof state>, fleetId: string, bucket: string | undefined): Issue[] {
  const issues: Issue[] = [];
  const want = (path: string, seen: unknown, expected: string) => { if (seen !== undefined && seen !== expected) issues.push({ path, expected, seen }); };
  want('fleetId', s.fleetId, fleetId);
  want('plan.fleetId', s.plan.fleetId, fleetId);
  if (bucket !== undefined) want('bucket', s.bucket, bucket);
  s.plan.members.forEach((m, i) => {
    want(`plan.members[${i}].stackName`, m.stackName, stackNameFor(fleetId, m.label));
    want(`plan.members[${i}].volume.label`, m.volume.label, m.label);
  });
  const planned = s.plan.members.map((m) => m.label);
  s.members.forEach((m, i) => {
    if (!planned.includes(m.label)) issues.push({ path: `members[${i}].label`, expected: `a label of the plan (${planned.join(', ')})`, seen: m.label });
    want(`members[${i}].stackName`, m.stackName, stackNameFor(fleetId, m.label));
    want(`members[${i}].tokenParameter`, m.tokenParameter, tokenParameterName(fleetId, m.label));
    want(`members[${i}].tlsKeyParameter`, m.tlsKeyParameter, tlsKeyParameterName(fleetId, m.label));
    if (m.stackId !== undefined && m.stackId.split('/')[1] !== stackNameFor(fleetId, m.label)) {
      issues.push({ path: `members[${i}].stackId`, expected: `the id of stack ${stackNameFor(fleetId, m.label)}`, seen: m.stackId });
    }
    want(`members[${i}].progress.label`, m.progress?.label, m.label);
    want(`members[${i}].done.label`, m.done?.label, m.label);
    want(`members[${i}].collected.key`, m.collected?.key, resultKey(fleetId, m.label));
  });
  if (s.study?.stacks && !s.study.stacks.bundleKey.startsWith(`${fleetId}/bundle/`)) {
    issues.push({ path: 'study.stacks.bundleKey', expected: `a key under ${fleetId}/bundle/`, seen: s.study.stacks.bundleKey });
  }
  (s.objects ?? []).forEach((key, i) => {
    if (!key.startsWith(objectPrefix(fleetId)) || key.split('/').some((part) => part === '' || part === '.' || part === '..')) {
      issues.push({ path: `objects[${i}]`, expected: `a key under ${objectPrefix(fleetId)}`, seen: key });
    }
  });
  return issues;
}

/**
 * `json` as fleet `fleetId`'s state, read from `source` (a file, or s3://bucket/key); with
 * `bucket`, the bucket it was read from, which the state must name. Refused (EFLEET_STATE)
 * naming the first field that is not as volbench writes it.
 */
export function parseFleetState(json: unknown, fleetId: string, source: string, bucket?: string): ParsedState {
  const parsed = state.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // An unknown key is named itself, not the object that holds it.
    const unknown = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
    const path = unknown === undefined ? issue.path : [...issue.path, unknown];
    const field = path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '') || '(the whole file)';
    const accepted = unknown === undefined ? issue.message : 'no such key: only the keys volbench writes';
    throw new VolbenchError('EFLEET_STATE', `${source} is not a fleet state volbench wrote: ${field}: ${accepted}; nothing was done on its word`, { field, accepted });
  }
  const wrong = namesOf(parsed.data, fleetId, bucket)[0];
  if (wrong) {
    throw new VolbenchError('EFLEET_STATE', `${source} names ${JSON.stringify(String(wrong.seen).slice(0, 120))} as ${wrong.path}, where fleet ${fleetId} has ${wrong.expected}: ` +
      'it was not written by volbench for this fleet; nothing was done on its word', { field: wrong.path, accepted: wrong.expected });
  }
  return parsed.data;
}
