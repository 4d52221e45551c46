/**
 * Creating a fleet: preflight (nothing is created when it refuses), a token per member and the
 * certificate's key in SSM, the bundle and certificate in S3, then one stack per volume
 * (member-stack.ts), in parallel. A member that fails takes the whole fleet down (down.ts), each
 * failed member's reason in the error.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { PutParameterCommand } from '@aws-sdk/client-ssm';
import { GetCallerIdentityCommand } from '@aws-sdk/client-sts';

import { VolbenchError } from '../errors.js';
import { awsCall, type FleetClients } from './aws.js';
import { bundleArch, instanceArchitecture, type Architecture } from './architecture.js';
import { readAccount, refuseAccount } from './account.js';
import { fleetCertificate } from './certificate.js';
import { fleetDown } from './down.js';
import { fleetLog, type OnFleetEvent } from './events.js';
import { createMemberStack, type MemberStackOutcome } from './member-stack.js';
import { memberVolumeId } from './member-volume.js';
import { FLEET_TAG, scheduleGroupName, tlsCertKey, tlsKeyParameterName, tokenParameterName } from './names.js';
import type { FleetPlan } from './plan.js';
import { preflight, type Preflight } from './preflight.js';
import { ensureSchedules } from './schedules.js';
import { putEncryption } from './sse.js';
import { readyStudyRoles } from './study-roles.js';
import { stackParameters, type FleetStackSettings } from './stack-parameters.js';
import { checkStackTags, tagList, userTags } from './tags.js';
import { saveState, type FleetMemberState, type FleetState } from './state.js';
import { withUserTags } from './template-tags.js';
import { deleteStacksOnAbort } from './teardown.js';
import { checkWorkloadFits, defaultTtlSec, expiresAt, EXPIRES_TAG } from './ttl.js';

export interface UpOptions {
  clients: FleetClients;
  stateDir: string;
  /** Bucket for results, the fleet's state, the bundle and the certificate. */
  bucket: string;
  /** The network allowed to reach the services (CIDR). */
  allowedCidr: string;
  /** The volbench bundle (`npm run bundle -- --arch`) for the instance type's architecture. */
  bundleFile: string;
  subnetId?: string;
  /** An existing instance profile for the members: no IAM resource is created. */
  instanceProfile?: string;
  /** Seconds the fleet may live (default: the plan's duration twice plus 30 minutes); refused shorter than the workload. */
  ttlSec?: number;
  /** The clock for the expiry (tests). */
  now?: Date;
  /** The longest wait for a stack, in seconds (default 40 min). */
  maxWaitSec?: number;
  /** Aborted: every stack is asked to go at once (teardown.ts), the waits stop, and the fleet is torn down. */
  signal?: AbortSignal;
  /** `created` first, then `member-up` or `member-failed` per member, and a teardown's events. */
  onEvent?: OnFleetEvent;
  /**
   * interactive (default): each member serves HTTPS for `fleet run`, with its own token and TLS
   * key; autonomous: each runs the study's spec itself (`studySpecSha256`), reached by nothing.
   */
  mode?: 'interactive' | 'autonomous';
  /** Autonomous: the SHA-256 of FLEET/study/spec.json, which every member checks. */
  studySpecSha256?: string;
}

export { tlsKeyParameterName, tokenParameterName };

export function templateBody(): string {
  return readFileSync(new URL('../../infra/cloudformation/instance.yaml', import.meta.url), 'utf8');
}

export interface Bundle {
  body: Buffer;
  sha256: string;
  name: string;
}

/** The bundle's bytes and SHA-256, refused when its name says another architecture. */
export function readBundle(file: string, arch: Architecture): Bundle {
  const want = bundleArch(arch);
  checkBundleName(basename(file), arch);
  let body: Buffer;
  try {
    body = readFileSync(file);
  } catch (err) {
    throw new VolbenchError('EINVALID_ARGS', `--package ${file} cannot be read: ${(err as Error).message}`, { field: '--package', accepted: `volbench-VERSION-linux-${want}.tar.gz` });
  }
  return bundleOf(basename(file), body);
}

