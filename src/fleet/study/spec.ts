/**
 * The study's spec (the contract's studySpecSchema), written once to `FLEET/study/spec.json`:
 * what each autonomous member runs, spelled out so it needs nothing else (its suite or job file,
 * the runtime, what to precondition, the gates, its volume). Its SHA-256 is every member stack's
 * StudySpecSha256, which the member checks before it runs anything.
 *
 * Written with `If-None-Match: *`: a spec that exists already (a driver resuming the study) is
 * kept, and must be the one the state names.
 */
import { createHash } from 'node:crypto';

import { RESERVED_LABELS, studyObjectKey, studySpecSchema, type StudyMemberSpec, type StudySpec } from '../../api/study-objects.js';
import { VolbenchError } from '../../errors.js';
import type { FleetClients } from '../aws.js';
import type { FleetMember, FleetPlan } from '../plan.js';
import type { RunWorkload } from '../run.js';
import { volumeOfMember } from '../volumes.js';
import { putRefusal, putText, readCapped } from './bucket-objects.js';

function memberSpec(plan: FleetPlan, m: FleetMember, w: RunWorkload): StudyMemberSpec {
  // Names under FLEET/ the fleet writes itself (the contract's): no member's prefix may be one.
  if (RESERVED_LABELS.includes(m.label)) {
    throw new VolbenchError('EINVALID_ARGS', `a member may not be labelled '${m.label}': its prefix is the study's own`, { field: '--volumes', accepted: `labels other than ${RESERVED_LABELS.join(', ')}` });
  }
  const runtime = w.runtime ?? plan.runtime;
  const assert = w.assert?.length ? { assert: w.assert } : {};
  const volume = volumeOfMember(m.volume).text;
  if (w.jobFile) return { label: m.label, job: w.jobFile, ...assert, volume };
  const suite = w.suite ?? m.suite ?? plan.suite;
  // The plan's precondition is for the suite it planned: not for another one given to run.
  const precondition = w.suite === undefined && w.precondition !== false && m.precondition ? { precondition_bytes: m.precondition.bytes } : {};
  return { label: m.label, suite, ...(runtime !== undefined ? { runtime } : {}), ...precondition, ...assert, volume };
}

/** The spec of `plan` with `workload`, checked against the contract. */
export function studySpec(plan: FleetPlan, workload: RunWorkload, createdAt: Date): StudySpec {
  return studySpecSchema.parse({
    schema_version: 1, fleet_id: plan.fleetId, region: plan.region, instance_type: plan.instanceType, created_at: createdAt.toISOString(),
    members: plan.members.map((m) => memberSpec(plan, m, workload)),
  });
}

export function specText(spec: StudySpec): string {
  return `${JSON.stringify(spec, null, 2)}\n`;
}

export const sha256Hex = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/**
 * Writes the spec once; its SHA-256. One there already (a resumed start) is taken only when it is
 * the spec `expectSha256` names, or (none named) when it is this very text.
 */
export async function writeSpec(clients: FleetClients, bucket: string, spec: StudySpec, expectSha256?: string): Promise<string> {
  const text = specText(spec);
  const key = studyObjectKey(spec.fleet_id, 'spec');
  try {
    await putText(clients, bucket, key, text, { ifNoneMatch: '*' });
    return sha256Hex(text);
  } catch (err) {
    if (putRefusal(err) !== 'precondition-failed' && putRefusal(err) !== 'conflict') throw err;
  }
  const there = await readCapped(clients, bucket, key, 256 * 1024);
  const sha = there ? sha256Hex(there.body) : '';
  if (sha === (expectSha256 ?? sha256Hex(text))) return sha;
  throw new VolbenchError('EFLEET_STATE', `s3://${bucket}/${key} is there already, and is not this study's spec (SHA-256 ${sha || 'unknown'}); nothing was created`, {
    field: 'study.specSha256', accepted: 'a study id of its own (a new fleet id)',
  });
}
