/**
 * study.json from a rehearsal's results: per volume, each test's measured rate against what the
 * catalog's model entitles it to (scaled by the rehearsal's rate factor, as the emulation is),
 * which limit binds, and whether the kernel's throttle expresses that limit exactly (`gated`).
 * Pure: results and the scale in, the study out.
 */
import type { Entitlement } from '../../../src/cloud/index.js';
import type { FioJob, FioJson, VolbenchEntitlement } from '../../../src/fio-output/fio-result.js';
import type { Reaped } from '../../../src/fleet/index.js';
import type { Scale } from '../throttle-model.js';
import type { HostLoad } from './host-load.js';
import type { ThrottleState } from '../volume-throttle.js';

/** One test of a volume: its measured rate against the scaled model's. */
export interface StudyTest {
  test: string;
  rw: string;
  bs: number;
  measured: number;
  entitled: number;
  unit: 'MiB/s' | 'IOPS';
  ratio: number | null;
  bound_by: string;
  gated: boolean;
  why: string;
  /** Where the service's own label differs from the model's. */
  service_bound_by?: string;
}
export interface StudyVolume {
  label: string;
  type: string;
  suite: string;
  tests: StudyTest[];
  error?: string;
  boot?: Record<string, unknown>;
  throttle?: Pick<ThrottleState, 'events' | 'totals'>;
  host?: Record<string, unknown>;
  /** Its security group's inbound rules in moto (an autonomous member's: 0). */
  inbound_rules?: number;
  /** How its member ended: shut itself down (an autonomous member, once done), or stopped by the rehearsal. */
  ended?: { shutdown: boolean; seconds: number };
}
/** `fleet up` killed once its stack existed, then `fleet reap` past its expiry: what reap found by tag. */
export interface ReapDemo {
  killed_fleet: string | undefined;
  up_exit: number | string | null;
  /** The clock reap was given. */
  now: string;
  exit: number | null;
  found: Reaped | { error: string };
  /** The killed fleet's expiry schedules, fired as AWS would at its expiry (moto never fires one). */
  fired_schedules?: Array<{ schedule: string; target: string; input?: unknown; outcome: string }>;
}
/** The study's driver, killed and resumed from another machine's empty state (`--kill-controller`). */
export interface StudyController {
  killed: boolean;
  resumed: boolean;
  /** Where the resuming driver found the study: its state in S3, with no local state at all. */
  resumed_from: 's3' | null;
  /**
   * Seconds from the fleet's creation to the kill (once every member ran); from the kill to the
   * resuming driver's start, to its first act on the study (past the dead driver's lease, 60 s
   * at most), and to its end.
   */
  killed_at_s?: number;
  kill_to_attach_s?: number;
  kill_to_resume_s?: number;
  kill_to_done_s?: number;
  /** The killed driver's end (SIGKILL) and the resumed one's exit status. */
  killed_exit?: string | number | null;
  resumed_exit?: number | string | null;
  resumed_command?: string;
}
/** study.json. */
export interface Study {
  wall_s: number;
  /** How the members ran: autonomous (a study: no inbound path), or interactive (driven over HTTPS). */
  mode: 'autonomous' | 'interactive';
  controller?: StudyController;
  /** The host's load and stolen CPU while the rehearsal ran: a ratio that fell on a loaded host says so. */
  host_load?: HostLoad;
  /** Each prerequisite, as checked before anything started. */
  prerequisites?: Array<{ name: string; ok: boolean; detail: string }>;
  /** Seconds from the fleet's creation to every member running (its signal: SUCCESS). */
  up_to_all_running_s?: number | null;
  scale: Scale;
  runtime: string;
  instance: string;
  command: string;
  volumes: StudyVolume[];
  leftovers: Record<string, number>;
  notes: string[];
  compare_exit?: number | string | null;
  fleet_id?: string;
  up_to_all_answering_s?: number | null;
  leftovers_after_down?: Record<string, number>;
  leftover_items_after_down?: Record<string, string[]>;
  reap?: ReapDemo;
  leftover_items?: Record<string, string[]>;
  kept_in_s3?: string[];
  /** What volbench keeps for every fleet of the region (the study roles), listed apart from leftovers. */
  kept_in_account?: Record<string, string[]>;
  problems?: string[];
}

/** The limits the emulation holds exactly (README "What the kernel's throttle expresses exactly"). */
const IOPS_BOUND = new Set(['volume-iops', 'instance-iops']);
const BYTES_BOUND = new Set(['volume-throughput', 'instance-bandwidth']);
const MIXED = new Set(['rw', 'readwrite', 'randrw', 'trimwrite']);

/**
 * Whether a test's ratio says something about the chain: an IOPS limit on I/O of up to the counted
 * size, or a throughput limit on any size; never a mix, a burst bucket's fall (timing) or a test
 * with too few I/Os in flight to reach any limit (latency).
 */
