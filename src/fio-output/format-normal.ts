/**
 * formatNormal: fio's human-readable `normal` report for a result object (buildReport's, or
 * fio's own JSON parsed), laid out as stat.c's show_thread_status_normal, show_group_stats and
 * show_disk_util print it. The text starts at the first job's line; fio's startup lines
 * ("Starting 1 process") belong to the run, not the report.
 *
 * The JSON lacks a few things fio prints. The pid is the thread id the "volbench" key records
 * (0 for fio's own JSON unless given). The number of jobs in an entry and the error text come
 * from the "volbench" key, or for fio's own JSON from numjobs (and no text). The percentile
 * precision is recovered from the percentile keys and kb_base from the options echo.
 */
import { getSystemErrorName } from 'node:util';

import { entitledLine } from './entitled.js';
import type { FioDirStats, FioJob, FioJson, VolbenchJob } from './fio-result.js';
import { groupRunStats, type GroupEntry, type GroupRunStats } from './group-stats.js';
import { directionText, syncText, type DirectionStyle } from './normal-direction.js';
import { distributionLines, keyPrecision } from './normal-latency.js';
import { diskText, groupText } from './normal-group.js';
import { steadyText } from './steadystate.js';
import { fixedWidth, formatFixed, formatInteger, integerWidth } from './printf.js';

export interface FormatNormalOptions {
  /** Printed as fio's `pid=`; volbench runs jobs as threads of one process. Default 0. */
  pid?: number;
}

const DIRS = ['read', 'write', 'trim'] as const;
const SIG_FIGS = 4;

type Unified = GroupEntry['unified'];

function unifiedOf(job: FioJob): Unified {
  if (!job.mixed) return 'none';
  return job.read ? 'both' : 'mixed';
}

function kbBaseOf(job: FioJob, result: FioJson): number {
  const typed = job['job options']?.kb_base ?? result['global options']?.kb_base;
  return typed !== undefined && Number(typed) === 1000 ? 1000 : 1024;
}

/** The directions as stat.c's arrays hold them: in mixed mode everything is in slot 0. */
function slots(job: FioJob): Array<FioDirStats | undefined> {
  return unifiedOf(job) === 'mixed' ? [job.mixed, undefined, undefined] : DIRS.map((d) => job[d]);
}

/** The job's share of its group's totals (stat.c group_run_stats), as fio sums them. */
export function groupEntry(job: FioJob, result: FioJson): GroupEntry {
  const dirs = slots(job);
  return {
    groupid: job.groupid,
    unified: unifiedOf(job),
    kbBase: kbBaseOf(job, result),
    ioBytes: dirs.map((d) => d?.io_bytes ?? 0),
    runtimeMs: dirs.map((d) => d?.runtime ?? 0),
  };
}

/** fio's percentile_precision: the most digits after the point in the list as typed. */
function precisionOf(job: FioJob): number {
  const tables = [...DIRS, 'mixed' as const].flatMap((d) => {
    const s = job[d];
    return s ? [s.slat_ns.percentile, s.clat_ns.percentile, s.lat_ns.percentile] : [];
  });
  tables.push(job.sync?.lat_ns.percentile);
  const keys = tables.flatMap((t) => Object.keys(t ?? {}));
  return keys.reduce((m, k) => Math.max(m, keyPrecision(k)), 0);
}

/**
 * fio's "jobs=": from the "volbench" key, else (fio's own JSON) numjobs shared among the entries
 * of that name in the group: one entry under group_reporting, numjobs entries without.
 */
function membersOf(job: FioJob, result: FioJson, extra: VolbenchJob | undefined): number {
  if (extra) return extra.members;
  const numjobs = Number(job['job options']?.numjobs ?? result['global options']?.numjobs ?? 1) || 1;
  const entries = result.jobs.filter((j) => j.jobname === job.jobname && j.groupid === job.groupid).length;
  return Math.max(1, Math.floor(numjobs / Math.max(1, entries)));
}

/** fio prints its own error text (verror); without it, the errno's name says most ("ENOTTY"). */
function errnoName(errno: number): string {
  try {
    return getSystemErrorName(-Math.abs(errno));
  } catch {
    return `errno ${errno}`;
  }
}

function headerLine(job: FioJob, result: FioJson, extra: VolbenchJob | undefined, pid: number): string {
  const err = integerWidth(job.error, 2);
  const reason = job.error ? ` (${extra?.error_message || errnoName(job.error)})` : '';
  const members = membersOf(job, result, extra);
  const time = result.time;
  // volbench's jobs are threads: their id, as fio prints with --thread.
  const shown = extra?.tid || pid;
  return `${job.jobname}: (groupid=${job.groupid}, jobs=${members}): err=${err}${reason}: pid=${shown}: ${time}${registeredText(extra)}\n`;
}

/**
 * What io_uring registered with the kernel, which fio does only when asked (fixedbufs,
 * registerfiles) and which can change the figures: said at the end of the job's line, where
 * nothing of fio's follows. Nothing when neither was.
 */
