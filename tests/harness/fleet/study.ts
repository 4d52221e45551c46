/**
 * study.json from a rehearsal's results: per volume, each test's measured rate against what the
 * catalog's model entitles it to (scaled by the rehearsal's rate factor, as the emulation is),
 * what bound it as the result says (measured from the volume's EBS statistics, else the model's
 * answer), the limit the model names, and whether the kernel's throttle expresses that limit
 * exactly (`gated`). Beside each test, its cell of the report the rehearsal published. Pure:
 * results, the report and the scale in, the study out.
 */
import type { FioJob, FioJson, VolbenchEntitlement } from '../../../src/fio-output/fio-result.js';
import type { BoundBy, BoundBySource, Limit } from '../../../src/fio-output/entitlement-section.js';
import type { Reaped } from '../../../src/fleet/index.js';
import { contextLine, rehearsalBanner, verdictText, type Report } from '../../../src/publish/index.js';
import type { Scale } from '../throttle-model.js';
import type { HostLoad } from './host-load.js';
import type { ThrottleState } from '../volume-throttle.js';

/** A test's cell in the rehearsal's report.json: what a reader of the published table sees. */
export interface StudyReportCell {
  value: number | null;
  entitled: number | null;
  measured_vs_entitled: number | null;
  bound_by: string | null;
  bound_by_source: string | null;
}

