/**
 * Running the workload on every member of a fleet over HTTP (member-run.ts, one member), at once.
 * Where a member answers and the certificate it is pinned to are what its stack says
 * (member-stacks.ts), its token the one its name derives (names.ts): a state file decides none
 * of them.
 */
import { readFileSync } from 'node:fs';
import { GetParameterCommand } from '@aws-sdk/client-ssm';

import { VolbenchError } from '../errors.js';
import { ownTable, ownValue } from '../own-key.js';
import { awsCall, type FleetClients } from './aws.js';
import type { OnFleetEvent } from './events.js';
import { MemberClient, type Fetch } from './member-client.js';
import { memberHosts, type MemberHost } from './member-cloud.js';
import { runMember, type MemberResult, type MemberRun, type MemberWorkload } from './member-run.js';
import { fleetStacks, memberEndpoint, memberFingerprint, type FleetStacks } from './member-stacks.js';
import { stackNameFor, tokenParameterName } from './names.js';
import { PinnedTls } from './pinned-fetch.js';
import { ResultFiles } from './result-files.js';
import type { FleetState } from './state.js';

export type { MemberResult } from './member-run.js';

export interface RunWorkload extends MemberWorkload {
  /** A shipped suite (default: each member's as planned). */
  suite?: string;
  /** A fio job file's text, run instead of a suite. */
  jobFile?: string;
  /** Gates, as for `volbench run --assert`. */
  assert?: string[];
  /** The suite's runtime in every test (default: the plan's, if it set one). */
  runtime?: string;
  /** Write what the read tests reach first, where the plan says so (default true). */
  precondition?: boolean;
}

export interface FleetRunOptions extends RunWorkload {
  clients: FleetClients;
  /** Where results go: <outDir>/<fleet-id>/<label>.json. */
  outDir: string;
  /** {label: url}: reach members another way than their stack's endpoint. */
  endpointMap?: Record<string, string>;
  signal?: AbortSignal;
  /** A `progress` event per member as its run moves, its `result` once it ends, a `log` per stack left alone. */
  onEvent?: OnFleetEvent;
  /** Reconnections to a member's event stream before its run is given up (default 20). */
  maxReconnects?: number;
  /** {label: host}: each member's instance as EC2 describes it (default: asked of EC2). */
  hosts?: Record<string, MemberHost>;
}

/** Reads an endpoint map file: a JSON object of label → http(s) URL. */
export function readEndpointMap(file: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new VolbenchError('EINVALID_ARGS', `--endpoint-map ${file}: ${(err as Error).message}`, { field: '--endpoint-map', accepted: 'a JSON file {"label": "http://host:port"}' });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new VolbenchError('EINVALID_ARGS', `--endpoint-map ${file} is not a JSON object`, { field: '--endpoint-map', accepted: '{"label": "http://host:port"}' });
  }
  const map = ownTable<string>();
  for (const [label, url] of Object.entries(parsed)) {
    if (typeof url !== 'string' || !/^https?:\/\/[^\s]+$/.test(url)) {
      throw new VolbenchError('EINVALID_ARGS', `--endpoint-map ${file}: ${label} is not an http(s) URL`, { field: `--endpoint-map.${label}`, accepted: 'http://host:port' });
    }
    map[label] = url.replace(/\/+$/, '');
  }
  return map;
}

/** A member's own token: the parameter its name derives, under the fleet's own path. */
async function memberToken(fleetId: string, label: string, clients: FleetClients): Promise<string> {
  const name = tokenParameterName(fleetId, label);
  const out = await awsCall('ssm:GetParameter', () => clients.ssm.send(new GetParameterCommand({ Name: name, WithDecryption: true })));
  const token = out.Parameter?.Value;
  if (!token) throw new VolbenchError('ECLOUD', `the token parameter ${name} is empty`, { field: 'ssm:GetParameter' });
  return token;
}

/** How a member is reached: its URL and the fingerprint it is pinned to (none: in clear, as the user typed it). */
interface Route {
  label: string;
  base?: string;
  pin?: string;
  /** Why it cannot be reached. */
  error?: string;
}

/**
 * Each member's route, decided before anything is sent. Its stack's endpoint, or the user's
 * --endpoint-map entry, over HTTPS pinned to the stack's TlsFingerprint; plain HTTP only for an
 * entry the user typed so. A stack output that is not what volbench made is refused (EFLEET_STATE).
 */
function routes(state: FleetState, stacks: FleetStacks, endpointMap?: Record<string, string>): Route[] {
  return state.members.map(({ label }): Route => {
    const typed = ownValue(endpointMap, label)?.replace(/\/+$/, '');
    if (typed?.startsWith('http:')) return { label, base: typed };
    const stack = stacks.members.get(label);
    if (!stack) return { label, error: `the fleet has no stack ${stackNameFor(state.fleetId, label)} (tagged volbench:fleet=${state.fleetId})` };
    const pin = memberFingerprint(stack);
    const base = typed ?? memberEndpoint(stack);
    if (!base) return { label, error: `stack ${stack.stackName} has no endpoint output (give one with --endpoint-map)` };
    return { label, base, pin };
  });
}

/** One pinned client per fingerprint, closed together. */
class Pins {
  private readonly clients = new Map<string, PinnedTls>();

  fetchFor(pin?: string): Fetch {
    if (!pin) return globalThis.fetch;
    const client = this.clients.get(pin) ?? new PinnedTls(pin);
    this.clients.set(pin, client);
    return (url, init) => client.fetch(url, init as Parameters<PinnedTls['fetch']>[1]);
  }

  close(): void {
    for (const client of this.clients.values()) client.close();
  }
}

/**
 * Runs the workload on every member at once; one member's failure does not stop the others.
 * Members are reached over HTTPS pinned to their stack's certificate, or as --endpoint-map says.
 */
export async function runFleet(state: FleetState, opts: FleetRunOptions): Promise<MemberResult[]> {
  const { fleetId } = state;
  const stacks = await fleetStacks(fleetId, state.members.map((m) => m.label), opts.clients);
  for (const s of stacks.strangers) opts.onEvent?.({ event: 'log', fleetId, line: `[${s.stackName}] left alone: ${s.reason}` });
  const planned = routes(state, stacks, opts.endpointMap);
  const files = ResultFiles.open(opts.outDir, fleetId, true)!;
  const instances = Object.fromEntries([...stacks.members.values()].flatMap((s) => (s.instanceId ? [[s.label, s.instanceId]] : [])));
  const hosts = opts.hosts ?? await memberHosts(instances, opts.clients);
  const pins = new Pins();
  const one = async (r: Route): Promise<MemberResult> => {
    if (!r.base) return { label: r.label, status: 'unreachable', error: r.error };
    const client = new MemberClient(r.base, await memberToken(fleetId, r.label, opts.clients), opts.signal, pins.fetchFor(r.pin));
    const run: MemberRun = {
      state, label: r.label, client, workload: opts, clients: opts.clients, files, host: hosts[r.label], maxReconnects: opts.maxReconnects ?? 20,
      say: (line) => opts.onEvent?.({ event: 'progress', fleetId, label: r.label, line }),
    };
    return runMember(run);
  };
  try {
    return await Promise.all(planned.map(async (r) => {
      const result = await one(r);
      const { result: _doc, ...outcome } = result;
      opts.onEvent?.({ event: 'result', fleetId, ...outcome });
      return result;
    }));
  } finally {
    pins.close();
    files.close();
  }
}
