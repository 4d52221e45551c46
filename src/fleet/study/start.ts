/**
 * A new study, as far as its first driver alone can take it (only it holds the bundle and the
 * workload): refused before anything is made as `fleet up` refuses (a TTL shorter than the
 * workload, a bundle of another architecture, preflight); then its state (planned) in S3, the
 * spec and the bundle beside it, and what every member's stack is made with recorded in the
 * state, from where any driver takes it on.
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';

import type { Preflight } from '../preflight.js';
import { instanceArchitecture } from '../architecture.js';
import { awsCall } from '../aws.js';
import type { FleetPlan } from '../plan.js';
import type { RunWorkload } from '../run.js';
import { checkBundleName, newState, placement, readBundle, type Bundle } from '../stacks.js';
import { checkStackTags } from '../tags.js';
import { putEncryption } from '../sse.js';
import { saveState, type FleetState } from '../state.js';
import { checkWorkloadFits, defaultTtlSec } from '../ttl.js';
import { nowOf, type StudyContext } from './context.js';
import { sealStudy } from './seal.js';
import { studySpec, writeSpec } from './spec.js';

export interface StudyInput {
  plan: FleetPlan;
  /** The volbench bundle for the instance type's architecture: a file, or its bytes (`bundle`). */
  bundleFile?: string;
  bundle?: Bundle;
  /** What every member runs: the plan's suites, or `suite`, or `jobFile`; gates; runtime; precondition. */
  workload: RunWorkload;
  /** The template's AllowedCidr: an autonomous member's security group opens nothing (default 127.0.0.1/32, which reaches no one). */
  allowedCidr?: string;
  subnetId?: string;
  instanceProfile?: string;
  /** Seconds the fleet may live (default: the plan's duration twice plus 30 minutes). */
  ttlSec?: number;
  /** Leave the fleet up after the report. */
  keep?: boolean;
  /** The user's own tags on every stack (checked: no aws: or volbench: key). */
  tags?: Record<string, string>;
}

/** The input's bundle, of the members' architecture. */
function bundleFor(input: StudyInput): Bundle {
  const arch = instanceArchitecture(input.plan.instanceType);
  if (input.bundle) {
    checkBundleName(input.bundle.name, arch);
    return input.bundle;
  }
  if (input.bundleFile === undefined) throw new Error('a study needs its bundle: bundleFile or bundle');
  return readBundle(input.bundleFile, arch);
}

/** A study checked and placed, not yet written anywhere: what `startStudy` makes. */
export interface PreparedStudy {
  input: StudyInput;
  state: FleetState;
  bundle: Bundle;
  where: Preflight;
  ttlSec: number;
}

/**
 * Checks a new study and finds where it runs (preflight); `created` is said first. Nothing is
 * made: a refusal leaves nothing behind.
 */
export async function prepareStudy(input: StudyInput, ctx: StudyContext): Promise<PreparedStudy> {
  const { plan } = input;
  const now = nowOf(ctx);
  const ttlSec = input.ttlSec ?? defaultTtlSec(plan.hours);
  const state = newState(plan, ctx.bucket, now, ttlSec);
  state.study = { step: 'planned', updatedAt: now.toISOString(), ...(input.keep ? { keep: true } : {}) };
  checkWorkloadFits(state, plan.workloadSeconds, input.ttlSec, now);
  const bundle = bundleFor(input);
  if (input.tags) checkStackTags(input.tags, 'tags');
  // The spec is checked now too: a refusal of it (a label the study reserves) makes nothing.
  studySpec(plan, input.workload, now);
  ctx.onEvent?.({ event: 'created', fleetId: plan.fleetId, region: plan.region, instanceType: plan.instanceType,
    members: plan.members.map((m) => m.label), expiresAt: state.expiresAt! });
  // Autonomous members: a subnet with no route out needs S3 and CloudFormation endpoints only.
  const where = await placement(plan, { clients: ctx.clients, bucket: ctx.bucket, subnetId: input.subnetId, mode: 'autonomous', onEvent: ctx.onEvent });
  return { input, state, bundle, where, ttlSec };
}

/** The bundle in the bucket, tagged so `fleet down` and reap find it. */
async function putBundle(p: PreparedStudy, ctx: StudyContext): Promise<string> {
  const { fleetId } = p.state;
  const key = `${fleetId}/bundle/${p.bundle.name}`;
  const sse = await putEncryption(ctx.clients, ctx.bucket);
  await awsCall('s3:PutObject', () => ctx.clients.s3.send(new PutObjectCommand({
    Bucket: ctx.bucket, Key: key, Body: p.bundle.body, ...sse,
    Tagging: `volbench%3Afleet=${fleetId}&volbench%3Aexpires=${encodeURIComponent(p.state.expiresAt!)}`,
  })));
  return key;
}

/**
 * Writes the study (its lease held by the caller): the state, planned; the spec (its SHA-256 in
 * the state); the bundle; the seal of what the stacks are made from (seal.ts); then the
 * stacks' shared settings, after which any driver can go on.
 */
export async function startStudy(p: PreparedStudy, ctx: StudyContext): Promise<FleetState> {
  const { state, input } = p;
  const study = state.study!;
  await saveState(state, ctx.stateDir, ctx.clients);
  study.specSha256 = await writeSpec(ctx.clients, ctx.bucket, studySpec(input.plan, input.workload, new Date(state.createdAt)));
  await saveState(state, ctx.stateDir, ctx.clients);
  const bundleKey = await putBundle(p, ctx);
  state.objects = [bundleKey];
  study.stacks = {
    architecture: instanceArchitecture(input.plan.instanceType), ttlSec: p.ttlSec, allowedCidr: input.allowedCidr ?? '127.0.0.1/32',
    bundleKey, bundleSha256: p.bundle.sha256, subnetId: p.where.subnetId, vpcId: p.where.vpcId, availabilityZone: p.where.availabilityZone,
    publicAddress: p.where.publicAddress, ...(p.where.kmsKeyArn ? { kmsKeyArn: p.where.kmsKeyArn } : {}),
    ...(input.instanceProfile ? { instanceProfile: input.instanceProfile } : {}),
    ...(input.tags && Object.keys(input.tags).length ? { tags: input.tags } : {}),
  };
  study.updatedAt = nowOf(ctx).toISOString();
  // Before the state names the settings: a state that names them always has its seal.
  await sealStudy(state, ctx.clients);
  await saveState(state, ctx.stateDir, ctx.clients);
  return state;
}