/** One test of a volume: its measured rate against the scaled model's. */
export interface StudyTest {
  test: string;
  rw: string;
  /** The direction the test's figures are of (its only one, or a mix's larger). */
  dir: 'read' | 'write';
  bs: number;
  measured: number;
  entitled: number;
  unit: 'MiB/s' | 'IOPS';
  ratio: number | null;
  /** What bound the test, as its result says. */
  bound_by: BoundBy;
  /** ebs-stats: the volume's statistics page said; model: the catalog's model did. */
  bound_by_source: BoundBySource;
  /** The limit the model names for the test's I/O (what the emulation holds it to). */
  limit: Limit;
  gated: boolean;
  why: string;
  /** Its cell in report.json. */
  report?: StudyReportCell;
}
export interface StudyVolume {
  label: string;
  type: string;
  suite: string;
  tests: StudyTest[];
  /** The scale the volume's result says it was emulated at (`volbench.cloud.emulation`), from its statistics page. */
  emulation?: Scale | null;
  /** Why the result's jobs have no statistics, as it says. */
  ebs_stats_unavailable?: string;
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
/**
 * The service that drove the study (--via-http): a `volbench serve --studies`, killed with SIGKILL
 * once every member ran and started again on its data directory.
 */
export interface ServiceRecord {
  url: string;
  command: string;
  killed: boolean;
  restarted: boolean;
  /** Seconds from the SIGKILL to the restarted service answering. */
  gap_s?: number;
  /** Seconds from the SIGKILL to the restarted service's first act on the study (an event of its driver, its lease), or the study's end. */
  resumed_s?: number;
  /** Seconds from the POST to the kill. */
  killed_at_s?: number;
  killed_exit?: string | number | null;
  stopped_exit?: string | number | null;
  restart_error?: string;
  /** What the service refused before the study, as it answered: a region not allowed, a study over the cost cap. */
  refusals?: Array<{ why: string; status: number; type?: string; limit?: string; field?: string; estimated_usd?: number; detail?: string }>;
  /** The study's estimate as the POST answered it. */
  estimated_usd?: number;
  /** The requests the rehearsal made of it, as a pipeline would: POST, GETs, events read and the stream's connections. */
  requests: { post: number; get: number; events: number; event_connections?: number };
}
/** The report the rehearsal published (report.json, report.md, report.html): its first screen. */
export interface StudyReport {
  files: string[];
  title: string;
  context_line: string;
  banner: string | null;
  /** report.json's context.rehearsal: the scale its entitlements were held at. */
  rehearsal: Scale | null;
  verdicts: string[];
}

/** study.json. */
export interface Study {
  wall_s: number;
  /** How the members ran: autonomous (a study: no inbound path), or interactive (driven over HTTPS). */
  mode: 'autonomous' | 'interactive';
  controller?: StudyController;
  /** Who drove the study: the CLI (`fleet compare`), or a volbench service over HTTP (--via-http). */
  driver?: 'cli' | 'http';
  /** The study's id as POST /v1/studies answered it (--via-http). */
  study_id?: string;
  service?: ServiceRecord;
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
  leftovers_after_down?: Record<string, number>;
  leftover_items_after_down?: Record<string, string[]>;
  reap?: ReapDemo;
  leftover_items?: Record<string, string[]>;
  kept_in_s3?: string[];
  /** What volbench keeps for every fleet of the region (the study roles), listed apart from leftovers. */
  kept_in_account?: Record<string, string[]>;
  report?: StudyReport;
  problems?: string[];
}

/** The limits the emulation holds exactly (README "What the kernel's throttle expresses exactly"). */
const IOPS_BOUND = new Set(['volume-iops', 'instance-iops']);
const BYTES_BOUND = new Set(['volume-throughput', 'instance-bandwidth']);
const MIXED = new Set(['rw', 'readwrite', 'randrw', 'trimwrite']);

/**
 * Whether a test's ratio says something about the chain: an IOPS limit on I/O of up to the counted
 * size, or a throughput limit on any size; never a mix, a burst bucket's fall (timing) or a test
 * with too few I/Os in flight to reach any limit (latency). `bound_by` is the limit the model
 * names, never what the test measured: a test that falls short stays gated and is seen to.
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

function dirOf(job: FioJob): 'read' | 'write' {
  const r = job.read?.io_bytes ?? 0;
  const w = job.write?.io_bytes ?? 0;
  return r >= w ? 'read' : 'write';
}

/**
 * One volume's tests from its fio document, as its results state them: each job's entitlement
 * (the model's figures, AWS's own, scaled here by the rehearsal's rate as the result's
 * `volbench.cloud.emulation` says the volume was held), and what bound it (`bound_by` with its
 * `bound_by_source`: the emulated volume's statistics page where it shows a limit exceeded,
 * else the model's answer). The unit and the gate follow the limit the model names.
 */
export function volumeTests(doc: FioJson, scale: Scale, countedBytes: number): StudyTest[] {
  const tests: StudyTest[] = [];
  (doc.jobs ?? []).forEach((job, i) => {
    const served: VolbenchEntitlement | undefined = doc.volbench?.jobs?.[i]?.entitlement;
    if (!served) return;
    const rw = String(job['job options']?.rw ?? doc['global options']?.rw ?? '');
    const limit = served.entitled.bound_by;
    const bytesBound = BYTES_BOUND.has(limit);
    const unit = bytesBound ? 'MiB/s' : 'IOPS';
    const dir = dirOf(job);
    const measured = bytesBound ? served.measured_bw_bytes / 2 ** 20 : served.measured_iops;
    const entitled = (bytesBound ? served.entitled.mibps : served.entitled.iops) * scale.rate;
    const { gated, why } = gatedWhy({ bound_by: limit, bs: served.bs }, rw, countedBytes);
    tests.push({
      test: job.jobname, rw, dir, bs: served.bs, measured: round(measured), entitled: round(entitled), unit,
      ratio: entitled > 0 ? round(measured / entitled, 3) : null, bound_by: served.bound_by, bound_by_source: served.bound_by_source, limit, gated, why,
    });
  });
  return tests;
}

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

/** HDD types, whose members must run an HDD suite (1 MiB sequential, as AWS says to measure them). */
const HDD_TYPES = new Set(['st1', 'sc1']);

const outside = (r: number | null | undefined, low: number, high: number) => r === null || r === undefined || r < low || r > high;

/** What the published report says of the gated tests: scaled as the study, each cell within the band and bound as the model names. */
function reportProblems(study: Study, low: number, high: number): string[] {
  const r = study.report;
  if (!r) return ['no report was published'];
  const problems: string[] = [];
  if (r.rehearsal?.rate !== study.scale.rate || r.rehearsal?.time !== study.scale.time) {
    problems.push(`report.json: context.rehearsal ${JSON.stringify(r.rehearsal)}, not the study's scale ${JSON.stringify(study.scale)}`);
  }
  for (const v of study.volumes) {
    for (const t of v.tests.filter((x) => x.gated)) {
      const c = t.report;
      if (!c) problems.push(`${v.label} ${t.test}: no cell in report.json`);
      else if (outside(c.measured_vs_entitled, low, high)) problems.push(`${v.label} ${t.test}: report.json reads ${c.measured_vs_entitled} of entitled, outside ${low}–${high}`);
      else if (c.bound_by !== t.limit) problems.push(`${v.label} ${t.test}: report.json reads bound by ${c.bound_by}, where the model names ${t.limit}`);
    }
  }
  return problems;
}

/**
 * Whether the study met its goal: every volume with a gated test, every gated ratio in
 * 0.85–1.10 and bound (as its result says) by the limit the model names, HDD volumes on an HDD
 * suite, some test's limit measured from its volume's statistics page, the report saying the
 * same, nothing left; an autonomous study's members open to nothing; a killed controller resumed
 * from S3.
 */
export function verdict(study: Study, low = 0.85, high = 1.1): string[] {
  const problems: string[] = [];
  if (study.volumes.length === 0) problems.push('no volume was studied');
  if (Object.keys(study.leftovers ?? {}).length === 0) problems.push('what is left in moto was not listed');
  for (const v of study.volumes) {
    if (v.error) problems.push(`${v.label}: ${v.error}`);
    const gated = v.tests.filter((t) => t.gated);
    if (gated.length === 0) problems.push(`${v.label}: no gated test`);
    if (v.tests.length > 0 && (v.emulation?.rate !== study.scale.rate || v.emulation?.time !== study.scale.time)) {
      problems.push(`${v.label}: its result says volbench.cloud.emulation ${JSON.stringify(v.emulation ?? null)}, not the study's scale${v.ebs_stats_unavailable ? ` (${v.ebs_stats_unavailable})` : ''}`);
    }
    for (const t of gated) {
      if (outside(t.ratio, low, high)) problems.push(`${v.label} ${t.test}: measured/entitled ${t.ratio} outside ${low}–${high}`);
      else if (t.bound_by !== t.limit) problems.push(`${v.label} ${t.test}: bound by ${t.bound_by} (${t.bound_by_source}), where the model names ${t.limit}`);
    }
    if (HDD_TYPES.has(v.type) && !/hdd/.test(v.suite)) problems.push(`${v.label}: an HDD volume ran ${v.suite}, not an HDD suite`);
    if (study.mode === 'autonomous' && v.inbound_rules !== 0) problems.push(`${v.label}: ${v.inbound_rules ?? 'unknown'} inbound rule(s) on an autonomous member`);
  }
  const tests = study.volumes.flatMap((v) => v.tests);
  if (tests.length > 0) {
    if (!tests.some((t) => t.bound_by_source === 'ebs-stats')) problems.push("no test's binding limit was measured from its volume's EBS statistics page");
    problems.push(...reportProblems(study, low, high));
  }
  if (study.driver === 'http') {
    const s = study.service;
    if (!study.study_id) problems.push('POST /v1/studies started no study');
    const refused = (why: string) => s?.refusals?.find((r) => r.why === why);
    const region = refused('a region not allowed');
    if (!(region?.status === 403 && region.field === 'region' && region.detail?.includes('eu-west-1'))) problems.push(`a study in a region not allowed was not refused naming it: ${JSON.stringify(region)}`);
    const cost = refused('over the cost cap');
    if (!(cost?.status === 422 && cost.limit === '--study-max-cost' && typeof cost.estimated_usd === 'number')) problems.push(`a study over the cost cap was not refused with its estimate: ${JSON.stringify(cost)}`);
    if (!(s?.killed && s.restarted)) problems.push(`the service was ${s?.killed ? '' : 'not '}killed and ${s?.restarted ? '' : 'not '}restarted${s?.restart_error ? ` (${s.restart_error})` : ''}`);
  }
  const c = study.controller;
  if (c && !(c.killed && c.resumed && c.resumed_from === 's3')) problems.push(`the controller was ${c.killed ? '' : 'not '}killed and ${c.resumed ? '' : 'not '}resumed from s3`);
  for (const [what, n] of Object.entries(study.leftovers ?? {})) if (n !== 0) problems.push(`leftover ${what}: ${n}`);
  return problems;
}

/** The first screen of the published report, as study.json keeps it. */
export function studyReport(report: Report, files: string[]): StudyReport {
  return {
    files, title: report.title, context_line: contextLine(report.context), banner: rehearsalBanner(report.context),
    rehearsal: report.context.rehearsal ? { rate: report.context.rehearsal.rate, time: report.context.rehearsal.time } : null,
    verdicts: report.verdicts.map((v) => verdictText(v)),
  };
}

/**
 * Each test's cell of the published report (the test's direction and unit: `TEST:read:iops`), on
 * the row of its volume's result (`sourceOf(label)`, the input's source): what a reader sees.
 */
export function attachReportCells(volumes: StudyVolume[], report: Report, sourceOf: (label: string) => string | undefined): void {
  const rows = report.groups.flatMap((g) => g.rows);
  for (const v of volumes) {
    const source = sourceOf(v.label);
    const mine = rows.filter((r) => source !== undefined && r.source === source);
    for (const t of v.tests) {
      const key = `${t.test}:${t.dir}:${t.unit === 'IOPS' ? 'iops' : 'mibps'}`;
      const cell = mine.map((r) => r.cells[key]).find((c) => c !== undefined);
      if (!cell) continue;
      t.report = {
        value: cell.value === null ? null : round(cell.value), entitled: cell.entitled === null ? null : round(cell.entitled),
        measured_vs_entitled: cell.measured_vs_entitled === null ? null : round(cell.measured_vs_entitled, 3),
        bound_by: cell.bound_by, bound_by_source: cell.bound_by_source,
      };
    }
  }
}
