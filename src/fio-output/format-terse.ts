/**
 * fio's terse output, version 3 (`--minimal`, `--output-format=terse`): one line per reported
 * job, fields separated by ';', in fio 3.33's order (stat.c show_thread_status_terse_all and
 * show_ddir_status_terse), made from the same document the JSON prints:
 *
 *   3; version; jobname; groupid; error;
 *   read and write, each: KiB; KiB/s; IOPS; runtime ms; slat min, max, mean, stddev (µs);
 *     clat the same; 20 percentiles as p%=µs (clat's, or lat's with lat_percentiles); lat the
 *     same four; bw min, max, share of the group, mean, stddev (KiB/s)
 *     (unified_rw_reporting=mixed: the mixed figures alone; =both: mixed after write);
 *   usr%; sys%; ctx; majf; minf; 7 IO depth shares; 10 µs shares (the ns ones added to the
 *   first); 12 ms shares; per disk: name; ios r; ios w; merges r; merges w; ticks r; ticks w;
 *   in_queue; util% (with ";slaves;" and their averages after a device that has them);
 *   the description, when the job has one.
 *
 * The version field says volbench-x.y.z where fio says fio-3.33, as the JSON does.
 */
import type { DiskUtil, FioDirStats, FioJob, FioJson, FioLatStats } from './fio-result.js';
import { DEPTH_LEVEL_KEYS, LAT_KEYS, LAT_MS_KEYS } from './distributions.js';
import { groupEntry } from './format-normal.js';
import { groupRunStats, type GroupRunStats } from './group-stats.js';
import { formatFixed, formatInteger } from './printf.js';

/** fio's FIO_IO_U_LIST_MAX_LEN: the percentile slots a direction always prints. */
const PERCENTILE_SLOTS = 20;
const TERSE_VERSION = 3;

const f6 = (x: number): string => formatFixed(x, 6);
const int = (x: number): string => formatInteger(x);
const usec = (ns: number): string => int(Math.floor(ns / 1000));

/** slat, clat or lat: min and max in whole µs, mean and deviation in µs (zeros with no samples). */
function latFields(s: FioLatStats): string[] {
  if (!s.N) return ['0', '0', f6(0), f6(0)];
  return [usec(s.min), usec(s.max), f6(s.mean / 1000), f6(s.stddev / 1000)];
}

/**
 * The percentile slots. fio fills them from the list whenever percentiles are on, with zeros for
 * a direction without I/O; `keys` is the list as the job's other directions print it.
 */
function percentileFields(table: Record<string, number> | undefined, keys: readonly string[]): string[] {
  const out = keys.slice(0, PERCENTILE_SLOTS).map((k) => `${k}%=${usec(table?.[k] ?? 0)}`);
  while (out.length < PERCENTILE_SLOTS) out.push('0%=0');
  return out;
}

/**
 * The job's bandwidth as a share of its group's: the terse line divides by the aggregate in
 * whole KiB/s (stat.c show_ddir_status_terse), where the JSON's bw_agg divides by the exact one.
 */
function shareOfGroup(meanKiB: number, aggBytes: number): number {
  if (!aggBytes) return 100;
  return Math.min(100, (meanKiB * 100) / Math.floor(aggBytes / 1024));
}

function directionFields(d: FioDirStats, aggBytes: number, kind: 'clat_ns' | 'lat_ns' | undefined, keys: readonly string[]): string[] {
  const fields = [int(d.io_kbytes), int(d.bw), int(Math.floor(d.iops)), int(d.runtime)];
  fields.push(...latFields(d.slat_ns), ...latFields(d.clat_ns));
  fields.push(...percentileFields(kind ? d[kind].percentile : undefined, kind ? keys : []));
  fields.push(...latFields(d.lat_ns));
  if (d.bw_samples) {
    fields.push(int(d.bw_min), int(d.bw_max), `${f6(shareOfGroup(d.bw_mean, aggBytes))}%`, f6(d.bw_mean), f6(d.bw_dev));
  } else {
    fields.push('0', '0', `${f6(0)}%`, f6(0), f6(0));
  }
  return fields;
}

