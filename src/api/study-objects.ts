/**
 * The objects a study keeps in its bucket beside the fleet's state: the spec the controller
 * writes for autonomous members, what each member writes under its own prefix, and the lease that
 * keeps two drivers off one study. This file is the contract between the controller
 * (src/fleet's study) and the member agent that runs on each instance; both parse with it.
 *
 * Every object a member writes is untrusted input (a member's role may write its own prefix, and
 * anything there may have been written by whoever holds that role): read it capped at its size
 * in STUDY_OBJECT_MAX_BYTES, parse it strictly, and build no path from it. Paths come only from
 * the labels of the verified fleet state.
 *
 * Layout in the fleet's bucket (FLEET = the fleet id, LABEL = a member's label):
 *   FLEET/fleet.json             the fleet state (src/fleet/state-schema.ts)
 *   FLEET/study/spec.json        studySpecSchema, written once by the controller; its SHA-256 is
 *                                the member stack's StudySpecSha256 parameter
 *   FLEET/study/lease.json       studyLeaseSchema, written with conditional writes
 *   FLEET/LABEL/progress.json    memberProgressSchema, replaced every few seconds by the member
 *   FLEET/LABEL/result.json      the member's fio JSON (the result schema in ./fio-result.ts)
 *   FLEET/LABEL/done.json        memberDoneSchema, written last, once
 *   FLEET/LABEL/member.log       the member's log, text, for a reader (never parsed)
 */
import { z } from 'zod';

import { VolbenchError } from '../errors.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/** The most a reader takes of each object before refusing it. */
export const STUDY_OBJECT_MAX_BYTES = {
  spec: 256 * KiB,
  lease: 4 * KiB,
  progress: 16 * KiB,
  done: 16 * KiB,
  result: 64 * MiB,
  log: 1 * MiB,
} as const;

export type StudyObjectKind = keyof typeof STUDY_OBJECT_MAX_BYTES;

/** The study's own objects: FLEET/study/NAME. */
export function studyObjectKey(fleetId: string, name: 'spec' | 'lease'): string {
  return `${fleetId}/study/${name}.json`;
}

/**
 * Folders of FLEET/ that are not a member's: a member labelled so would write beside the study's
 * spec and lease, the results the controller keeps, the bundle or the certificates. volbench's
 * labels start with a volume type and never are one; the template refuses them too.
 */
export const RESERVED_LABELS: readonly string[] = ['study', 'results', 'bundle', 'tls'];

const MEMBER_LABEL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** The label, checked to name a member's own folder (the template's VolumeLabel, not a reserved one). */
function memberFolder(label: string): string {
  if (!MEMBER_LABEL.test(label) || RESERVED_LABELS.includes(label)) {
    throw new VolbenchError('EFLEET_STATE', `'${label.slice(0, 80)}' is not a member label: no member's objects are named for it`, {
      field: 'label', accepted: `letters, digits, . _ - (not first), up to 63, and not ${RESERVED_LABELS.join(', ')}`,
    });
  }
  return label;
}

/** A member's objects: FLEET/LABEL/NAME. The label must come from the verified state. */
export function memberObjectKey(fleetId: string, label: string, name: 'progress' | 'result' | 'done' | 'log'): string {
  return `${fleetId}/${memberFolder(label)}/${name === 'log' ? 'member.log' : `${name}.json`}`;
}

/** A member's prefix: what its instance role may write, and nothing else. */
export function memberPrefix(fleetId: string, label: string): string {
  return `${fleetId}/${memberFolder(label)}/`;
}

const iso = z.string().max(40).refine((s) => Number.isFinite(Date.parse(s)), 'an ISO-8601 time');
const label = z.string().regex(MEMBER_LABEL, "the template's VolumeLabel").refine((l) => !RESERVED_LABELS.includes(l), `not ${RESERVED_LABELS.join(', ')}`);
const reason = z.string().max(2000);

/** What one member runs: the plan's workload for it, spelled out so the member needs nothing else. */
export const studyMemberSpecSchema = z.object({
  label,
  /** A shipped suite, or absent when `job` is given. */
  suite: z.string().max(64).optional(),
  /** A fio job file's text, run instead of a suite. */
  job: z.string().max(128 * KiB).optional(),
  /** The suites' runtime override in every test (fio's units), as planned. */
  runtime: z.string().max(32).optional(),
  /** Bytes to write from the device's start before a suite that reads; absent: no preconditioning. */
  precondition_bytes: z.number().int().nonnegative().optional(),
  /** Gates, as for `volbench run --assert`. */
  assert: z.array(z.string().max(512)).max(64).optional(),
  /** The volume as `--volume` takes it (the member's results carry it). */
  volume: z.string().max(200),
}).strict();

export const studySpecSchema = z.object({
  schema_version: z.literal(1),
  fleet_id: z.string().regex(/^vb[0-9a-f]{10}$/),
  region: z.string().max(32),
  instance_type: z.string().max(64),
  created_at: iso,
  members: z.array(studyMemberSpecSchema).min(1).max(64),
}).strict();

export const MEMBER_STEPS = ['booting', 'fetching', 'preconditioning', 'running', 'uploading', 'done', 'failed'] as const;

export const memberProgressSchema = z.object({
  label,
  at: iso,
  step: z.enum(MEMBER_STEPS),
  /** The test running now (a suite's test name, or a job's name). */
  test: z.string().max(200).optional(),
  /** 1-based index of that test, and how many the workload has. */
  test_index: z.number().int().positive().optional(),
  tests_total: z.number().int().positive().optional(),
  loop: z.number().int().positive().optional(),
  loops: z.number().int().positive().optional(),
  /** The whole workload's share done, 0..100, and the seconds it expects are left. */
  percent: z.number().min(0).max(100).optional(),
  eta_s: z.number().nonnegative().optional(),
  iops: z.number().nonnegative().optional(),
  clat_p99_us: z.number().nonnegative().optional(),
}).strict();

export const memberDoneSchema = z.object({
  label,
  status: z.enum(['ok', 'failed']),
  finished_at: iso,
  /** Why it failed, for a reader; absent when ok. */
  reason: reason.optional(),
  /** The SHA-256 of result.json as the member wrote it (absent when there is none). */
  result_sha256: z.string().regex(/^[0-9a-f]{64}$/).optional(),
  /** The local CLI's exit status (0, 1 for an I/O error, 3 for a failed gate, ...). */
  exit_code: z.number().int().optional(),
}).strict();

export const studyLeaseSchema = z.object({
  /** Who drives the study: host, pid and a process's random id, for the refusal's message. */
  holder: z.string().max(200),
  /** Random per holder: a driver renews and releases only its own lease. */
  token: z.string().regex(/^[0-9a-f-]{16,64}$/),
  acquired_at: iso,
  expires_at: iso,
}).strict();

export type StudyMemberSpec = z.infer<typeof studyMemberSpecSchema>;
export type StudySpec = z.infer<typeof studySpecSchema>;
export type MemberStep = (typeof MEMBER_STEPS)[number];
export type MemberProgress = z.infer<typeof memberProgressSchema>;
export type MemberDone = z.infer<typeof memberDoneSchema>;
export type StudyLease = z.infer<typeof studyLeaseSchema>;