/** A bundle's name must be a .tar.gz, and say no other architecture than the members'. */
export function checkBundleName(name: string, arch: Architecture): void {
  const want = bundleArch(arch);
  const said = /-linux-(x64|arm64)\.tar\.gz$/.exec(name)?.[1];
  if (!name.endsWith('.tar.gz') || (said !== undefined && said !== want)) {
    throw new VolbenchError('EINVALID_ARGS', `--package ${name}: the members are ${arch}; give the ${want} bundle (npm run bundle -- --arch ${want})`, {
      field: '--package', accepted: `volbench-VERSION-linux-${want}.tar.gz`,
    });
  }
}

/** A bundle from its bytes (read from a file, or an object: the Lambda form's). */
export function bundleOf(name: string, body: Buffer): Bundle {
  return { body, sha256: createHash('sha256').update(body).digest('hex'), name };
}

export const fleetTags = (fleetId: string, expires: string) => [{ Key: FLEET_TAG, Value: fleetId }, { Key: EXPIRES_TAG, Value: expires }];

/** Interactive members' secrets: a token each, and each its own TLS key; their certificates, by label. */
async function putSecrets(state: FleetState, opts: UpOptions): Promise<Map<string, { cert: string; fingerprint: string }>> {
  const { clients } = opts;
  const { fleetId } = state;
  const expires = state.expiresAt!;
  const secret = (Name: string, Value: string, Description: string) => awsCall('ssm:PutParameter', () => clients.ssm.send(new PutParameterCommand({
    Name, Type: 'SecureString', Value, Description, Tags: fleetTags(fleetId, expires),
  })));
  const certificates = new Map<string, { cert: string; fingerprint: string }>();
  for (const m of state.members) {
    m.tokenParameter = tokenParameterName(fleetId, m.label);
    await secret(m.tokenParameter, randomBytes(32).toString('base64url'), `volbench fleet ${fleetId}: ${m.label}'s bearer token`);
    // One key per member, pinned per member: a member's role reads its own key only.
    const cert = fleetCertificate({ commonName: `volbench ${fleetId} ${m.label}`, notAfter: new Date(expires) });
    m.tlsKeyParameter = tlsKeyParameterName(fleetId, m.label);
    m.tlsFingerprint = cert.fingerprint;
    await secret(m.tlsKeyParameter, cert.key, `volbench fleet ${fleetId}: ${m.label}'s TLS key`);
    certificates.set(m.label, { cert: cert.cert, fingerprint: cert.fingerprint });
  }
  return certificates;
}

/**
 * What the members read: interactive ones their token, TLS key and certificate, every one the
 * bundle. An autonomous member serves nothing: it gets no token and no certificate.
 */
async function putShared(state: FleetState, opts: UpOptions, bundle: Bundle): Promise<Pick<FleetStackSettings, 'bundleKey' | 'bundleSha256' | 'tlsFingerprints'>> {
  const { clients } = opts;
  const { fleetId } = state;
  const expires = state.expiresAt!;
  const certificates = (opts.mode ?? 'interactive') === 'interactive' ? await putSecrets(state, opts) : new Map();
  const bundleKey = `${fleetId}/bundle/${bundle.name}`;
  state.objects = [bundleKey, ...[...certificates.keys()].map((label) => tlsCertKey(fleetId, label))];
  await saveState(state, opts.stateDir, clients);
  const sse = await putEncryption(clients, opts.bucket);
  const put = (Key: string, Body: Buffer | string) => awsCall('s3:PutObject', () => clients.s3.send(new PutObjectCommand({
    Bucket: opts.bucket, Key, Body, ...sse, Tagging: `volbench%3Afleet=${fleetId}&volbench%3Aexpires=${encodeURIComponent(expires)}`,
  })));
  for (const [label, c] of certificates) await put(tlsCertKey(fleetId, label), c.cert);
  await put(bundleKey, bundle.body);
  return { bundleKey, bundleSha256: bundle.sha256, tlsFingerprints: new Map([...certificates].map(([label, c]) => [label, c.fingerprint])) };
}

