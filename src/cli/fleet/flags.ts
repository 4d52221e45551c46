/**
 * The fleet commands' flags: one table, from which each subcommand takes the ones it uses (its
 * file lists them). A flag it does not take (another subcommand's, say) is refused naming the
 * flag and listing its own, not ignored.
 */
import { parseArgs } from 'node:util';

import { awsRegion } from '../../cloud/index.js';
import { VolbenchError } from '../../errors.js';

export const FLEET_OPTIONS = {
  volumes: { type: 'string' },
  instance: { type: 'string' },
  suite: { type: 'string' },
  runtime: { type: 'string' },
  'no-precondition': { type: 'boolean' },
  job: { type: 'string' },
  assert: { type: 'string', multiple: true },
  region: { type: 'string' },
  profile: { type: 'string' },
  bucket: { type: 'string' },
  'allowed-cidr': { type: 'string' },
  package: { type: 'string' },
  subnet: { type: 'string' },
  'instance-profile': { type: 'string' },
  // What a company account asks of the members (src/fleet/member-account.ts).
  tag: { type: 'string', multiple: true },
  'no-public-ip': { type: 'boolean' },
  'ebs-kms-key': { type: 'string' },
  'check-account': { type: 'boolean' },
  ttl: { type: 'string' },
  now: { type: 'string' },
  'max-cost': { type: 'string' },
  yes: { type: 'boolean' },
  'endpoint-map': { type: 'string' },
  out: { type: 'string' },
  'state-dir': { type: 'string' },
  keep: { type: 'boolean' },
  interactive: { type: 'boolean' },
  wait: { type: 'boolean' },
  'fleet-id': { type: 'string' },
  strict: { type: 'boolean' },
  cost: { type: 'string' },
  'cost-basis': { type: 'string' },
  format: { type: 'string' },
  // `fleet member`, on the instance (the template's user data passes them).
  fleet: { type: 'string' },
  label: { type: 'string' },
  'spec-sha256': { type: 'string' },
  device: { type: 'string' },
  'volume-id': { type: 'string' },
  'kms-key': { type: 'string' },
  stack: { type: 'string' },
  'instance-id': { type: 'string' },
  shutdown: { type: 'boolean' },
} as const;

export type FleetFlag = keyof typeof FLEET_OPTIONS;

type ValueOf<T> = T extends { multiple: true } ? string[] : T extends { type: 'boolean' } ? boolean : string;

export type FleetValues = { [K in FleetFlag]?: ValueOf<(typeof FLEET_OPTIONS)[K]> };

/** What every subcommand takes. */
const COMMON: readonly FleetFlag[] = ['region', 'profile', 'state-dir', 'format'];

/** The flags that make a plan: `plan`, and `up` and `compare` before they create it. */
export const PLAN_FLAGS: readonly FleetFlag[] = [
  'volumes', 'instance', 'suite', 'runtime', 'no-precondition', 'job', 'ttl', 'cost', 'cost-basis', 'strict', 'tag', 'no-public-ip', 'ebs-kms-key',
];

/** What `up` (and `compare`) add to make the fleet. */
export const UP_FLAGS: readonly FleetFlag[] = [...PLAN_FLAGS, 'bucket', 'allowed-cidr', 'package', 'subnet', 'instance-profile', 'max-cost', 'yes'];

/** What a run on a fleet takes (`run`, and `compare` after up). */
export const RUN_FLAGS: readonly FleetFlag[] = ['suite', 'job', 'assert', 'runtime', 'no-precondition', 'endpoint-map', 'out'];

export interface Parsed {
  values: FleetValues;
  positionals: string[];
}

/** parseArgs' own words for a flag it does not know, made to name the subcommand. */
function refused(sub: string, flags: readonly FleetFlag[], err: Error & { code?: string }): VolbenchError {
  const flag = /'(--?[^']+)'/.exec(err.message)?.[1];
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag) {
    return new VolbenchError('EINVALID_ARGS', `fleet ${sub} does not take ${flag}`, { field: flag, accepted: flags.map((f) => `--${f}`).join(', ') });
  }
  return new VolbenchError('EINVALID_ARGS', `fleet ${sub}: ${err.message}`, { accepted: 'see volbench fleet --help' });
}

/** `argv` as `sub` takes it: its own flags and the common ones. */
export function parseFleetArgs(sub: string, argv: string[], own: readonly FleetFlag[]): Parsed {
  const flags = [...new Set([...own, ...COMMON])];
  const options = Object.fromEntries(flags.map((f) => [f, FLEET_OPTIONS[f]]));
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw refused(sub, flags, err as Error);
  }
  const values = parsed.values as FleetValues;
  if (values.format !== undefined && values.format !== 'table' && values.format !== 'json') {
    throw new VolbenchError('EINVALID_ARGS', `fleet: --format takes table or json, not '${values.format}'`, { field: '--format', accepted: 'table, json' });
  }
  return { values, positionals: parsed.positionals };
}

export function need(values: FleetValues, name: FleetFlag, what: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new VolbenchError('EINVALID_ARGS', `fleet: --${name} is required (${what})`, { field: `--${name}`, accepted: what });
  return v;
}

export function region(values: FleetValues): string {
  return awsRegion(values.region, '--region');
}
