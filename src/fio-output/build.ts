/**
 * buildReport: raw engine results in, fio 3.33's JSON out (as an object whose insertion order is
 * fio's key order), with json+'s `bins` always present and volbench's own key last.
 */
import type { DiskUtil, RunReportInput } from './types.js';
import type { FioResult } from './fio-result.js';
import { collectEntries, type Entry } from './entries.js';
import { groupRunStats, type GroupEntry } from './group-stats.js';
import { jobJson, optionsJson, type RunClock } from './json-job.js';
import { volbenchSection } from './volbench-section.js';
import { ctime } from './ctime.js';

/** What fio's eta.c reports while less than 3 s have elapsed (INT_MAX: "no estimate yet"). */
export const ETA_UNKNOWN = 2147483647;

/** The end of the last measured period: fio stamps its report when the run is over. */
function runEndMs(input: RunReportInput): number {
  let end = input.startedAtMs;
  for (const job of input.jobs) {
    for (const r of job.instances) {
      if (r.startedAtMs > 0) end = Math.max(end, r.startedAtMs + r.runtimeNs / 1e6);
    }
  }
  return end;
}

/**
 * fio's `elapsed` is the whole run's, in seconds rounded up, the same in every entry, and its
 * `eta` is INT_MAX until 3 s have passed (eta.c): that is why the failed 1 s run of sample 09 and
 * the clean 1 s run of sample 20 both show 2147483647. volbench also marks any failed entry so,
 * whatever the run's length (where fio would print 0), so a failure never looks finished.
 */
function clockFor(elapsedSec: number, entry: Entry): RunClock {
  return { elapsedSec, eta: elapsedSec < 3 || entry.ts.error ? ETA_UNKNOWN : 0 };
}

function groupEntryOf(entry: Entry): GroupEntry {
  const { ts } = entry;
  return {
    groupid: ts.groupid,
    unified: ts.unified,
    kbBase: ts.kbBase,
    ioBytes: ts.dirs.map((d) => d.ioBytes),
    runtimeMs: ts.dirs.map((d) => d.runtimeMs),
  };
}

/** disk_util entries with fio's keys in fio's order; a stacked device's aggr_* keys follow util. */
function diskUtilJson(d: DiskUtil): DiskUtil {
  return {
    name: d.name,
    read_ios: d.read_ios,
    write_ios: d.write_ios,
    read_merges: d.read_merges,
    write_merges: d.write_merges,
    read_ticks: d.read_ticks,
    write_ticks: d.write_ticks,
    in_queue: d.in_queue,
    util: d.util,
    ...(d.aggr_util === undefined ? {} : {
      aggr_read_ios: d.aggr_read_ios,
      aggr_write_ios: d.aggr_write_ios,
      aggr_read_merges: d.aggr_read_merges,
      aggr_write_merge: d.aggr_write_merge,
      aggr_read_ticks: d.aggr_read_ticks,
      aggr_write_ticks: d.aggr_write_ticks,
      aggr_in_queue: d.aggr_in_queue,
      aggr_util: d.aggr_util,
    }),
  };
}

export function buildReport(input: RunReportInput): FioResult {
  const entries = collectEntries(input.jobs);
  const groups = groupRunStats(entries.map(groupEntryOf));
  const endMs = runEndMs(input);
  const elapsedSec = Math.ceil(Math.max(0, Math.floor(endMs - input.startedAtMs)) / 1000);
  const global = input.globalOptions ? optionsJson(input.globalOptions) : undefined;
  // Spreads keep fio's key order; "global options" only when the spec had a [global] section.
  return {
    'fio version': `volbench-${input.volbenchVersion}`,
    timestamp: Math.floor(endMs / 1000),
    timestamp_ms: Math.floor(endMs),
    time: ctime(endMs),
    ...(global ? { 'global options': global } : {}),
    jobs: entries.map((e) => jobJson(e.ts, groups[e.ts.groupid], clockFor(elapsedSec, e))),
    ...(input.diskUtil.length ? { disk_util: input.diskUtil.map(diskUtilJson) } : {}),
    volbench: volbenchSection(input, entries),
  };
}
