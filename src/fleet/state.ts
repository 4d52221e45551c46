/**
 * A fleet's state file: what was planned, what happened, and whether it is down. Written
 * locally (so `fleet down` and `fleet list` work from another shell) and beside its results in
 * S3 (so they work from another machine), after every change. Read back, it is parsed strictly
 * (state-schema.ts) and is a cache: the names of what the fleet made are derived (names.ts), and
 * where its members answer is what their stacks say (member-stacks.ts).
 */
import { readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';

import type { MemberDone, MemberProgress } from '../api/study-objects.js';
import { VolbenchError } from '../errors.js';
import { awsCall, type FleetClients } from './aws.js';
import { checkFleetId, FLEET_ID } from './names.js';
import type { FleetPlan } from './plan.js';
import { putEncryption } from './sse.js';
import { MAX_STATE_BYTES, readStateFile, writeStateFile } from './state-files.js';
import { parseFleetState } from './state-schema.js';

export { checkFleetId } from './names.js';

export type FleetStatus = 'creating' | 'up' | 'running' | 'deleting' | 'down' | 'failed';

/**
 * What `fleet up` saw of a member. Its names are the ones names.ts derives (a state read back is
 * refused otherwise), and its endpoint and instance are a record only: commands ask its stack.
 */
export interface FleetMemberState {
  label: string;
  stackName: string;
  status: 'creating' | 'created' | 'failed' | 'deleted';
  reason?: string;
  endpoint?: string;
  instanceId?: string;
  volumeId?: string;
  /** The SSM SecureString holding this member's own bearer token. */
  tokenParameter?: string;
  /** Its own certificate's SHA-256, as `up` made it; commands pin its stack's TlsFingerprint output. */
  tlsFingerprint?: string;
  /** The SSM SecureString holding its own certificate's key. */
  tlsKeyParameter?: string;
  /** Its stack's id, once CreateStack answered (a failed stack is read back by it after its deletion). */
  stackId?: string;
  /** A study's autonomous member: what it last wrote to progress.json, as parsed. */
  progress?: MemberProgress;
  /** A study's autonomous member: its done.json, as parsed. */
  done?: MemberDone;
  /** A study's member whose run failed without a done.json, or whose objects were refused: why. */
  error?: string;
  /** A study's member whose result was collected: the controller's copy, its SHA-256 and the gate. */
  collected?: { key: string; sha256: string; gate?: 'passed' | 'failed' };
}

/** A study's step (study/steps.ts). */
export type StudyStep = 'planned' | 'creating' | 'running' | 'collecting' | 'reporting' | 'tearing-down' | 'done' | 'failed';

/** What every member's stack of a study is made with, recorded once the bundle is in S3 (planned). */
export interface StudyStacks {
  architecture: 'x86_64' | 'arm64';
  ttlSec: number;
  allowedCidr: string;
  bundleKey: string;
  bundleSha256: string;
  subnetId: string;
  vpcId: string;
  availabilityZone: string;
  publicAddress: boolean;
  kmsKeyArn?: string;
  instanceProfile?: string;
  /** The user's own tags on every stack (tags.ts). */
  tags?: Record<string, string>;
}

/**
 * A study: the fleet driven as a state machine (study/), by any process holding its lease. A
 * cache of where it is, like the rest of the state: the stacks say what exists.
 */
export interface StudyState {
  step: StudyStep;
  /** Set once the study is to fail (it is torn down, then `failed`): why. */
  failure?: string;
  /** Leave the fleet up after the report, until `fleet down` or its expiry. */
  keep?: boolean;
  /** The SHA-256 of FLEET/study/spec.json, the stacks' StudySpecSha256. */
  specSha256?: string;
  stacks?: StudyStacks;
  /** ISO-8601: when the step last changed. */
  updatedAt: string;
  /** How many times the teardown asked again for a stack whose deletion failed. */
  deleteAttempts?: number;
}

export interface FleetState {
  fleetId: string;
  region: string;
  createdAt: string;
  status: FleetStatus;
  plan: FleetPlan;
  /** The bucket `up` was given; read back from S3, the one it was read from. */
  bucket?: string;
  /** ISO-8601 UTC: the `volbench:expires` of everything the fleet made. */
  expiresAt?: string;
  /** Objects the fleet put in its bucket besides results (bundle, certificates): `down` finds them by prefix and tag. */
  objects?: string[];
  /** A study (`fleet compare`, autonomous members): its step and what each step needs. */
  study?: StudyState;
  members: FleetMemberState[];
}

/** `text` as fleet `fleetId`'s state, from `source`; with `bucket`, the bucket it was read from. */
function parseStateText(text: string, fleetId: string, source: string, bucket?: string): FleetState {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new VolbenchError('EFLEET_STATE', `${source} is not JSON: ${(cause as Error).message}`, { field: '(the whole file)', accepted: 'a fleet state as volbench writes it', cause });
  }
  // The schema's plan is FleetPlan's shape, less its exact unions.
  return parseFleetState(json, fleetId, source, bucket) as unknown as FleetState;
}

