/**
 * The report's inputs as drafts of rows: one per volume of each document (a job file under
 * --directory is a target per job, but one volume), with its tests by job name, the group it
 * belongs in (its suite, else its set of job names), and its result read through the schema.
 */
import type { FioJson } from '../fio-output/fio-result.js';
import type { TestEntry } from './cells.js';
import { readResult, type ReadResult } from './read-result.js';
import { namedSuites, suiteOf } from './suite-columns.js';

/** A document to report on, or a run that ended without one. */
export interface ReportInput {
  /** Where it came from: a file name, a URL, a run id. */
  source: string;
  result?: FioJson | null;
  /** The run's status when it is known (a service's run); a result implies finished. */
  status?: string;
  error?: string | null;
  /** The suite of a run without a result, so it lands in its suite's table. */
  suite?: string | null;
  /** The job names of a run without a result (from its spec), for the same reason. */
  jobNames?: readonly string[];
  /** What is known of the volume of a run without a result (`volbench.cloud`'s shape): its row still names it and its price. */
  cloud?: unknown;
  /** The row's label, over the volume's or the target's (`report --label`). */
  label?: string;
}

/**
 * Which volume a target is on: a job file under --directory is a target of its own per job,
 * but all of them are one volume, so they make one row.
 */
function volumeKey(doc: FioJson, target: number): string {
  const t = doc.volbench?.targets?.[target];
  if (!t) return `target ${target}`;
  return t.ebs_volume_id ?? t.disk ?? t.device ?? t.mount_point ?? t.path;
}

interface VolumeTests {
  /** The first target index on the volume (the one `volbench.cloud` is read for). */
  target: number;
  key: string;
  tests: Map<string, TestEntry>;
  /** The paths of the volume's targets, in the order first used. */
  paths: string[];
}

/** One path, or the directory several share (a suite's files under --directory). */
function targetPathOf(paths: readonly string[]): string | undefined {
  if (paths.length <= 1) return paths[0];
  const split = paths.map((p) => p.split('/'));
  const common: string[] = [];
  for (let i = 0; split.every((parts) => i < parts.length - 1 && parts[i] === split[0][i]); i++) common.push(split[0][i]);
  return common.length > 1 || common[0] === '' ? common.join('/') || '/' : paths[0];
}

/** One document's tests, by volume and job name, in the document's order. */
function testsByVolume(doc: FioJson): VolumeTests[] {
  const out = new Map<string, VolumeTests>();
  doc.jobs.forEach((job, i) => {
    const vb = doc.volbench?.jobs?.[i];
    const target = typeof vb?.target === 'number' ? vb.target : 0;
    const key = volumeKey(doc, target);
    const volume = out.get(key) ?? { target, key, tests: new Map<string, TestEntry>(), paths: [] };
    out.set(key, volume);
    const path = doc.volbench?.targets?.[target]?.path;
    if (typeof path === 'string' && !volume.paths.includes(path)) volume.paths.push(path);
    const name = String(job.jobname);
    const entry = volume.tests.get(name) ?? { jobs: [], vb: [] };
    volume.tests.set(name, entry);
    entry.jobs.push(job);
    entry.vb.push(vb);
  });
  return [...out.values()];
}

export interface Draft {
  input: ReportInput;
  /** The input's result, read through the result schema; null without one (or one the schema refused: `error` says why). */
  doc: ReadResult | null;
  error: string | null;
  target: number;
  volume: string;
  tests: Map<string, TestEntry>;
  groupKey: string;
  suite: string | null;
  /** Where the row's jobs ran: one target's path, or the directory its targets share. */
  targetPath?: string;
}

/** The input's result through the schema: a document it refuses is a row that failed, saying why. */
function docOf(input: ReportInput): { doc: ReadResult | null; error: string | null } {
  if (!input.result) return { doc: null, error: input.error ?? null };
  try {
    return { doc: readResult(input.result, input.source), error: input.error ?? null };
  } catch (err) {
    return { doc: null, error: (err as Error).message };
  }
}

export function draftsOf(input: ReportInput): Draft[] {
  const { doc, error } = docOf(input);
  const declared = doc?.volbench?.suite?.name ?? input.suite ?? undefined;
  if (!doc) {
    const names = input.jobNames ?? input.result?.jobs?.map((j) => String(j.jobname)) ?? [];
    const suite = suiteOf(declared, names);
    const known = suite !== null && Object.hasOwn(namedSuites(), suite);
    const groupKey = known ? `suite:${suite}` : names.length ? `jobs:${names.join('\n')}` : 'none';
    return [{ input, doc, error, target: 0, volume: '', tests: new Map(), groupKey, suite: known ? suite : null }];
  }
  const volumes = testsByVolume(doc);
  if (volumes.length === 0) volumes.push({ target: 0, key: '', tests: new Map(), paths: [] });
  return volumes.map(({ target, key: volume, tests, paths }) => {
    const suite = suiteOf(declared, [...tests.keys()]);
    const known = suite !== null && Object.hasOwn(namedSuites(), suite);
    const groupKey = known ? `suite:${suite}` : `jobs:${[...tests.keys()].join('\n')}`;
    return { input, doc, error, target, volume, tests, suite: known ? suite : null, groupKey, targetPath: targetPathOf(paths) };
  });
}

