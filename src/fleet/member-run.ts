/**
 * One member's run: the workload (its suite, or a job file) submitted to its service with its
 * volume and instance (the service holds every job to its entitlement), followed to its end,
 * and fio's JSON collected: held against the catalog's model of the volume (burst analysis),
 * given what the fleet knows of the volume and host, and saved beneath --out and in S3.
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';

import { fioResultSchema } from '../api/fio-result.js';
import { progressSchema, runAcceptedSchema, runSummarySchema, suiteTestSchema, type RunProgressBody } from '../api/run.js';
import type { RunVolume, SpecRunRequest, SuiteRunRequest } from '../api/run-request.js';
import { targetListSchema } from '../api/target.js';
import { analyseBurst } from '../findings/burst.js';
import type { FioResult } from '../fio-output/fio-result.js';
import { parseJobFile } from '../jobspec/index.js';
import { awsCall, type FleetClients } from './aws.js';
import type { MemberOutcome } from './events.js';
import { MemberClient, reachable, type FinalEvent } from './member-client.js';
import { withFleetFacts, type MemberHost } from './member-cloud.js';
import { resultKey } from './names.js';
import type { FleetMember } from './plan.js';
import { preconditionJob } from './precondition.js';
import type { ResultFiles } from './result-files.js';
import { putEncryption } from './sse.js';
import type { FleetState } from './state.js';

/** A member's outcome with its fio JSON, as the fleet collected it. */
export interface MemberResult extends MemberOutcome {
  result?: FioResult;
}

/** What a member runs: the fleet's run options that reach one member. */
export interface MemberWorkload {
  suite?: string;
  jobFile?: string;
  assert?: string[];
  runtime?: string;
  precondition?: boolean;
}

export interface MemberRun {
  state: FleetState;
  label: string;
  client: MemberClient;
  workload: MemberWorkload;
  clients: FleetClients;
  files: ResultFiles;
  host?: MemberHost;
  maxReconnects: number;
  /** A line for a person as the run moves. */
  say: (line: string) => void;
}

interface Root {
  root: string;
  kind: 'directory' | 'block_device';
}

/** The service's first target root: where the workload goes. */
async function targetRoot(run: MemberRun): Promise<Root> {
  const { targets } = await reachable(() => run.client.call('GET /v1/targets', '/v1/targets', targetListSchema), run.client.signal);
  if (!targets[0]) throw new Error('the service has no target root');
  return targets[0];
}

/** Submits a run; its id. */
async function submit(client: MemberClient, what: string, path: string, body: SpecRunRequest | SuiteRunRequest): Promise<string> {
  return (await client.call(what, path, runAcceptedSchema, { body, ok: [200, 202] })).id;
}

/** Rates of a progress event, one direction after the other. */
function headline(p: RunProgressBody): string {
  const parts = (['read', 'write'] as const).filter((dir) => p[dir].iops)
    .map((dir) => `${dir} ${Math.round(p[dir].iops).toLocaleString('en-US')} IOPS ${(p[dir].bw_bytes / 1048576).toFixed(1)} MiB/s`);
  const test = p.suite_test ? `test ${p.suite_test.test} of ${p.suite_test.tests}: ` : '';
  return `${test}${parts.join(', ') || 'running'}`;
}

/** A run's event as a line; an event the contract does not describe is named by its type. */
function eventLine(type: string, data: unknown): string {
  if (type === 'progress') {
    const p = progressSchema.safeParse(data);
    return p.success ? headline(p.data) : 'running';
  }
  if (type === 'test') {
    const t = suiteTestSchema.safeParse(data);
    return t.success ? `test ${t.data.test} of ${t.data.tests}` : type;
  }
  return type;
}