/** $XDG_STATE_HOME/volbench/fleets, else ~/.local/state/volbench/fleets. */
export function defaultStateDir(): string {
  const base = process.env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  return join(base, 'volbench', 'fleets');
}

export function stateKey(fleetId: string): string {
  return `${fleetId}/fleet.json`;
}

/** Writes the state: to `dir` (none: a driver with no local state, such as a Lambda), and to S3 with clients and a bucket. */
export async function saveState(state: FleetState, dir: string | undefined, clients?: FleetClients): Promise<void> {
  const text = `${JSON.stringify(state, null, 2)}\n`;
  if (dir !== undefined) {
    writeStateFile(dir, `${state.fleetId}.json`, text);
  }
  if (clients && state.bucket) {
    const sse = await putEncryption(clients, state.bucket);
    await awsCall('s3:PutObject', () => clients.s3.send(new PutObjectCommand({
      Bucket: state.bucket, Key: stateKey(state.fleetId), Body: text, ContentType: 'application/json', ...sse,
    })));
  }
}

/** The state from the local file, else from S3 when a bucket is given. */
export async function loadState(fleetId: string, dir: string, clients?: FleetClients, bucket?: string): Promise<FleetState> {
  checkFleetId(fleetId);
  const file = join(dir, `${fleetId}.json`);
  const text = readStateFile(dir, `${fleetId}.json`, file);
  if (text !== undefined) return parseStateText(text, fleetId, file);
  if (clients && bucket) return loadRemoteState(fleetId, clients, bucket);
  throw new VolbenchError('EINVALID_ARGS', `no state for fleet ${fleetId} in ${dir}`, {
    field: 'FLEET_ID', accepted: 'a fleet created from this machine, or --bucket where its state was saved',
  });
}

/**
 * The state's copy in S3 (`--bucket`): a fleet made on another machine. Anyone who may write to
 * the bucket may have written it: it must be fleet `fleetId`'s, name this bucket, and name only
 * what volbench derives (state-schema.ts).
 */
export async function loadRemoteState(fleetId: string, clients: FleetClients, bucket: string): Promise<FleetState> {
  const source = `s3://${bucket}/${stateKey(fleetId)}`;
  const out = await awsCall('s3:GetObject', () => clients.s3.send(new GetObjectCommand({ Bucket: bucket, Key: stateKey(fleetId) })));
  if ((out.ContentLength ?? 0) > MAX_STATE_BYTES) {
    out.Body?.transformToWebStream().cancel().catch(() => {});
    throw new VolbenchError('EFLEET_STATE', `${source} is ${out.ContentLength} bytes: not a state volbench wrote`, { field: '(the whole file)', accepted: `at most ${MAX_STATE_BYTES} bytes` });
  }
  return parseStateText(await out.Body!.transformToString(), fleetId, source, bucket);
}

export function listStates(dir: string): FleetState[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const states: FleetState[] = [];
  for (const name of names) {
    const id = name.replace(/\.json$/, '');
    if (!name.endsWith('.json') || !FLEET_ID.test(id)) continue;
    try {
      const text = readStateFile(dir, name, join(dir, name));
      if (text !== undefined) states.push(parseStateText(text, id, join(dir, name)));
    } catch {
      // A file being replaced, or not ours (another user's, a link, a FIFO): skipped.
    }
  }
  return states.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** Every fleet state saved in a bucket (`<fleet-id>/fleet.json`): `list` from another machine. */
export async function listRemoteStates(clients: FleetClients, bucket: string): Promise<FleetState[]> {
  const states: FleetState[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await awsCall('s3:ListBucket', () => clients.s3.send(new ListObjectsV2Command({ Bucket: bucket, Delimiter: '/', ContinuationToken })));
    for (const prefix of page.CommonPrefixes ?? []) {
      const id = prefix.Prefix?.replace(/\/$/, '') ?? '';
      if (!FLEET_ID.test(id)) continue;
      try {
        states.push(await loadRemoteState(id, clients, bucket));
      } catch {
        // A fleet whose state was never saved, another tool's folder, or a state volbench did not write.
      }
    }
    ContinuationToken = page.NextContinuationToken;
  } while (ContinuationToken);
  return states.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}