export function newState(plan: FleetPlan, bucket: string, now: Date, ttlSec: number): FleetState {
  return {
    fleetId: plan.fleetId,
    region: plan.region,
    createdAt: now.toISOString(),
    status: 'creating',
    plan,
    bucket,
    expiresAt: expiresAt(now, ttlSec),
    members: plan.members.map((m) => ({ label: m.label, stackName: m.stackName, status: 'creating' })),
  };
}

/** A member's outcome in the state (its volume's id looked up), and said. */
async function record(fleetId: string, member: FleetMemberState, volumeType: string, outcome: MemberStackOutcome, opts: UpOptions): Promise<void> {
  const { label } = member;
  const { onEvent } = opts;
  if (outcome.status === 'failed') {
    Object.assign(member, { status: 'failed', reason: outcome.reason });
    onEvent?.({ event: 'member-failed', fleetId, label, reason: outcome.reason });
    return;
  }
  if (outcome.note) fleetLog(fleetId, onEvent)(`${label}: ${outcome.note}`);
  const volumeId = await memberVolumeId(outcome.stackId, volumeType, opts.clients);
  Object.assign(member, { status: 'created', stackId: outcome.stackId, endpoint: outcome.endpoint, instanceId: outcome.instanceId, ...(volumeId ? { volumeId } : {}) });
  onEvent?.({ event: 'member-up', fleetId, label, endpoint: outcome.endpoint, instanceId: outcome.instanceId });
}

/** A member's stack as every fleet makes it: the template, its parameters, the fleet's tags, the service role. */
export function memberStackInput(m: FleetPlan['members'][number], settings: FleetStackSettings, roleArn: string) {
  // The plan's (--tag) and a study body's (kept in its state), each key once: on the stack and at the template's tag places.
  const tags = userTags(settings.plan.account?.tags, tagList(settings.tags ? checkStackTags(settings.tags, 'study.stacks.tags') : undefined));
  return {
    label: m.label, stackName: m.stackName, templateBody: withUserTags(templateBody(), tags), parameters: stackParameters(m, settings), roleArn,
    tags: [...fleetTags(settings.plan.fleetId, settings.expiresAt), { Key: 'volbench:volume', Value: m.label }, ...tags],
  };
}

/** Every member's stack at once, each with its expiry scheduled first; one member's failure is recorded, never thrown. */
async function createMembers(state: FleetState, settings: FleetStackSettings, opts: UpOptions): Promise<void> {
  const { plan } = settings;
  const roles = await readyStudyRoles(opts.clients, { signal: opts.signal });
  await ensureSchedules({ fleetId: plan.fleetId, expiresAt: settings.expiresAt, roleArn: roles.scheduleRoleArn, partition: roles.partition }, plan.members, opts.clients);
  fleetLog(plan.fleetId, opts.onEvent)(`creating ${plan.members.length} stacks (${settings.architecture}, in ${settings.where.availabilityZone}, expiring ${state.expiresAt}, ` +
    `deleted by schedule group ${scheduleGroupName(plan.fleetId)} then)`);
  await Promise.all(plan.members.map(async (m, i) => {
    const outcome = await createMemberStack(memberStackInput(m, settings, roles.stackRoleArn), { clients: opts.clients, maxWaitSec: opts.maxWaitSec ?? 2400, signal: opts.signal });
    await record(plan.fleetId, state.members[i], m.volume.type, outcome, opts);
  }));
}

/** Marks the fleet failed and deletes what it made. */
async function tearDownFailed(state: FleetState, opts: UpOptions): Promise<void> {
  state.status = 'failed';
  await saveState(state, opts.stateDir, opts.clients).catch(() => {});
  await fleetDown(state, { clients: opts.clients, stateDir: opts.stateDir, onEvent: opts.onEvent }).catch(() => {});
}

