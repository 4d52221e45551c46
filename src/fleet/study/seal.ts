/**
 * The study's seal: the SHA-256 of what its stacks and schedules are made from, as its first
 * driver wrote it, kept where a writer of the bucket cannot write (SSM, `/volbench/<id>/study`,
 * tagged with the fleet). Any driver goes on from the state in S3, which anyone who may write the bucket may
 * have rewritten, and a state decides the bundle an instance runs with its role, the instance
 * type, the volumes, the network open to it, its profile and its expiry. A state that does not
 * match the seal is refused (EFLEET_STATE): no stack and no schedule is made on its word.
 */
import { createHash } from 'node:crypto';
import { GetParameterCommand, PutParameterCommand } from '@aws-sdk/client-ssm';

import { VolbenchError } from '../../errors.js';
import { awsCall, type FleetClients } from '../aws.js';
import { FLEET_TAG, studySealParameterName } from '../names.js';
import type { FleetState } from '../state.js';
import { EXPIRES_TAG } from '../ttl.js';

/** JSON with every object's keys sorted: the same text for the same value, however it was parsed. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The SHA-256 of what the study's stacks and schedules are made from: nothing a step changes. */
export function studyDigest(state: FleetState): string {
  const study = state.study;
  const made = {
    fleetId: state.fleetId, region: state.region, bucket: state.bucket, expiresAt: state.expiresAt, plan: state.plan,
    stacks: study?.stacks, specSha256: study?.specSha256, keep: study?.keep ?? false,
  };
  return createHash('sha256').update(canonical(made)).digest('hex');
}

/** Writes the seal of `state` (its first driver, before the state names its stacks' settings). */
export async function sealStudy(state: FleetState, clients: FleetClients): Promise<void> {
  const Name = studySealParameterName(state.fleetId);
  await awsCall('ssm:PutParameter', () => clients.ssm.send(new PutParameterCommand({
    Name, Type: 'String', Value: studyDigest(state), Overwrite: false,
    Description: `volbench study ${state.fleetId}: the SHA-256 of what its stacks and schedules are made from`,
    Tags: [{ Key: FLEET_TAG, Value: state.fleetId }, { Key: EXPIRES_TAG, Value: state.expiresAt! }],
  })));
}

/**
 * Refuses (EFLEET_STATE) a started study's state that is not the one its first driver sealed, or
 * whose seal is missing; a study not yet started (no stacks' settings) has nothing to check.
 */
export async function checkStudySeal(state: FleetState, clients: FleetClients): Promise<void> {
  if (!state.study?.stacks) return;
  const Name = studySealParameterName(state.fleetId);
  const where = `s3://${state.bucket}/${state.fleetId}/fleet.json`;
  const refuse = (why: string): never => {
    throw new VolbenchError('EFLEET_STATE', `${where} ${why}: it is not the study its first driver started; no stack or schedule is made on its word ` +
      `(fleet down ${state.fleetId} deletes what the fleet made)`, { field: 'study', accepted: `the state whose SHA-256 ${Name} holds` });
  };
  let recorded: string | undefined;
  try {
    recorded = (await awsCall('ssm:GetParameter', () => clients.ssm.send(new GetParameterCommand({ Name })))).Parameter?.Value;
  } catch (err) {
    if (!/ParameterNotFound/.test(((err as VolbenchError).cause as Error | undefined)?.name ?? '')) throw err;
  }
  if (recorded === undefined) refuse(`names its stacks' settings, but ${Name} does not exist`);
  if (recorded !== studyDigest(state)) refuse(`does not match ${Name} (what its stacks are made from was changed)`);
}
