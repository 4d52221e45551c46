/**
 * `fleet run --ttl`: a later expiry for a fleet that is up. The members' own switch reads their
 * instance's `volbench:expires` through IMDS, so the tag moves on the instances (and on the
 * secrets and objects reap would find); reap spares a stack whose instance says later. The
 * expiry never moves earlier here.
 */
import { CreateTagsCommand } from '@aws-sdk/client-ec2';
import { PutObjectTaggingCommand } from '@aws-sdk/client-s3';
import { AddTagsToResourceCommand } from '@aws-sdk/client-ssm';

import { awsCall, type FleetClients } from './aws.js';
import { fleetLog, type OnFleetEvent } from './events.js';
import { fleetInstances, fleetObjects, fleetParameters, liveInstances } from './fleet-resources.js';
import { fleetStacks } from './member-stacks.js';
import { FLEET_TAG } from './names.js';
import { moveSchedules } from './schedules.js';
import { saveState, type FleetState } from './state.js';
import { checkWorkloadFits, expiresAt, EXPIRES_TAG } from './ttl.js';

/** The tag moves on what the fleet made as its stacks and tags say, never on what a state names. */
export async function extendFleet(state: FleetState, expires: string, clients: FleetClients, stateDir: string): Promise<boolean> {
  if (state.expiresAt && Date.parse(expires) <= Date.parse(state.expiresAt)) return false;
  const tag = { Key: EXPIRES_TAG, Value: expires };
  const stacks = await fleetStacks(state.fleetId, state.members.map((m) => m.label), clients);
  const instances = await liveInstances((await fleetInstances(state.fleetId, stacks, clients)).ours, clients);
  if (instances.length) await awsCall('ec2:CreateTags', () => clients.ec2.send(new CreateTagsCommand({ Resources: instances, Tags: [tag] })));
  for (const ResourceId of (await fleetParameters(state.fleetId, clients)).ours) {
    await awsCall('ssm:AddTagsToResource', () => clients.ssm.send(new AddTagsToResourceCommand({ ResourceType: 'Parameter', ResourceId, Tags: [tag] })));
  }
  for (const Key of state.bucket ? (await fleetObjects(state.fleetId, state.bucket, clients)).ours : []) {
    await awsCall('s3:PutObjectTagging', () => clients.s3.send(new PutObjectTaggingCommand({
      Bucket: state.bucket, Key, Tagging: { TagSet: [{ Key: FLEET_TAG, Value: state.fleetId }, tag] },
    })));
  }
  // AWS's own expiry moves with it: the schedules that delete the stacks.
  await moveSchedules(state.fleetId, expires, clients);
  state.expiresAt = expires;
  await saveState(state, stateDir, clients);
  return true;
}

export interface FitOptions {
  clients: FleetClients;
  stateDir: string;
  /** The fleet's life from `now` (`run --ttl`): the expiry moves there first (never earlier). */
  ttlSec?: number;
  now?: Date;
  onEvent?: OnFleetEvent;
}

/**
 * Before a workload of `needsSec` on a fleet that is up: refused when the fleet's life cannot
 * hold it (checkWorkloadFits); with `ttlSec`, the expiry moves to that long from now, and a log
 * event says so.
 */
export async function fitWorkload(state: FleetState, needsSec: number, opts: FitOptions): Promise<void> {
  const now = opts.now ?? new Date();
  checkWorkloadFits(state, needsSec, opts.ttlSec, now);
  if (opts.ttlSec === undefined) return;
  const later = expiresAt(now, opts.ttlSec);
  if (await extendFleet(state, later, opts.clients, opts.stateDir)) fleetLog(state.fleetId, opts.onEvent)(`fleet ${state.fleetId}: now expires at ${later}`);
}