function registeredText(extra: VolbenchJob | undefined): string {
  const what = [extra?.buffers?.registered ? 'buffers' : '', extra?.registered_files ? 'files' : ''].filter(Boolean);
  return what.length ? `; io_uring with registered ${what.join(' and ')}` : '';
}

function directionsText(job: FioJob, rs: GroupRunStats, precision: number): string {
  const style = (name: string): DirectionStyle => ({
    name, kbBase: rs.kbBase, sigFigs: SIG_FIGS, bwUnit: 'bytepersec', precision,
    suffix: name === 'write' ? '; 0 zone resets' : '',
  });
  const unified = unifiedOf(job);
  if (unified === 'mixed') return job.mixed?.io_bytes ? directionText(job.mixed, style('mixed')) : '';
  let out = DIRS.map((d) => (job[d]?.io_bytes ? directionText(job[d]!, style(d)) : '')).join('');
  // stat.c's mixed entry for "both" never gets sig_figs or unit_base set, so fio prints its
  // IOPS, BW and io as "0", "0 (0)" and "0B"; kept so the text matches fio's.
  if (unified === 'both' && job.mixed) out += directionText(job.mixed, { ...style('mixed'), sigFigs: 0, bwUnit: 'none' });
  return out;
}

function percents(values: Record<string, number> | undefined, labels: string[]): string {
  return labels.map((l) => `${l}=${fixedWidth(values?.[l] ?? 0, 1, 3)}%`).join(', ');
}

function depthText(job: FioJob): string {
  const calls = ['0', '4', '8', '16', '32', '64', '>=64'];
  return (
    `  IO depths    : ${percents(job.iodepth_level, ['1', '2', '4', '8', '16', '32', '>=64'])}\n` +
    `     submit    : ${percents(job.iodepth_submit, calls)}\n` +
    `     complete  : ${percents(job.iodepth_complete, calls)}\n`
  );
}

function issuedText(job: FioJob): string {
  const dirs = slots(job);
  const col = (f: (d: FioDirStats) => number) => dirs.map((d) => formatInteger(d ? f(d) : 0)).join(',');
  const sync = formatInteger(job.sync?.total_ios ?? 0);
  return (
    `     issued rwts: total=${col((d) => d.total_ios)},${sync} short=${col((d) => d.short_ios)},0` +
    ` dropped=${col((d) => d.drop_ios)},0\n`
  );
}

function tailText(job: FioJob): string {
  let out =
    `  cpu          : usr=${fixedWidth(job.usr_cpu, 2, 3)}%, sys=${fixedWidth(job.sys_cpu, 2, 3)}%, ` +
    `ctx=${formatInteger(job.ctx)}, majf=${formatInteger(job.majf)}, minf=${formatInteger(job.minf)}\n`;
  out += depthText(job) + issuedText(job);
  if (job.latency_depth) {
    out +=
      `     latency   : target=${formatInteger(job.latency_target ?? 0)}, window=${formatInteger(job.latency_window ?? 0)}, ` +
      `percentile=${formatFixed(job.latency_percentile ?? 0, 2)}%, depth=${formatInteger(job.latency_depth)}\n`;
  }
  if (job.steadystate) out += steadyText(job.steadystate);
  return out;
}

/**
 * volbench's one line past fio's block: the burst analysis's finding (a cliff, or what the
 * volume's burst model says of the run), when it found something. fio's own JSON has none.
 */
function burstText(extra: VolbenchJob | undefined): string {
  const b = extra?.analysis?.burst;
  if (!b || typeof b.message !== 'string' || (!b.cliff && !b.catalog)) return '';
  return `  burst        : ${b.message}\n`;
}

function jobText(job: FioJob, result: FioJson, index: number, rs: GroupRunStats, pid: number): string {
  const dirs = slots(job);
  const moved = dirs.some((d) => d && (d.io_bytes || d.total_ios));
  if (!moved) return ''; // as fio: a job that did no I/O gets no block
  const precision = precisionOf(job);
  let out = headerLine(job, result, result.volbench?.jobs[index], pid);
  if (job.desc) out += `  Description  : [${job.desc}]\n`;
  out += directionsText(job, rs, precision);
  out += distributionLines('nsec', job.latency_ns);
  out += distributionLines('usec', job.latency_us);
  out += distributionLines('msec', job.latency_ms);
  out += syncText(job.sync, precision);
  return out + tailText(job) + entitledLine(result, index) + burstText(result.volbench?.jobs[index]);
}

export function formatNormal(result: FioJson, opts: FormatNormalOptions = {}): string {
  const groups = groupRunStats(result.jobs.map((j) => groupEntry(j, result)));
  const pid = opts.pid ?? 0;
  let out = result.jobs.map((job, i) => jobText(job, result, i, groups[job.groupid], pid)).join('');
  out += groups.map(groupText).join('');
  return out + diskText(result.disk_util);
}
