/**
 * One fio job entry from a ThreadStat, key for key as stat.c's show_thread_status_json,
 * add_ddir_status_json and add_ddir_lat_json build it.
 */
import type { FioDirStats, FioJob, FioLatStats, FioSyncStats } from './fio-result.js';
import { calcLat, type IoStat } from './io-stat.js';
import { histBins, percentiles } from './histogram.js';
import { percentOfAggregate, type GroupRunStats } from './group-stats.js';
import { formatFixed, mulDiv } from './printf.js';
import { steadyJson } from './steadystate.js';
import { mixedOf, type DirStat, type ThreadStat } from './thread-stat.js';
import {
  DEPTH_CALL_KEYS, DEPTH_LEVEL_KEYS, LAT_KEYS, LAT_MS_KEYS,
  depthPercents, keyed, latencyCounts, latencyPercents,
} from './distributions.js';

const DIR_NAMES = ['read', 'write', 'trim'] as const;

/** slat_ns / clat_ns / lat_ns; `percentile` and `bins` only when enabled and N > 0. */
export function latJson(stat: IoStat, hist: ArrayLike<number>, enabled: boolean, list: readonly number[]): FioLatStats {
  const c = calcLat(stat) ?? { min: 0, max: 0, mean: 0, dev: 0 };
  const out: FioLatStats = { min: c.min, max: c.max, mean: c.mean, stddev: c.dev, N: stat.samples };
  if (enabled && stat.samples > 0) {
    const values = percentiles(hist, stat.samples, list);
    const table: Record<string, number> = {};
    list.forEach((p, i) => (table[formatFixed(p, 6)] = values[i]));
    out.percentile = table;
    out.bins = histBins(hist);
  }
  return out;
}

/** read / write / trim (or mixed): bandwidth by fio's integer arithmetic, iops as a float. */
export function dirJson(ts: ThreadStat, d: DirStat, rs: GroupRunStats | undefined, dir: number): FioDirStats {
  const runtime = d.runtimeMs;
  const bwBytes = runtime ? mulDiv(d.ioBytes, 1000, runtime) : 0;
  const p = ts.percentiles;
  const bw = calcLat(d.bw);
  const iops = calcLat(d.iops);
  return {
    io_bytes: d.ioBytes,
    io_kbytes: Math.floor(d.ioBytes / 1024),
    bw_bytes: bwBytes,
    bw: Math.floor(bwBytes / 1024),
    iops: runtime ? (1000 * d.totalIos) / runtime : 0,
    runtime,
    total_ios: d.totalIos,
    short_ios: d.shortIos,
    drop_ios: d.dropIos,
    slat_ns: latJson(d.slat, d.slatHist, p.slat, p.list),
    clat_ns: latJson(d.clat, d.clatHist, p.clat, p.list),
    lat_ns: latJson(d.lat, d.latHist, p.lat, p.list),
    bw_min: bw ? Math.floor(bw.min) : 0,
    bw_max: bw ? Math.floor(bw.max) : 0,
    bw_agg: bw ? percentOfAggregate(rs, dir, bw.mean) : 0,
    bw_mean: bw?.mean ?? 0,
    bw_dev: bw?.dev ?? 0,
    bw_samples: d.bw.samples,
    iops_min: iops ? Math.floor(iops.min) : 0,
    iops_max: iops ? Math.floor(iops.max) : 0,
    iops_mean: iops?.mean ?? 0,
    iops_stddev: iops?.dev ?? 0,
    iops_samples: d.iops.samples,
  };
}

/** fsync/fdatasync: its lat_ns has percentiles when clat or lat percentiles are on. */
function syncJson(ts: ThreadStat): FioSyncStats {
  const p = ts.percentiles;
  return { total_ios: ts.sync.totalIos, lat_ns: latJson(ts.sync.stat, ts.sync.hist, p.clat || p.lat, p.list) };
}

/** The read/write/trim/sync/mixed keys, per unified_rw_reporting. */
function addDirections(job: FioJob, ts: ThreadStat, rs: GroupRunStats | undefined): void {
  if (ts.unified === 'mixed') {
    job.mixed = dirJson(ts, ts.dirs[0], rs, 0);
    return;
  }
  DIR_NAMES.forEach((name, i) => (job[name] = dirJson(ts, ts.dirs[i], rs, i)));
  job.sync = syncJson(ts);
  // fio measures the mixed entry's bw_agg against the group's read aggregate.
  if (ts.unified === 'both') job.mixed = dirJson(ts, mixedOf(ts).dirs[0], rs, 0);
}

function addDistributions(job: FioJob, ts: ThreadStat): void {
  const ios = ts.dirs.reduce((s, d) => s + d.totalIos, 0);
  const sum = (v: number[]) => v.reduce((s, x) => s + x, 0);
  job.iodepth_level = keyed(DEPTH_LEVEL_KEYS, depthPercents(ts.depthMap, ios));
  job.iodepth_submit = keyed(DEPTH_CALL_KEYS, depthPercents(ts.submit, sum(ts.submit)));
  job.iodepth_complete = keyed(DEPTH_CALL_KEYS, depthPercents(ts.complete, sum(ts.complete)));
  const lat = latencyCounts(ts.disableClat ? [] : ts.dirs.map((d) => d.clatHist));
  job.latency_ns = keyed(LAT_KEYS, latencyPercents(lat.ns, ios));
  job.latency_us = keyed(LAT_KEYS, latencyPercents(lat.us, ios));
  job.latency_ms = keyed(LAT_MS_KEYS, latencyPercents(lat.ms, ios));
}

/** fio's json_add_job_opts: nothing when empty; an empty value is dropped (json.c refuses ""). */
export function optionsJson(options: ReadonlyArray<[string, string]>): Record<string, string> | undefined {
  const kept = options.filter(([, v]) => v !== '');
  if (!kept.length) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of kept) out[k] = v;
  return out;
}

export interface RunClock {
  elapsedSec: number;
  eta: number;
}

export function jobJson(ts: ThreadStat, rs: GroupRunStats | undefined, clock: RunClock): FioJob {
  const job = {
    jobname: ts.name,
    groupid: ts.groupid,
    error: ts.error,
    eta: clock.eta,
    elapsed: clock.elapsedSec,
  } as FioJob;
  const opts = optionsJson(ts.jobOptions);
  if (opts) job['job options'] = opts;
  addDirections(job, ts, rs);
  job.job_runtime = ts.totalRunTimeMs;
  job.usr_cpu = ts.totalRunTimeMs ? (ts.usrMs * 100) / ts.totalRunTimeMs : 0;
  job.sys_cpu = ts.totalRunTimeMs ? (ts.sysMs * 100) / ts.totalRunTimeMs : 0;
  job.ctx = ts.ctx;
  job.majf = ts.majf;
  job.minf = ts.minf;
  addDistributions(job, ts);
  if (ts.latencyDepth) {
    job.latency_depth = ts.latencyDepth;
    job.latency_target = ts.latencyTargetNs;
    job.latency_percentile = ts.latencyPercentile;
    job.latency_window = ts.latencyWindowUs;
  }
  if (ts.description) job.desc = ts.description;
  if (ts.steady) job.steadystate = steadyJson(ts.steady);
  return job;
}