/**
 * Where it runs: the caller's account, and the subnet, zone and bucket key preflight found (or
 * refused); then the account read (account.ts: the volumes' key, the quotas), said, and refused
 * when it cannot hold the plan.
 */
export async function placement(plan: FleetPlan, opts: Pick<UpOptions, 'clients' | 'bucket' | 'subnetId' | 'mode' | 'onEvent'>): Promise<Preflight> {
  const { clients } = opts;
  const say = fleetLog(plan.fleetId, opts.onEvent);
  const who = await awsCall('sts:GetCallerIdentity', () => clients.sts.send(new GetCallerIdentityCommand({})));
  const where = await preflight({
    clients, region: plan.region, instanceType: plan.instanceType, bucket: opts.bucket, subnetId: opts.subnetId, accountId: who.Account, mode: opts.mode,
    noPublicIp: plan.account?.noPublicIp,
  });
  for (const note of where.notes ?? []) say(note);
  const account = await readAccount(plan, clients);
  for (const line of account.lines) say(line);
  for (const w of account.warnings) say(`warning: ${w}`);
  refuseAccount(account);
  return where;
}

/** The error for a fleet whose members did not all come up; it was torn down already. */
function notCreated(state: FleetState, signal?: AbortSignal): VolbenchError {
  const failed = state.members.filter((m) => m.status === 'failed');
  if (signal?.aborted) return new VolbenchError('ECANCELLED', `fleet ${state.fleetId}: interrupted; everything it created was deleted`);
  return new VolbenchError('ECLOUD', `fleet ${state.fleetId} could not be created: ${failed.map((m) => `${m.label}: ${m.reason}`).join('; ')}; ` +
    'everything it created was deleted', { field: 'cloudformation:CreateStack' });
}

/**
 * Creates the fleet and says so as it goes (`onEvent`). Refused before anything is made: a TTL
 * shorter than the workload, a bundle of the wrong architecture, preflight. A member that fails
 * (or a signal) takes the whole fleet down, and the error names each failed member's reason.
 */
export async function fleetUp(plan: FleetPlan, opts: UpOptions): Promise<FleetState> {
  const now = opts.now ?? new Date();
  const ttlSec = opts.ttlSec ?? defaultTtlSec(plan.hours);
  const state = newState(plan, opts.bucket, now, ttlSec);
  checkWorkloadFits(state, plan.workloadSeconds, opts.ttlSec, now);
  const architecture = instanceArchitecture(plan.instanceType);
  const bundle = readBundle(opts.bundleFile, architecture);
  opts.onEvent?.({ event: 'created', fleetId: plan.fleetId, region: plan.region, instanceType: plan.instanceType,
    members: plan.members.map((m) => m.label), expiresAt: state.expiresAt! });
  const where = await placement(plan, opts);
  await saveState(state, opts.stateDir, opts.clients);
  const stopListening = deleteStacksOnAbort(opts.signal, state, opts);
  try {
    const shared = await putShared(state, opts, bundle);
    const settings: FleetStackSettings = { plan, architecture, expiresAt: state.expiresAt!, ttlSec, allowedCidr: opts.allowedCidr, bucket: opts.bucket, where,
      instanceProfile: opts.instanceProfile, mode: opts.mode, studySpecSha256: opts.studySpecSha256, ...shared };
    await createMembers(state, settings, opts);
  } catch (err) {
    await tearDownFailed(state, opts);
    throw err;
  } finally {
    stopListening();
  }
  if (state.members.some((m) => m.status === 'failed')) {
    fleetLog(plan.fleetId, opts.onEvent)(`tearing the fleet down: ${state.members.filter((m) => m.status === 'failed').length} stack(s) failed`);
    await tearDownFailed(state, opts);
    throw notCreated(state, opts.signal);
  }
  state.status = 'up';
  await saveState(state, opts.stateDir, opts.clients);
  return state;
}
