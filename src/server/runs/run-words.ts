/**
 * A run in words, for its record (GET /v1/runs/{id}): what ran (its jobs, suite or analysis), on
 * which target, on which volume, and the directions its jobs do. Read through the library's own
 * rules (option names and aliases, fio's rw and rwmixread, the volume's words, the analyses'
 * defaults), so the web view shows what the engine does and has no second copy of them.
 */
import { parseSpec } from '../../jobspec/index.js';
import { directionsUsed } from '../../jobspec/directions.js';
import { findOption } from '../../jobspec/option-lookup.js';
import type { ParsedJob } from '../../jobspec/types.js';
import { describeSpec } from '../../cloud/volume.js';
import { DEFAULT_SWEEP_OVER } from '../../analysis/sweep.js';
import { DEFAULT_CHUNKS } from '../../analysis/uniformity.js';
import type { RunRow } from '../store/runs.js';

export type DataDirection = 'read' | 'write' | 'trim';

export interface RunWords {
  /** `rr: randread bs=4k iodepth=32 on /data (gp3 500 GiB, 6000 IOPS)`: the run page's title. */
  title: string;
  /** `rr: randread bs=4k iodepth=32`, `suite kdiskmark (8 tests)`, `sweep over iodepth of ...`. */
  what_ran: string;
  /** The paths the run names, else its target roots. */
  target_text: string;
  /** `gp3 500 GiB, 6000 IOPS on m6i.large`, or null without a volume. */
  volume_text: string | null;
  /** The directions its jobs do, in read, write, trim order. */
  directions: DataDirection[];
  /** Each job's, by name (a suite's test does some of the suite's directions). */
  job_directions: Record<string, DataDirection[]>;
}

const DIRECTIONS: readonly DataDirection[] = ['read', 'write', 'trim'];

/** An option as it was written for the job (its own section, else [global]), by any of its names. */
function written(job: ParsedJob, global: ReadonlyArray<[string, string]>, name: string): string | undefined {
  for (const options of [job.ownOptions, global]) {
    const found = options.find(([n]) => (findOption(n)?.name ?? n) === name);
    if (found) return found[1];
  }
  return undefined;
}

function jobText(job: ParsedJob, global: ReadonlyArray<[string, string]>): string {
  const o = job.options;
  const parts: string[] = [o.rw];
  const bs = written(job, global, 'bs');
  if (bs !== undefined) parts.push(`bs=${bs}`);
  if (o.iodepth !== 1) parts.push(`iodepth=${o.iodepth}`);
  if (o.numjobs !== 1) parts.push(`numjobs=${o.numjobs}`);
  return parts.join(' ');
}

function listText(items: readonly string[], shown: number): string {
  return items.length > shown ? `${items.slice(0, shown).join(', ')} and ${items.length - shown} more` : items.join(', ');
}

function whatRan(run: RunRow, jobs: readonly ParsedJob[], global: ReadonlyArray<[string, string]>): string {
  if (run.suite) return `suite ${run.suite.name} (${jobs.length} test${jobs.length === 1 ? '' : 's'})`;
  const a = run.analysis as Record<string, unknown> | null;
  const first = jobs.length ? jobText(jobs[0], global) : 'one job';
  if (a?.analysis === 'sweep') return `sweep over ${String(a.over ?? DEFAULT_SWEEP_OVER)} of ${first}`;
  if (a?.analysis === 'uniformity') return `uniformity${a.initialize ? ' (initialize)' : ''}: ${Number(a.chunks ?? DEFAULT_CHUNKS)} chunks, ${a.write ? 'write' : 'read'}`;
  if (a) return String(a.analysis);
  if (jobs.length === 1) return `${jobs[0].options.name}: ${first}`;
  return `${jobs.length} jobs: ${listText(jobs.map((j) => `${j.options.name} (${jobText(j, global)})`), 2)}`;
}

function targetText(run: RunRow, jobs: readonly ParsedJob[], global: ReadonlyArray<[string, string]>): string {
  const a = run.analysis as Record<string, unknown> | null;
  const named = run.suite ? [run.suite.filename ?? run.suite.directory]
    : typeof a?.filename === 'string' ? [a.filename]
      : jobs.map((j) => written(j, global, 'filename') ?? written(j, global, 'directory'));
  const paths = [...new Set(named.filter((p): p is string => typeof p === 'string'))];
  return listText(paths.length ? paths : run.roots, 1);
}

function volumeText(run: RunRow): string | null {
  const v = run.volume;
  if (!v) return null;
  const words = describeSpec({ type: v.type, sizeGiB: v.size_gib, iops: v.iops, throughputMiBps: v.throughput_mibps });
  return `${words}${v.instance ? ` on ${v.instance}` : ''}`;
}

/** An analysis that probes a device does its own directions, whatever the run it stores. */
function analysisDirections(run: RunRow): DataDirection[] | null {
  const a = run.analysis;
  if (a?.analysis === 'uniformity') return [(a as Record<string, unknown>).write ? 'write' : 'read'];
  if (a?.analysis === 'rotational') return ['read'];
  return null;
}

function jobDirections(run: RunRow, job: ParsedJob): DataDirection[] {
  const used = directionsUsed(job.options);
  return analysisDirections(run) ?? DIRECTIONS.filter((_, i) => used[i]);
}

/** The run's words; a stored spec the library no longer parses still gets its target and volume. */
export function runWords(run: RunRow): RunWords {
  let jobs: ParsedJob[] = [];
  let global: Array<[string, string]> = [];
  try {
    const parsed = parseSpec(run.spec);
    jobs = parsed.jobs;
    global = parsed.globalOptions ?? [];
  } catch {
    // Its words then name no job.
  }
  const what = whatRan(run, jobs, global);
  const target = targetText(run, jobs, global);
  const volume = volumeText(run);
  const job_directions = Object.fromEntries(jobs.map((j) => [j.options.name, jobDirections(run, j)]));
  const all = new Set(Object.values(job_directions).flat());
  return {
    title: `${what} on ${target}${volume ? ` (${volume})` : ''}`,
    what_ran: what,
    target_text: target,
    volume_text: volume,
    directions: analysisDirections(run) ?? DIRECTIONS.filter((d) => all.has(d)),
    job_directions,
  };
}
