/**
 * fio's `struct group_run_stats`: per stonewall group and direction, the totals behind
 * `bw_agg` and the "Run status group" lines. Built from the job entries as printed (after
 * group_reporting merged them), as stat.c's __show_run_stats does.
 */
import { mulDiv } from './printf.js';

export interface GroupEntry {
  groupid: number;
  unified: 'none' | 'mixed' | 'both';
  kbBase: number;
  /** Per direction (read, write, trim); in mixed mode only slot 0 is used. */
  ioBytes: number[];
  runtimeMs: number[];
}

export interface GroupRunStats {
  groupid: number;
  unified: 'none' | 'mixed' | 'both';
  kbBase: number;
  minRun: number[];
  maxRun: number[];
  minBw: number[];
  maxBw: number[];
  ioBytes: number[];
  /** Aggregate bytes/s: all the group's bytes over its longest runtime. */
  agg: number[];
}

function emptyGroup(groupid: number, entry: GroupEntry): GroupRunStats {
  return {
    groupid,
    unified: 'none',
    kbBase: entry.kbBase,
    minRun: [0, 0, 0], maxRun: [0, 0, 0],
    minBw: [Infinity, Infinity, Infinity], maxBw: [0, 0, 0],
    ioBytes: [0, 0, 0], agg: [0, 0, 0],
  };
}

function addEntry(rs: GroupRunStats, e: GroupEntry): void {
  rs.kbBase = e.kbBase;
  // stat.c ORs the entries' modes together; the jobs of a group normally share one.
  if (rs.unified === 'none') rs.unified = e.unified;
  for (let d = 0; d < 3; d++) {
    const runtime = e.runtimeMs[d] ?? 0;
    if (!runtime) continue;
    if (!rs.minRun[d] || runtime < rs.minRun[d]) rs.minRun[d] = runtime;
    rs.maxRun[d] = Math.max(rs.maxRun[d], runtime);
    const bw = mulDiv(e.ioBytes[d] ?? 0, 1000, runtime);
    rs.minBw[d] = Math.min(rs.minBw[d], bw);
    rs.maxBw[d] = Math.max(rs.maxBw[d], bw);
    rs.ioBytes[d] += e.ioBytes[d] ?? 0;
  }
}

/** One GroupRunStats per group id from 0 to the highest one, as fio allocates them. */
export function groupRunStats(entries: readonly GroupEntry[]): GroupRunStats[] {
  const last = entries.reduce((m, e) => Math.max(m, e.groupid), 0);
  const groups: GroupRunStats[] = [];
  for (let g = 0; g <= last; g++) {
    const first = entries.find((e) => e.groupid === g);
    groups.push(emptyGroup(g, first ?? { groupid: g, unified: 'none', kbBase: 1024, ioBytes: [], runtimeMs: [] }));
  }
  for (const e of entries) addEntry(groups[e.groupid], e);
  for (const rs of groups) {
    for (let d = 0; d < 3; d++) {
      if (rs.maxRun[d]) rs.agg[d] = mulDiv(rs.ioBytes[d], 1000, rs.maxRun[d]);
      if (rs.minBw[d] === Infinity) rs.minBw[d] = 0;
    }
  }
  return groups;
}

/**
 * bw_agg / "per=": a job's mean bw (KiB/s, truncated to an integer as stat.c passes it as an
 * int) against the group's aggregate, capped at 100; 100 when the aggregate is 1 KiB/s or less.
 */
export function percentOfAggregate(rs: GroupRunStats | undefined, dir: number, meanKiB: number): number {
  const agg = rs?.agg[dir] ?? 0;
  if (agg <= 1024) return 100;
  return Math.min(100, (Math.trunc(meanKiB) * 100) / (agg / 1024));
}
