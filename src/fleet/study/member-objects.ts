/**
 * What an autonomous member wrote under its own prefix, read as untrusted input: each object
 * capped at its size (the contract's STUDY_OBJECT_MAX_BYTES), parsed strictly with the contract's
 * schema, its `label` the member's own, its key built only from the label of the verified state
 * (never from anything a member wrote). A result must be the bytes `done.json` names
 * (`result_sha256`) and parse as fio's JSON (the service's result schema). Whatever fails is
 * refused with EFLEET_STATE naming the member, the object and the field.
 */
import { createHash } from 'node:crypto';
import type { z } from 'zod';

import { fioResultSchema } from '../../api/fio-result.js';
import {
  memberDoneSchema, memberObjectKey, memberProgressSchema, STUDY_OBJECT_MAX_BYTES, type MemberDone, type MemberProgress, type StudyObjectKind,
} from '../../api/study-objects.js';
import type { FioResult } from '../../fio-output/fio-result.js';
import type { FleetClients } from '../aws.js';
import { readCapped, refusedObject, TooLarge } from './bucket-objects.js';

interface Where {
  clients: FleetClients;
  bucket: string;
  fleetId: string;
  label: string;
}

const uri = (w: Where, key: string) => `s3://${w.bucket}/${key}`;

/** The object's bytes, refused naming the member when larger than its cap; undefined when not written yet. */
async function bytesOf(w: Where, name: 'progress' | 'done' | 'result', kind: StudyObjectKind): Promise<Buffer | undefined> {
  const key = memberObjectKey(w.fleetId, w.label, name);
  try {
    return (await readCapped(w.clients, w.bucket, key, STUDY_OBJECT_MAX_BYTES[kind]))?.body;
  } catch (err) {
    if (err instanceof TooLarge) throw refusedObject(w.label, uri(w, key), err.message, `${name}.json`);
    throw err;
  }
}

/** `body` as `schema` takes it, refused naming the member and the first field that is not. */
function parsed<T>(w: Where, name: 'progress' | 'done', body: Buffer, schema: z.ZodType<T>): T {
  const where = uri(w, memberObjectKey(w.fleetId, w.label, name));
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw refusedObject(w.label, where, `not JSON (${(err as Error).message})`, `${name}.json`);
  }
  const out = schema.safeParse(json);
  if (!out.success) {
    const issue = out.error.issues[0];
    const unknown = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
    const path = [...issue.path, ...(unknown ? [unknown] : [])].join('.') || '(the whole object)';
    throw refusedObject(w.label, where, `${path}: ${unknown ? 'no such key' : issue.message}`, `${name}.json.${path}`);
  }
  const label = (out.data as { label?: string }).label;
  if (label !== w.label) throw refusedObject(w.label, where, `label: it names ${JSON.stringify(String(label).slice(0, 80))}, not ${w.label}`, `${name}.json.label`);
  return out.data;
}

/** The member's progress.json, or undefined before it wrote one. */
export async function readProgress(w: Where): Promise<MemberProgress | undefined> {
  const body = await bytesOf(w, 'progress', 'progress');
  return body === undefined ? undefined : parsed(w, 'progress', body, memberProgressSchema);
}

/** The member's done.json, or undefined before it wrote one. */
export async function readDone(w: Where): Promise<MemberDone | undefined> {
  const body = await bytesOf(w, 'done', 'done');
  return body === undefined ? undefined : parsed(w, 'done', body, memberDoneSchema);
}

/**
 * The member's result.json: the bytes done.json vouched for (its SHA-256), parsed as fio's JSON.
 * Undefined when done.json names none; refused when missing, larger than its cap, other bytes,
 * or not a result.
 */
export async function readResult(w: Where, done: MemberDone): Promise<FioResult | undefined> {
  if (done.result_sha256 === undefined) return undefined;
  const where = uri(w, memberObjectKey(w.fleetId, w.label, 'result'));
  const body = await bytesOf(w, 'result', 'result');
  if (body === undefined) throw refusedObject(w.label, where, 'missing, though done.json names its SHA-256', 'result.json');
  const sha = createHash('sha256').update(body).digest('hex');
  if (sha !== done.result_sha256) throw refusedObject(w.label, where, `its SHA-256 is ${sha}, not done.json's ${done.result_sha256}`, 'result.json');
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw refusedObject(w.label, where, `not JSON (${(err as Error).message})`, 'result.json');
  }
  const out = fioResultSchema.safeParse(json);
  if (!out.success) {
    const issue = out.error.issues[0];
    throw refusedObject(w.label, where, `${issue.path.join('.') || '(the whole object)'}: ${issue.message}`, `result.json.${issue.path.join('.')}`);
  }
  // The service's contract, open to keys it does not name: the library's result type is what it checked.
  return out.data as FioResult;
}

/** A line for a person from a progress object. */
export function progressLine(p: MemberProgress): string {
  const test = p.test ? ` ${p.test}${p.test_index && p.tests_total ? ` (${p.test_index}/${p.tests_total})` : ''}` : '';
  const loop = p.loop && p.loops ? `, loop ${p.loop}/${p.loops}` : '';
  const pct = p.percent !== undefined ? `, ${p.percent.toFixed(0)}%` : '';
  const eta = p.eta_s !== undefined ? `, ${Math.ceil(p.eta_s / 60)} min left` : '';
  const rate = p.iops !== undefined ? `, ${Math.round(p.iops).toLocaleString('en-US')} IOPS` : '';
  const p99 = p.clat_p99_us !== undefined ? `, p99 ${p.clat_p99_us.toFixed(0)} µs` : '';
  return `${p.step}${test}${loop}${pct}${eta}${rate}${p99}`;
}
