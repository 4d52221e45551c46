/**
 * `collecting` and `reporting`. Each member's result (the bytes its done.json vouches for,
 * parsed as fio's JSON) is given what the fleet knows of its volume and host, held against the
 * catalog's model (burst analysis), and saved as the controller's copy beside the state
 * (`FLEET/results/LABEL.json`, the one a later driver reads) and beneath --out where the driver
 * has one; then the report of them all, every member in it, done or not.
 */
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';

import { fioResultSchema } from '../../api/fio-result.js';
import type { FioResult } from '../../fio-output/fio-result.js';
import { analyseBurst } from '../../findings/burst.js';
import type { Report } from '../../publish/index.js';
import { awsCall } from '../aws.js';
import type { MemberOutcome } from '../events.js';
import { memberHosts, withFleetFacts, type MemberHost } from '../member-cloud.js';
import type { MemberResult } from '../member-run.js';
import { fleetStacks } from '../member-stacks.js';
import { resultKey } from '../names.js';
import { fleetReport } from '../report.js';
import { MAX_RESULT_BYTES, resultName, ResultFiles } from '../result-files.js';
import { putEncryption } from '../sse.js';
import type { FleetMemberState, FleetState } from '../state.js';
import { nowOf, seenOf, type StudyContext } from './context.js';
import { readCapped } from './bucket-objects.js';
import { readResult } from './member-objects.js';
import { sha256Hex } from './spec.js';
import { moveTo, studyOf } from './steps.js';

/** The gate of a result's assertions (`volbench.assertions`), where it has any. */
function gateOf(doc: FioResult): 'passed' | 'failed' | undefined {
  const outcomes = (doc.volbench as { assertions?: Array<{ passed?: boolean }> } | undefined)?.assertions;
  if (!outcomes?.length) return undefined;
  return outcomes.every((o) => o.passed) ? 'passed' : 'failed';
}

/** Each member's instance as its stack names it (not the state): the hosts a result is described with. */
async function hostsOf(state: FleetState, ctx: StudyContext): Promise<Record<string, MemberHost>> {
  try {
    const stacks = await fleetStacks(state.fleetId, state.members.map((m) => m.label), ctx.clients);
    return await memberHosts(Object.fromEntries([...stacks.members.values()].flatMap((s) => (s.instanceId ? [[s.label, s.instanceId]] : []))), ctx.clients);
  } catch {
    return {};
  }
}

/** Saves `text` as the member's result beneath --out (once per driver); its path, or none without --out. */
function saveLocal(state: FleetState, label: string, text: string, ctx: StudyContext): string | undefined {
  if (!ctx.outDir) return undefined;
  const files = ResultFiles.open(ctx.outDir, state.fleetId, true)!;
  try {
    const file = files.write(label, text);
    seenOf(ctx).saved.add(label);
    return file;
  } finally {
    files.close();
  }
}

async function collectOne(state: FleetState, m: FleetMemberState, hosts: Record<string, MemberHost>, ctx: StudyContext): Promise<void> {
  const { fleetId } = state;
  const bucket = state.bucket!;
  let result: FioResult | undefined;
  try {
    result = await readResult({ clients: ctx.clients, bucket, fleetId, label: m.label }, m.done!);
  } catch (err) {
    m.error = (err as Error).message;
    ctx.onEvent?.({ event: 'member-failed', fleetId, label: m.label, reason: m.error });
    return;
  }
  if (!result) {
    m.error = m.done!.reason ?? `done.json says ${m.done!.status} and names no result`;
    return;
  }
  const doc = analyseBurst(withFleetFacts(result, state, m.label, hosts[m.label]));
  const text = `${JSON.stringify(doc, null, 2)}\n`;
  const key = resultKey(fleetId, m.label);
  const sse = await putEncryption(ctx.clients, bucket);
  await awsCall('s3:PutObject', () => ctx.clients.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: text, ContentType: 'application/json', ...sse })));
  const gate = gateOf(doc);
  m.collected = { key, sha256: sha256Hex(text), ...(gate ? { gate } : {}) };
  const file = saveLocal(state, m.label, text, ctx);
  ctx.onEvent?.({ event: 'collected', fleetId, label: m.label, key: `s3://${bucket}/${key}`, ...(file ? { file } : {}) });
}

/** collecting: every done member's result fetched, checked and saved; then reporting. */
export async function collectingStep(state: FleetState, ctx: StudyContext): Promise<void> {
  const due = state.members.filter((m) => m.done && !m.collected && m.error === undefined);
  const hosts = due.length ? await hostsOf(state, ctx) : {};
  for (const m of due) await collectOne(state, m, hosts, ctx);
  moveTo(state, 'reporting', ctx.onEvent, undefined, nowOf(ctx));
}

/** How a member of a study ended, as a fleet's run says it. */
export function outcomeOf(m: FleetMemberState, file?: string): MemberOutcome {
  if (m.collected) return { label: m.label, status: 'finished', ...(m.collected.gate ? { gate: m.collected.gate } : {}), ...(file ? { file } : {}) };
  if (m.status === 'failed') return { label: m.label, status: 'failed', error: m.reason ?? 'its stack failed' };
  if (m.error === 'cancelled') return { label: m.label, status: 'cancelled', error: 'cancelled' };
  if (m.error !== undefined) return { label: m.label, status: 'failed', error: m.error };
  if (m.done) return { label: m.label, status: 'failed', error: m.done.reason ?? `done: ${m.done.status}` };
  return { label: m.label, status: 'unreachable', error: 'not run' };
}

/**
 * The collected results as the controller saved them (read back capped, parsed, and the bytes
 * the state names), saved beneath --out where this driver has not yet; one per member.
 */
export async function collectedResults(state: FleetState, ctx: StudyContext): Promise<MemberResult[]> {
  return Promise.all(state.members.map(async (m): Promise<MemberResult> => {
    if (!m.collected) return outcomeOf(m);
    const got = await readCapped(ctx.clients, state.bucket!, resultKey(state.fleetId, m.label), MAX_RESULT_BYTES).catch(() => undefined);
    const text = got?.body.toString('utf8');
    const parsed = text !== undefined && sha256Hex(text) === m.collected.sha256 ? fioResultSchema.safeParse(JSON.parse(text)) : undefined;
    if (!parsed?.success) return { label: m.label, status: 'failed', error: `s3://${state.bucket}/${resultKey(state.fleetId, m.label)} is not the result collected` };
    const file = seenOf(ctx).saved.has(m.label) || !ctx.outDir ? undefined : saveLocal(state, m.label, text!, ctx);
    return { ...outcomeOf(m, file ?? (ctx.outDir ? join(ctx.outDir, state.fleetId, resultName(m.label)) : undefined)), result: parsed.data as FioResult };
  }));
}

/** reporting: each member's outcome (`result`), the report; then the teardown, or done with `keep`. */
export async function reportingStep(state: FleetState, ctx: StudyContext): Promise<Report> {
  const results = await collectedResults(state, ctx);
  for (const { result: _doc, ...outcome } of results) ctx.onEvent?.({ event: 'result', fleetId: state.fleetId, ...outcome });
  const report = fleetReport(state, results);
  ctx.onEvent?.({ event: 'report', fleetId: state.fleetId, report });
  if (studyOf(state).keep) {
    moveTo(state, 'done', ctx.onEvent, undefined, nowOf(ctx));
    ctx.onEvent?.({ event: 'kept', fleetId: state.fleetId, expiresAt: state.expiresAt });
  } else {
    moveTo(state, 'tearing-down', ctx.onEvent, undefined, nowOf(ctx));
  }
  return report;
}
