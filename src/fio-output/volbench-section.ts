/**
 * The `"volbench"` key: what fio's JSON has no room for. Target identity (which EBS volume,
 * which device model), the engine that really ran, cancellation, and the time series, with one
 * job entry per fio job entry in the same order; and the jobs that ran as a fio job file.
 */
import { directionsUsed } from '../jobspec/directions.js';
import type { RunReportInput, TargetIdentity } from './types.js';
import { VOLBENCH_SCHEMA_VERSION, type VolbenchJob, type VolbenchSection, type VolbenchTarget } from './fio-result.js';
import type { Entry } from './entries.js';
import { mergeSeries, seriesJson } from './series.js';

export function targetJson(t: TargetIdentity): VolbenchTarget {
  return {
    path: t.path,
    device: t.device,
    disk: t.disk,
    model: t.model,
    serial: t.serial,
    ebs_volume_id: t.ebsVolumeId,
    vendor: t.vendor,
    size_bytes: t.sizeBytes,
    logical_block_size: t.logicalBlockSize,
    physical_block_size: t.physicalBlockSize,
    rotational: t.rotational,
    scheduler: t.scheduler,
    filesystem: t.filesystem,
    mount_point: t.mountPoint,
    is_block_device: t.isBlockDevice,
    kernel: t.kernel,
  };
}

/** A direction is in the series when a member's workload issues it or any I/O went that way. */
function seriesDirections(entry: Entry): boolean[] {
  const dirs = [false, false, false];
  for (const { job, result } of entry.members) {
    const byRw = directionsUsed(job.options);
    result.dirs.forEach((d, i) => (dirs[i] ||= byRw[i] || d.totalIos > 0));
  }
  return dirs;
}

/** The files the entry's instances laid out, each once. */
function laidOut(entry: Entry): VolbenchJob['laid_out'] {
  const byPath = new Map<string, { path: string; from_bytes: number; to_bytes: number }>();
  for (const { job, result } of entry.members) {
    for (const note of job.layouts?.[result.instance] ?? []) {
      if (!byPath.has(note.path)) byPath.set(note.path, { path: note.path, from_bytes: note.fromBytes, to_bytes: note.toBytes });
    }
  }
  return byPath.size === 0 ? undefined : [...byPath.values()];
}

function jobSection(entry: Entry): VolbenchJob {
  const results = entry.members.map((m) => m.result);
  const engines = [...new Set(results.map((r) => r.engine))];
  const laid = laidOut(entry);
  const notes = [...new Set(entry.members.flatMap((m) => m.job.notes ?? []))];
  const stuck = results.reduce((n, r) => n + r.stuckIos, 0);
  return {
    jobname: entry.ts.name,
    groupid: entry.ts.groupid,
    engine: engines.join(','),
    target: entry.members[0]?.job.targetIndex ?? 0,
    cancelled: results.some((r) => r.cancelled),
    ...(stuck ? { stuck_ios: stuck } : {}),
    buffers: {
      bytes: results.reduce((n, r) => n + r.bufferBytes, 0),
      huge_page_bytes: results.reduce((n, r) => n + r.hugePageBytes, 0),
      registered: results.some((r) => r.registeredBuffers),
    },
    registered_files: results.some((r) => r.registeredFiles),
    error_message: results.find((r) => r.errorMessage)?.errorMessage ?? '',
    error_syscall: results.find((r) => r.errorMessage)?.errorSyscall ?? '',
    members: entry.ts.members,
    tid: results[0]?.tid ?? 0,
    runtime_ns: results.reduce((m, r) => Math.max(m, r.runtimeNs), 0),
    series: seriesJson(mergeSeries(results.map((r) => r.series ?? [])), seriesDirections(entry)),
    ...(laid ? { laid_out: laid } : {}),
    ...(notes.length ? { notes } : {}),
  };
}

export function volbenchSection(input: RunReportInput, entries: readonly Entry[]): VolbenchSection {
  return {
    version: input.volbenchVersion,
    schema_version: VOLBENCH_SCHEMA_VERSION,
    kernel: input.targets[0]?.kernel ?? '',
    targets: input.targets.map(targetJson),
    jobs: entries.map(jobSection),
    ...(input.jobFile === undefined ? {} : { job_file: input.jobFile }),
  };
}
