/**
 * A fleet's state file: what was created, where it answers, and whether it is down. Written
 * locally (so `fleet down` and `fleet list` work from another shell) and beside its results in
 * S3 (so they work from another machine), after every change.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';

import { VolbenchError } from '../errors.js';
import { awsCall, type FleetClients } from './aws.js';
import type { FleetPlan } from './plan.js';

export type FleetStatus = 'creating' | 'up' | 'running' | 'deleting' | 'down' | 'failed';

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
}

export interface FleetState {
  fleetId: string;
  region: string;
  createdAt: string;
  status: FleetStatus;
  plan: FleetPlan;
  bucket?: string;
  /** One token for the whole fleet: states written before each member had its own. */
  tokenParameter?: string;
  /** ISO-8601 UTC: the `volbench:expires` of everything the fleet made. */
  expiresAt?: string;
  /** The members' certificate's SHA-256 (PinnedTls): the whole of the trust in them. */
  tlsFingerprint?: string;
  /** The SSM SecureString holding the certificate's key. */
  tlsKeyParameter?: string;
  /** Objects the fleet put in its bucket besides results (bundle, certificate), removed by `down`. */
  objects?: string[];
  members: FleetMemberState[];
}

const ID = /^vb[0-9a-f]{10}$/;

export function checkFleetId(id: string, field = 'FLEET_ID'): string {
  if (!ID.test(id)) throw new VolbenchError('EINVALID_ARGS', `'${id.slice(0, 40)}' is not a fleet id`, { field, accepted: 'an id as `fleet up` prints it, e.g. vb5cf2113138' });
  return id;
}

/** $XDG_STATE_HOME/volbench/fleets, else ~/.local/state/volbench/fleets. */
export function defaultStateDir(): string {
  const base = process.env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  return join(base, 'volbench', 'fleets');
}

export function stateKey(fleetId: string): string {
  return `${fleetId}/fleet.json`;
}

export async function saveState(state: FleetState, dir: string, clients?: FleetClients): Promise<void> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${state.fleetId}.json`);
  const text = `${JSON.stringify(state, null, 2)}\n`;
  writeFileSync(`${file}.tmp`, text, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
  if (clients && state.bucket) {
    await awsCall('s3:PutObject', () => clients.s3.send(new PutObjectCommand({
      Bucket: state.bucket, Key: stateKey(state.fleetId), Body: text, ContentType: 'application/json',
    })));
  }
}

/** The state from the local file, else from S3 when a bucket is given. */
export async function loadState(fleetId: string, dir: string, clients?: FleetClients, bucket?: string): Promise<FleetState> {
  checkFleetId(fleetId);
  try {
    return JSON.parse(readFileSync(join(dir, `${fleetId}.json`), 'utf8')) as FleetState;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (clients && bucket) return loadRemoteState(fleetId, clients, bucket);
  throw new VolbenchError('EINVALID_ARGS', `no state for fleet ${fleetId} in ${dir}`, {
    field: 'FLEET_ID', accepted: 'a fleet created from this machine, or --bucket where its state was saved',
  });
}

/** The state's copy in S3 (`--bucket`): a fleet made on another machine. */
export async function loadRemoteState(fleetId: string, clients: FleetClients, bucket: string): Promise<FleetState> {
  const out = await awsCall('s3:GetObject', () => clients.s3.send(new GetObjectCommand({ Bucket: bucket, Key: stateKey(fleetId) })));
  const state = JSON.parse(await out.Body!.transformToString()) as FleetState;
  if (state.fleetId !== fleetId) throw new VolbenchError('ECLOUD', `s3://${bucket}/${stateKey(fleetId)} holds fleet ${String(state.fleetId).slice(0, 40)}`, { field: '--bucket' });
  return state;
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
    if (!name.endsWith('.json')) continue;
    try {
      states.push(JSON.parse(readFileSync(join(dir, name), 'utf8')) as FleetState);
    } catch {
      // A file being replaced, or not ours: skipped.
    }
  }
  return states.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** Every fleet state saved in a bucket (`<fleet-id>/fleet.json`): `list` from another machine. */
export async function listRemoteStates(clients: FleetClients, bucket: string): Promise<FleetState[]> {
  const states: FleetState[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await awsCall('s3:ListObjectsV2', () => clients.s3.send(new ListObjectsV2Command({ Bucket: bucket, Delimiter: '/', ContinuationToken })));
    for (const prefix of page.CommonPrefixes ?? []) {
      const id = prefix.Prefix?.replace(/\/$/, '') ?? '';
      if (!ID.test(id)) continue;
      try {
        states.push(await loadRemoteState(id, clients, bucket));
      } catch {
        // A fleet whose state was never saved, or another tool's folder.
      }
    }
    ContinuationToken = page.NextContinuationToken;
  } while (ContinuationToken);
  return states.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}
