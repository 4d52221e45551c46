/**
 * Which job instances make up each fio job entry. stat.c's __show_run_stats walks the threads
 * in order (a job's numjobs instances are consecutive) and starts a new entry unless the thread
 * has group_reporting and is in the same stonewall group as the one before: without it every
 * instance is an entry of its own (numjobs entries with the same name).
 */
import type { NativeJobResult } from '../engine/native-types.js';
import type { ReportJob } from './types.js';
import { addInstance, emptyThreadStat, type ThreadStat } from './thread-stat.js';

export interface Member {
  job: ReportJob;
  result: NativeJobResult;
}

export interface Entry {
  ts: ThreadStat;
  members: Member[];
}

export function collectEntries(jobs: readonly ReportJob[]): Entry[] {
  const entries: Entry[] = [];
  let current: Entry | undefined;
  let lastGroup = -1;
  for (const job of jobs) {
    for (const result of job.instances) {
      if (!current || !job.options.group_reporting || lastGroup !== job.groupid) {
        // The first member names the entry and fixes its units and unified mode.
        current = { ts: emptyThreadStat(job.jobname, job.groupid, job.options), members: [] };
        entries.push(current);
      }
      lastGroup = job.groupid;
      addInstance(current.ts, result, job.options, job.ownOptions);
      current.members.push({ job, result });
    }
  }
  return entries;
}
