/**
 * Running the workload on every member of a fleet over HTTP: the suite (or a job file) submitted
 * to each `volbench serve`, its events followed (a dropped stream is resumed with Last-Event-ID),
 * and fio's JSON saved per volume, locally (result-files.ts) and in S3. Where a member answers
 * and the certificate it is pinned to are what its stack says (member-stacks.ts), its token the
 * one its name derives (names.ts): a state file decides none of them.
 */
import { readFileSync } from 'node:fs';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { GetParameterCommand } from '@aws-sdk/client-ssm';

import { analyseBurst } from '../findings/burst.js';
import { VolbenchError } from '../errors.js';
import { parseJobFile } from '../jobspec/index.js';
import type { FioJson } from '../fio-output/fio-result.js';
import { awsCall, type FleetClients } from './aws.js';
import { preconditionJob } from './precondition.js';
import { hostFacts, memberCloud, memberHosts, type MemberHost } from './member-cloud.js';
import { fleetStacks, memberEndpoint, memberFingerprint, type FleetStacks } from './member-stacks.js';
import { stackNameFor, tokenParameterName } from './names.js';
import { PinnedTls } from './pinned-fetch.js';
import { ResultFiles } from './result-files.js';
import type { FleetState } from './state.js';
import { ownTable, ownValue } from '../own-key.js';

export interface RunWorkload {
  /** A shipped suite (default: the plan's). */
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
  /** One line per member as its run moves. */
  onProgress?: (label: string, line: string) => void;
  /** Reconnections to a member's event stream before its run is given up (default 20). */
  maxReconnects?: number;
  /** {label: host}: each member's instance as EC2 describes it (default: asked of EC2). */
  hosts?: Record<string, MemberHost>;
}

export interface MemberResult {
  label: string;
  status: 'finished' | 'failed' | 'cancelled' | 'unreachable';
  gate?: string;
  file?: string;
  error?: string;
  result?: Record<string, unknown>;
}

const MAX_RESULT = 256 << 20;

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

type Fetch = (url: string, init?: RequestInit) => Promise<Response>;

class Member {
  constructor(readonly base: string, readonly token: string, readonly signal?: AbortSignal, readonly fetch: Fetch = globalThis.fetch) {}

  async json(path: string, init: RequestInit = {}): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await this.fetch(`${this.base}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${this.token}`, accept: 'application/json', ...(init.headers ?? {}) },
      signal: this.signal,
    });
    const text = await res.text();
    if (text.length > MAX_RESULT) throw new Error(`${path}: answer larger than ${MAX_RESULT} bytes`);
    let body: Record<string, unknown> = {};
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      throw new Error(`${path}: HTTP ${res.status}, not JSON: ${text.slice(0, 200)}`);
    }
    return { status: res.status, body };
  }

  /**
   * Follows the run's events until its final one; a dropped stream is opened again after the
   * last event seen. Returns the final event's type.
   */
  async follow(runId: string, onEvent: (type: string, data: Record<string, unknown>) => void, maxReconnects: number): Promise<string> {
    let last: string | undefined;
    let failures = 0;
    for (;;) {
      try {
        const res = await this.fetch(`${this.base}/v1/runs/${encodeURIComponent(runId)}/events`, {
          headers: { authorization: `Bearer ${this.token}`, accept: 'text/event-stream', ...(last ? { 'last-event-id': last } : {}) },
          signal: this.signal,
        });
        if (res.status !== 200 || !res.body) throw new Error(`events: HTTP ${res.status}`);
        const decoder = new TextDecoder();
        let buffer = '';
        for await (const chunk of res.body) {
          buffer += decoder.decode(chunk as Uint8Array, { stream: true });
          if (buffer.length > 1 << 20) throw new Error('events: an event larger than 1 MiB');
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            let id: string | undefined;
            let type = 'message';
            let data = '';
            for (const line of block.split('\n')) {
              if (line.startsWith('id: ')) id = line.slice(4);
              else if (line.startsWith('event: ')) type = line.slice(7);
              else if (line.startsWith('data: ')) data += line.slice(6);
            }
            if (id !== undefined) last = id;
            if (!data) continue;
            failures = 0;
            let parsed: Record<string, unknown> = {};
            try {
              parsed = JSON.parse(data) as Record<string, unknown>;
            } catch {
              // Not ours to interpret.
            }
            onEvent(type, parsed);
            if (type === 'finished' || type === 'failed' || type === 'cancelled') return type;
          }
        }
        throw new Error('events: the stream ended before the run did');
      } catch (err) {
        if (this.signal?.aborted) throw err;
        if (++failures > maxReconnects) throw err;
        await new Promise((r) => setTimeout(r, Math.min(500 * 2 ** (failures - 1), 10_000)));
      }
    }
  }
}

