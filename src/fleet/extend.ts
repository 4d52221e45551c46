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
import { saveState, type FleetState } from './state.js';
import { EXPIRES_TAG } from './ttl.js';

export async function extendFleet(state: FleetState, expires: string, clients: FleetClients, stateDir: string): Promise<boolean> {
  if (state.expiresAt && Date.parse(expires) <= Date.parse(state.expiresAt)) return false;
  const tag = { Key: EXPIRES_TAG, Value: expires };
  const instances = state.members.map((m) => m.instanceId).filter((id): id is string => !!id);
  if (instances.length) await awsCall('ec2:CreateTags', () => clients.ec2.send(new CreateTagsCommand({ Resources: instances, Tags: [tag] })));
  const names = [state.tlsKeyParameter, ...state.members.map((m) => m.tokenParameter)].filter((n): n is string => !!n);
  for (const ResourceId of names) {
    await awsCall('ssm:AddTagsToResource', () => clients.ssm.send(new AddTagsToResourceCommand({ ResourceType: 'Parameter', ResourceId, Tags: [tag] })));
  }
  for (const Key of state.bucket ? state.objects ?? [] : []) {
    await awsCall('s3:PutObjectTagging', () => clients.s3.send(new PutObjectTaggingCommand({
      Bucket: state.bucket, Key, Tagging: { TagSet: [{ Key: 'volbench:fleet', Value: state.fleetId }, tag] },
    })));
  }
  state.expiresAt = expires;
  await saveState(state, stateDir, clients);
  return true;
}