/** Which latency's percentiles fio prints (lat's over clat's), and their keys, from any direction. */
function percentileSource(dirs: readonly FioDirStats[]): { kind?: 'clat_ns' | 'lat_ns'; keys: string[] } {
  for (const kind of ['lat_ns', 'clat_ns'] as const) {
    const table = dirs.map((d) => d[kind].percentile).find((p) => p !== undefined);
    if (table) return { kind, keys: Object.keys(table) };
  }
  return { keys: [] };
}

/**
 * The directions fio prints for the job, in its order, each with the group's aggregate it is
 * measured against (the mixed figures against the reads', as stat.c passes DDIR_READ for them).
 */
function directionsOf(job: FioJob, rs: GroupRunStats): Array<[FioDirStats, number]> {
  if (job.mixed && !job.read) return [[job.mixed, rs.agg[0]]];
  const out: Array<[FioDirStats, number]> = [];
  if (job.read) out.push([job.read, rs.agg[0]]);
  if (job.write) out.push([job.write, rs.agg[1]]);
  if (job.mixed) out.push([job.mixed, rs.agg[0]]);
  return out;
}

/**
 * fio adds the ns counts to the first µs share "to keep the terse format unaltered"; the JSON has
 * the shares, each non-zero one at least 0.01%. A share of exactly 0.01 is taken as the one I/O
 * it most likely is (its count is not in the JSON).
 */
function firstMicrosecondShare(job: FioJob): number {
  const total = [job.read, job.write, job.trim].reduce((n, d) => n + (d?.total_ios ?? 0), 0);
  const ns = Object.values(job.latency_ns).reduce((sum, v) => sum + (v === 0.01 && total ? Math.min(0.01, 100 / total) : v), 0);
  return (job.latency_us[LAT_KEYS[0]] ?? 0) + ns;
}

/** fio's %3.1f / %3.2f shares: never narrower than three characters, so just the digits. */
const shares = (table: Record<string, number>, keys: readonly string[], digits: number): string[] =>
  keys.map((k) => `${formatFixed(table[k] ?? 0, digits)}%`);

type DiskUtilJson = DiskUtil & Partial<Record<
  'aggr_read_ios' | 'aggr_write_ios' | 'aggr_read_merges' | 'aggr_write_merge' |
  'aggr_read_ticks' | 'aggr_write_ticks' | 'aggr_in_queue' | 'aggr_util', number>>;

function diskFields(du: DiskUtilJson): string[] {
  const out = [du.name, du.read_ios, du.write_ios, du.read_merges, du.write_merges, du.read_ticks, du.write_ticks, du.in_queue]
    .map((v) => (typeof v === 'string' ? v : int(v)));
  out.push(`${formatFixed(du.util, 2)}%`);
  if (du.aggr_util !== undefined) {
    out.push('slaves', ...[du.aggr_read_ios, du.aggr_write_ios, du.aggr_read_merges, du.aggr_write_merge, du.aggr_read_ticks,
      du.aggr_write_ticks, du.aggr_in_queue].map((v) => int(v ?? 0)), `${formatFixed(du.aggr_util, 2)}%`);
  }
  return out;
}

function jobLine(job: FioJob, version: string, disks: readonly DiskUtil[], rs: GroupRunStats): string {
  const dirs = directionsOf(job, rs);
  const source = percentileSource(dirs.map(([d]) => d));
  const fields = [String(TERSE_VERSION), version, job.jobname, int(job.groupid), int(job.error)];
  for (const [d, agg] of dirs) fields.push(...directionFields(d, agg, source.kind, source.keys));
  fields.push(`${f6(job.usr_cpu)}%`, `${f6(job.sys_cpu)}%`, int(job.ctx), int(job.majf), int(job.minf));
  fields.push(...shares(job.iodepth_level, DEPTH_LEVEL_KEYS, 1));
  const us = { ...job.latency_us, [LAT_KEYS[0]]: firstMicrosecondShare(job) };
  fields.push(...shares(us, LAT_KEYS, 2), ...shares(job.latency_ms, LAT_MS_KEYS, 2));
  for (const du of disks) fields.push(...diskFields(du));
  if (job.desc) fields.push(job.desc);
  return `${fields.join(';')}\n`;
}

/** The result as fio's terse v3 lines, one per job entry. */
export function formatTerse(result: FioJson): string {
  const disks = result.disk_util ?? [];
  const groups = groupRunStats(result.jobs.map((j) => groupEntry(j, result)));
  return result.jobs.map((job) => jobLine(job, result['fio version'], disks, groups[job.groupid])).join('');
}