export function gatedWhy(e: { bound_by: string; bs: number }, rw: string, countedBytes: number): { gated: boolean; why: string } {
  if (MIXED.has(rw)) return { gated: false, why: 'a read/write mix: the split between directions lags by a tick' };
  if (IOPS_BOUND.has(e.bound_by)) {
    return e.bs <= countedBytes ? { gated: true, why: 'IOPS limit, I/O within the counted size' }
      : { gated: false, why: `IOPS limit on ${e.bs / 1024} KiB I/O: the kernel counts the loop device's bios, not AWS's units` };
  }
  if (BYTES_BOUND.has(e.bound_by)) return { gated: true, why: 'throughput limit: bytes are bytes' };
  return { gated: false, why: `bound by ${e.bound_by}` };
}

function dirOf(job: FioJob) {
  const r = job.read?.io_bytes ?? 0;
  const w = job.write?.io_bytes ?? 0;
  return r >= w ? job.read : job.write;
}

/**
 * One volume's tests from its fio document. `model(bs, rw)` is the catalog's entitlement for the
 * test: its bound_by is the model's (the service's own label reads the measured rate against
 * AWS's unscaled one, so under the rate factor it would call every test latency-bound).
 */
export function volumeTests(doc: FioJson, scale: Scale, countedBytes: number, model: (bs: number, rw: string) => Entitlement): StudyTest[] {
  const tests: StudyTest[] = [];
  (doc.jobs ?? []).forEach((job, i) => {
    const served: VolbenchEntitlement | undefined = doc.volbench?.jobs?.[i]?.entitlement;
    if (!served) return;
    const rw = String(job['job options']?.rw ?? doc['global options']?.rw ?? '');
    const m = model(served.bs, rw);
    const e = { ...served, bound_by: m.entitled.bound_by, expected_iops: m.entitled.iops, expected_bw_bytes: m.entitled.iops * served.bs };
    const bytesBound = BYTES_BOUND.has(e.bound_by);
    const unit = bytesBound ? 'MiB/s' : 'IOPS';
    const d = dirOf(job);
    const measured = bytesBound ? (e.measured_bw_bytes ?? d?.bw_bytes ?? 0) / 2 ** 20 : e.measured_iops ?? d?.iops ?? 0;
    const entitled = (bytesBound ? e.expected_bw_bytes / 2 ** 20 : e.expected_iops) * scale.rate;
    const { gated, why } = gatedWhy(e, rw, countedBytes);
    tests.push({
      test: job.jobname, rw, bs: e.bs, measured: round(measured), entitled: round(entitled), unit,
      ratio: entitled > 0 ? round(measured / entitled, 3) : null, bound_by: e.bound_by, gated, why,
      ...(served.bound_by !== m.entitled.bound_by ? { service_bound_by: served.bound_by } : {}),
    });
  });
  return tests;
}

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

/** HDD types, whose members must run an HDD suite (1 MiB sequential, as AWS says to measure them). */
const HDD_TYPES = new Set(['st1', 'sc1']);

/**
 * Whether the study met its goal: every volume with a gated test, every gated ratio in 0.85–1.10
 * with a bound_by, HDD volumes on an HDD suite, nothing left; an autonomous study's members open
 * to nothing; a killed controller resumed from S3.
 */
export function verdict(study: Study, low = 0.85, high = 1.1): string[] {
  const problems: string[] = [];
  if (study.volumes.length === 0) problems.push('no volume was studied');
  if (Object.keys(study.leftovers ?? {}).length === 0) problems.push('what is left in moto was not listed');
  for (const v of study.volumes) {
    if (v.error) problems.push(`${v.label}: ${v.error}`);
    const gated = v.tests.filter((t) => t.gated);
    if (gated.length === 0) problems.push(`${v.label}: no gated test`);
    for (const t of gated) {
      if (t.ratio === null || t.ratio < low || t.ratio > high) problems.push(`${v.label} ${t.test}: measured/entitled ${t.ratio} outside ${low}–${high}`);
      if (!t.bound_by) problems.push(`${v.label} ${t.test}: no bound_by`);
    }
    if (HDD_TYPES.has(v.type) && !/hdd/.test(v.suite)) problems.push(`${v.label}: an HDD volume ran ${v.suite}, not an HDD suite`);
    if (study.mode === 'autonomous' && v.inbound_rules !== 0) problems.push(`${v.label}: ${v.inbound_rules ?? 'unknown'} inbound rule(s) on an autonomous member`);
  }
  const c = study.controller;
  if (c && !(c.killed && c.resumed && c.resumed_from === 's3')) problems.push(`the controller was ${c.killed ? '' : 'not '}killed and ${c.resumed ? '' : 'not '}resumed from s3`);
  for (const [what, n] of Object.entries(study.leftovers ?? {})) if (n !== 0) problems.push(`leftover ${what}: ${n}`);
  return problems;
}
