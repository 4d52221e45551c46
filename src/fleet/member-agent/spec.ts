/**
 * The study's spec as a member accepts it: the bytes whose SHA-256 its stack was created with
 * (StudySpecSha256), nothing else. Anyone who may write to the bucket may replace the object; the
 * stack's parameter only the controller set. Then it is parsed strictly (the contract's schema),
 * must be this fleet's, and must name this member once.
 */
import { studySpecSchema, type StudyMemberSpec, type StudySpec } from '../../api/study-objects.js';
import { VolbenchError } from '../../errors.js';
import type { SpecBytes } from './objects.js';

const SHA256 = /^[0-9a-f]{64}$/;

function refuse(message: string, field: string, accepted: string): never {
  throw new VolbenchError('EFLEET_STATE', message, { field, accepted });
}

/** The expected digest as the stack gives it, checked to be one. */
export function checkSpecSha256(value: string, field = '--spec-sha256'): string {
  if (!SHA256.test(value)) refuse(`'${value.slice(0, 80)}' is not a SHA-256`, field, '64 lower-case hex digits (the stack\'s StudySpecSha256)');
  return value;
}

/** The spec, accepted: its digest the stack's, its shape the contract's, its fleet this one. */
export function acceptSpec(stored: SpecBytes, want: { sha256: string; fleetId: string; source: string }): StudySpec {
  if (stored.sha256 !== want.sha256) {
    refuse(`the spec is not the one this member's stack names: ${want.source} has SHA-256 ${stored.sha256}, not ${want.sha256} (StudySpecSha256); ` +
      'it was not written for this study, or was replaced, and nothing of it is run',
      'StudySpecSha256', want.sha256);
  }
  let json: unknown;
  try {
    json = JSON.parse(stored.bytes.toString('utf8'));
  } catch (err) {
    refuse(`${want.source} is not JSON: ${(err as Error).message}`, 'spec', 'the study spec as JSON');
  }
  const parsed = studySpecSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '') || '(the whole spec)';
    refuse(`${want.source}: ${field}: ${issue.message}`, `spec.${field}`, issue.message);
  }
  if (parsed.data.fleet_id !== want.fleetId) refuse(`${want.source} is fleet ${parsed.data.fleet_id}'s spec, not ${want.fleetId}'s`, 'spec.fleet_id', want.fleetId);
  return parsed.data;
}

/** This member's entry: exactly one, and it must name a workload. */
export function memberEntry(spec: StudySpec, label: string): StudyMemberSpec {
  const mine = spec.members.filter((m) => m.label === label);
  if (mine.length !== 1) {
    refuse(`the study's spec names ${mine.length === 0 ? 'no' : `${mine.length}`} member${mine.length === 1 ? '' : 's'} labelled ${label}`, 'spec.members', `one entry labelled ${label}`);
  }
  const entry = mine[0];
  if ((entry.suite === undefined) === (entry.job === undefined)) {
    refuse(`the study's spec gives ${label} ${entry.suite === undefined ? 'neither a suite nor a job' : 'both a suite and a job'}`, `spec.members.${label}`, 'a suite or a job');
  }
  return entry;
}