/** Retries a request that could not connect, for up to a minute. */
async function reachable<T>(call: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (let delay = 200; ; delay = Math.min(delay * 2, 5000)) {
    try {
      return await call();
    } catch (err) {
      // fetch puts the socket's code in its cause; the pinned client rejects with the socket's error.
      const code = (err as { code?: string; cause?: { code?: string } }).cause?.code ?? (err as { code?: string }).code;
      if (signal?.aborted || Date.now() > deadline || !['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT'].includes(code ?? '')) throw err;
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

function headline(data: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const dir of ['read', 'write']) {
    const d = data[dir] as { iops?: number; bw_bytes?: number } | undefined;
    if (d?.iops) parts.push(`${dir} ${Math.round(d.iops).toLocaleString('en-US')} IOPS ${((d.bw_bytes ?? 0) / 1048576).toFixed(1)} MiB/s`);
  }
  const test = data.test ? `${String(data.test)}: ` : '';
  return `${test}${parts.join(', ') || 'running'}`;
}

/** Writes the device's first `bytes` once, before a suite that reads; refused or failed, the member fails. */
async function precondition(member: Member, device: string, bytes: number, volume: object, say: (line: string) => void, maxReconnects: number): Promise<void> {
  say(`precondition: writing ${(bytes / 2 ** 30).toFixed(1)} GiB of ${device}`);
  const started = Date.now();
  const submitted = await member.json('/v1/runs', { method: 'POST', body: JSON.stringify({ ...preconditionJob(device, bytes), ...volume }), headers: { 'content-type': 'application/json' } });
  if (submitted.status !== 202 && submitted.status !== 200) {
    throw new Error(`precondition: POST /v1/runs: HTTP ${submitted.status}: ${String(submitted.body.detail ?? submitted.body.title ?? '')}`);
  }
  const final = await member.follow(String(submitted.body.id), () => {}, maxReconnects);
  if (final !== 'finished') throw new Error(`precondition: the write ${final}`);
  say(`precondition: done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

async function runMember(state: FleetState, label: string, base: string, token: string, opts: FleetRunOptions & { files: ResultFiles }, fetch: Fetch = globalThis.fetch): Promise<MemberResult> {
  const say = (line: string) => opts.onProgress?.(label, line);
  const member = new Member(base, token, opts.signal, fetch);
  let runId: string | undefined;
  try {
    // A service that has just started (or restarted under systemd) may not listen yet.
    const targets = await reachable(() => member.json('/v1/targets'), opts.signal);
    if (targets.status !== 200) throw new Error(`GET /v1/targets: HTTP ${targets.status}`);
    const root = (targets.body.targets as Array<{ root: string; kind: string }> | undefined)?.[0];
    if (!root) throw new Error('the service has no target root');
    const planned = state.plan.members.find((m) => m.label === label);
    const volume = planned?.cloudVolume ? { volume: { ...planned.cloudVolume, instance: state.plan.instanceType } } : {};
    const runtime = opts.runtime ?? state.plan.runtime;
    if (!opts.jobFile && opts.suite === undefined && opts.precondition !== false && planned?.precondition && root.kind === 'block_device') {
      await precondition(member, root.root, planned.precondition.bytes, volume, say, opts.maxReconnects ?? 20);
    }
    let submitted;
    if (opts.jobFile) {
      // As a JSON spec, so the volume goes with it: every job is held to its entitlement.
      const qs = new URLSearchParams([['target', root.root]]);
      const body = { ...parseJobFile(opts.jobFile, {}), ...(opts.assert?.length ? { assert: opts.assert } : {}), ...volume };
      submitted = await member.json(`/v1/runs?${qs}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    } else {
      const body = {
        suite: opts.suite ?? planned?.suite ?? state.plan.suite,
        // The member's volume and instance: the service holds every job to its entitlement.
        ...volume,
        ...(runtime !== undefined ? { runtime } : {}),
        ...(root.kind === 'block_device' ? { filename: root.root } : { directory: root.root }),
        ...(opts.assert?.length ? { assert: opts.assert } : {}),
      };
      submitted = await member.json('/v1/runs', { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    }
    if (submitted.status !== 202 && submitted.status !== 200) {
      throw new Error(`POST /v1/runs: HTTP ${submitted.status}: ${String(submitted.body.detail ?? submitted.body.title ?? '')}`);
    }
    runId = String(submitted.body.id);
    say(`run ${runId} queued`);
    const final = await member.follow(runId, (type, data) => {
      if (type === 'progress') say(headline(data));
      else if (type === 'test') say(`test ${String(data.test)}${data.tests ? ` of ${String(data.tests)}` : ''}`);
      else say(type);
    }, opts.maxReconnects ?? 20);
    const run = await member.json(`/v1/runs/${encodeURIComponent(runId)}`);
    const result = await member.json(`/v1/runs/${encodeURIComponent(runId)}/result`);
    const gate = typeof run.body.gate === 'string' ? run.body.gate : undefined;
    if (result.status !== 200) return { label, status: final as MemberResult['status'], gate, error: `no result: HTTP ${result.status}` };
    // The member's volume is known here: its burst analysis is held against the catalog's model.
    const doc = analyseBurst(withCloud(result.body, state, label, opts.hosts?.[label]) as unknown as FioJson) as unknown as Record<string, unknown>;
    const text = `${JSON.stringify(doc, null, 2)}\n`;
    const file = opts.files.write(label, text);
    if (state.bucket) {
      await awsCall('s3:PutObject', () => opts.clients.s3.send(new PutObjectCommand({
        Bucket: state.bucket, Key: `${state.fleetId}/results/${label}.json`, Body: text, ContentType: 'application/json',
      })));
    }
    say(`${final}${gate ? `, gate ${gate}` : ''}: ${file}`);
    return { label, status: final as MemberResult['status'], gate, file, result: doc };
  } catch (err) {
    if (opts.signal?.aborted && runId) {
      // Best effort: the stack is about to go anyway.
      await fetch(`${base}/v1/runs/${encodeURIComponent(runId)}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } }).catch(() => {});
      return { label, status: 'cancelled', error: 'cancelled' };
    }
    say(`failed: ${(err as Error).message}`);
    return { label, status: 'unreachable', error: (err as Error).message };
  }
}

/** fio's JSON with what the fleet knows of the volume and host, where the service did not say already. */
function withCloud(doc: Record<string, unknown>, state: FleetState, label: string, host?: MemberHost): Record<string, unknown> {
  const vb = { ...((doc.volbench as Record<string, unknown> | undefined) ?? {}) };
  vb.cloud = { ...memberCloud(state, label, (vb.cloud as Record<string, unknown> | undefined) ?? {}), ...hostFacts(host, vb.cloud) };
  return { ...doc, volbench: vb };
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

/**
 * Runs the workload on every member at once; one member's failure does not stop the others.
 * Members are reached over HTTPS pinned to their stack's certificate, or as --endpoint-map says.
 */
export async function runFleet(state: FleetState, opts: FleetRunOptions): Promise<MemberResult[]> {
  const stacks = await fleetStacks(state.fleetId, state.members.map((m) => m.label), opts.clients);
  for (const s of stacks.strangers) opts.onProgress?.(s.stackName, `left alone: ${s.reason}`);
  const planned = routes(state, stacks, opts.endpointMap);
  const files = ResultFiles.open(opts.outDir, state.fleetId, true)!;
  const instances = Object.fromEntries([...stacks.members.values()].flatMap((s) => (s.instanceId ? [[s.label, s.instanceId]] : [])));
  const run = { ...opts, files, hosts: opts.hosts ?? await memberHosts(instances, opts.clients) };
  const pins = new Map<string, PinnedTls>();
  const fetchFor = (pin?: string): Fetch => {
    if (!pin) return globalThis.fetch;
    const client = pins.get(pin) ?? new PinnedTls(pin);
    pins.set(pin, client);
    return (url, init) => client.fetch(url, init as Parameters<PinnedTls['fetch']>[1]);
  };
  try {
    return await Promise.all(planned.map(async (r) => {
      if (!r.base) {
        opts.onProgress?.(r.label, `unreachable: ${r.error}`);
        return { label: r.label, status: 'unreachable', error: r.error } satisfies MemberResult;
      }
      const token = await memberToken(state.fleetId, r.label, opts.clients);
      return runMember(state, r.label, r.base, token, run, fetchFor(r.pin));
    }));
  } finally {
    for (const client of pins.values()) client.close();
    files.close();
  }
}
