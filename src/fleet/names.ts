/**
 * Every name a fleet's resources have, derived from its id and its members' labels, never read
 * from anywhere: stacks, SSM parameters, the prefix of its objects, its result files. A state
 * file (which may come from a bucket anyone with write access filled) is checked against these,
 * and what a command touches is always these.
 */
import { VolbenchError } from '../errors.js';

/** A fleet id as `fleet up` makes it (newFleetId): what reap and down accept as `volbench:fleet`. */
export const FLEET_ID = /^vb[0-9a-f]{10}$/;

/**
 * The template's VolumeLabel (infra/cloudformation/instance.yaml): one path component, no dot
 * first, and not one of the fleet's own folders in its bucket (RESERVED_LABELS of the study's
 * objects: study, results, bundle, tls).
 */
export const VOLUME_LABEL = /^(?!(study|results|bundle|tls)$)[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** The tag on everything a fleet makes; only volbench and CloudFormation (from a stack's tags) set it. */
export const FLEET_TAG = 'volbench:fleet';

export function checkFleetId(id: string, field = 'FLEET_ID'): string {
  if (!FLEET_ID.test(id)) throw new VolbenchError('EINVALID_ARGS', `'${id.slice(0, 40)}' is not a fleet id`, { field, accepted: 'an id as `fleet up` prints it, e.g. vb5cf2113138' });
  return id;
}

export function stackNameFor(fleetId: string, label: string): string {
  const safe = label.replace(/[^A-Za-z0-9-]/g, '-').slice(0, 80);
  return `volbench-${fleetId}-${safe}`;
}

/** `volbench-<id>-`: every stack of the fleet's name starts so. */
export function stackPrefix(fleetId: string): string {
  return `volbench-${fleetId}-`;
}

/** The member's own token: each member answers only its own. */
export function tokenParameterName(fleetId: string, label: string): string {
  return `/volbench/${fleetId}/${label}/token`;
}

/** The member's own TLS key: each member holds only its own, and is pinned to its own certificate. */
export function tlsKeyParameterName(fleetId: string, label: string): string {
  return `/volbench/${fleetId}/${label}/tls-key`;
}

/** The member's own certificate (public) in the fleet's bucket. */
export function tlsCertKey(fleetId: string, label: string): string {
  return `${fleetId}/tls/${label}.crt`;
}

/** A study's seal (study/seal.ts): the SHA-256 of what its stacks are made from, where a bucket's writer cannot write. */
export function studySealParameterName(fleetId: string): string {
  return `/volbench/${fleetId}/study`;
}

/** Where the fleet's SSM parameters live: nothing of it is outside. */
export function parameterPath(fleetId: string): string {
  return `/volbench/${fleetId}/`;
}

/** Where the fleet's objects live in its bucket: nothing of it is outside. */
export function objectPrefix(fleetId: string): string {
  return `${fleetId}/`;
}

/** The controller's copy of a member's result in the fleet's bucket (written by the CLI, never by a member). */
export function resultKey(fleetId: string, label: string): string {
  return `${fleetId}/results/${label}.json`;
}

/** The schedule group holding the schedules that delete a fleet's stacks at its expiry. */
export function scheduleGroupName(fleetId: string): string {
  return `volbench-${fleetId}`;
}

/** A member's schedule in its fleet's group: its label (the template's VolumeLabel fits Scheduler's names). */
export function scheduleName(label: string): string {
  return label;
}

/** Whether `tags` carry `volbench:fleet=<fleetId>`. */
export function taggedWithFleet(tags: ReadonlyArray<{ Key?: string; Value?: string }> | undefined, fleetId: string): boolean {
  return !!tags?.some((t) => t.Key === FLEET_TAG && t.Value === fleetId);
}