/** Writes the device's first `bytes` once, before a suite that reads; refused or failed, the member fails. */
async function precondition(run: MemberRun, device: string, bytes: number, volume: { volume?: RunVolume }): Promise<void> {
  run.say(`precondition: writing ${(bytes / 2 ** 30).toFixed(1)} GiB of ${device}`);
  const started = Date.now();
  const id = await submit(run.client, 'precondition: POST /v1/runs', '/v1/runs', { ...preconditionJob(device, bytes), ...volume });
  const final = await run.client.follow(id, () => {}, run.maxReconnects);
  if (final !== 'finished') throw new Error(`precondition: the write ${final}`);
  run.say(`precondition: done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

/** The workload's run, submitted: a job file as a JSON spec (so the volume goes with it), else the suite. */
function submitWorkload(run: MemberRun, root: Root, planned: FleetMember | undefined, volume: { volume?: RunVolume }): Promise<string> {
  const { workload: w, state } = run;
  const assert = w.assert?.length ? { assert: w.assert } : {};
  if (w.jobFile) {
    const qs = new URLSearchParams([['target', root.root]]);
    return submit(run.client, 'POST /v1/runs', `/v1/runs?${qs}`, { ...parseJobFile(w.jobFile, {}), ...assert, ...volume });
  }
  const runtime = w.runtime ?? state.plan.runtime;
  return submit(run.client, 'POST /v1/runs', '/v1/runs', {
    suite: w.suite ?? planned?.suite ?? state.plan.suite,
    ...volume,
    ...(runtime !== undefined ? { runtime } : {}),
    ...(root.kind === 'block_device' ? { filename: root.root } : { directory: root.root }),
    ...assert,
  });
}

/** The run's gate and result, saved; a run that ended without a result says so. */
async function collect(run: MemberRun, runId: string, final: FinalEvent): Promise<MemberResult> {
  const { label, client, state } = run;
  const id = encodeURIComponent(runId);
  const { gate } = await client.call(`GET /v1/runs/${runId}`, `/v1/runs/${id}`, runSummarySchema);
  const outcome = { label, status: final, ...(gate ? { gate } : {}) };
  let result: FioResult;
  try {
    // The service's contract, open to keys it does not name: the library's result type is what it checked.
    result = await client.call(`GET /v1/runs/${runId}/result`, `/v1/runs/${id}/result`, fioResultSchema) as FioResult;
  } catch (err) {
    if (client.signal?.aborted) throw err;
    return { ...outcome, error: `no result: ${(err as Error).message}` };
  }
  // The member's volume is known here: its burst analysis is held against the catalog's model.
  const doc = analyseBurst(withFleetFacts(result, state, label, run.host));
  const text = `${JSON.stringify(doc, null, 2)}\n`;
  const file = run.files.write(label, text);
  if (state.bucket) {
    const sse = await putEncryption(run.clients, state.bucket);
    await awsCall('s3:PutObject', () => run.clients.s3.send(new PutObjectCommand({
      Bucket: state.bucket, Key: resultKey(state.fleetId, label), Body: text, ContentType: 'application/json', ...sse,
    })));
  }
  return { ...outcome, file, result: doc };
}

/** Runs the workload on one member; never throws: what went wrong is the outcome's `error`. */
export async function runMember(run: MemberRun): Promise<MemberResult> {
  const { state, label, workload: w, client } = run;
  let runId: string | undefined;
  try {
    const root = await targetRoot(run);
    const planned = state.plan.members.find((m) => m.label === label);
    const volume = planned?.cloudVolume ? { volume: { ...planned.cloudVolume, instance: state.plan.instanceType } } : {};
    if (!w.jobFile && w.suite === undefined && w.precondition !== false && planned?.precondition && root.kind === 'block_device') {
      await precondition(run, root.root, planned.precondition.bytes, volume);
    }
    runId = await submitWorkload(run, root, planned, volume);
    run.say(`run ${runId} queued`);
    const final = await client.follow(runId, (type, data) => run.say(eventLine(type, data)), run.maxReconnects);
    return await collect(run, runId, final);
  } catch (err) {
    if (client.signal?.aborted) {
      // Best effort: the stack is about to go anyway. A member interrupted before it ran was cancelled too.
      if (runId) await client.cancel(runId);
      return { label, status: 'cancelled', error: 'cancelled' };
    }
    return { label, status: 'unreachable', error: (err as Error).message };
  }
}
