/**
 * Job files and command lines both come down to a run of sections, [global] or job, each a list
 * of options in the order fio applies them. This module folds such a run into the JSON form
 * (JobSpec) with fio's inheritance rules (init.c get_new_job, parse_options):
 *
 * - every job starts from the [global] options seen before it;
 * - [global] sections before the first job become `global`; one after a job changes only the
 *   jobs after it, so its options are folded into each of those jobs (own options win);
 * - a second job file starts from fio's defaults again (fio refills its global options per
 *   file), so when there is more than one file every job carries its own globals.
 */
import type { JobSpec, RawOptionValue } from './types.js';
import { findOption } from './option-lookup.js';

export type SectionValue = string | true;

export interface Section {
  kind: 'global' | 'job';
  /** The job's name from its `[header]` (job files); CLI jobs carry `name` as an option. */
  header?: string;
  /** Options in the order fio applies them; `true` is an option given without a value. */
  entries: Array<[name: string, value: SectionValue]>;
  /** First job of a second or later job file: fio puts a stonewall before it. */
  stonewall?: boolean;
}

/** A marker between job files: fio starts the next file from its default global options. */
export interface ResetGlobals {
  kind: 'reset';
}

const HEADER_NAME = Symbol('volbench.headerName');

/**
 * fio names a job-file job after its section header without echoing that name in "job
 * options" (only a `name=` line is echoed). The JSON form still carries `name`; this hidden
 * mark tells parseSpec not to echo it. It does not survive JSON serialisation, by design: in
 * JSON the name is an option like the others.
 */
export function markHeaderName(job: Record<string, RawOptionValue>): void {
  Object.defineProperty(job, HEADER_NAME, { value: true, enumerable: false });
}

export function hasHeaderName(job: object): boolean {
  return (job as Record<symbol, unknown>)[HEADER_NAME] === true;
}

/** The key a name shares with its aliases (`blocksize` and `bs` are one option). */
function optionKey(name: string): string {
  return findOption(name)?.name ?? name;
}

/**
 * Last value wins; a repeated option keeps the place (and the spelling) it first had, also
 * when it is repeated under an alias.
 */
type OptionRecord = Record<string, RawOptionValue>;

function toRecord(entries: ReadonlyArray<[string, RawOptionValue]>, into: OptionRecord = {}): OptionRecord {
  const keyOf = new Map(Object.keys(into).map((k) => [optionKey(k), k]));
  for (const [name, value] of entries) {
    const key = keyOf.get(optionKey(name)) ?? name;
    keyOf.set(optionKey(name), key);
    into[key] = value;
  }
  return into;
}

/** A job's record in fio's order of application: inherited globals, the file stonewall, its own. */
function jobRecord(section: Section, inherited: Record<string, RawOptionValue>): Record<string, RawOptionValue> {
  const own = toRecord(section.entries);
  const job: Record<string, RawOptionValue> = {};
  const header = section.header;
  const named = header !== undefined && !Object.hasOwn(own, 'name');
  if (named) job.name = header;
  // A job's header names it even when a [global] sets name=, as in fio.
  toRecord(Object.entries(inherited).filter(([k]) => header === undefined || k !== 'name'), job);
  if (section.stonewall) toRecord([['stonewall', true]], job);
  toRecord(Object.entries(own), job);
  if (named) markHeaderName(job);
  return job;
}

export function sectionsToSpec(sections: ReadonlyArray<Section | ResetGlobals>): JobSpec {
  const foldAll = sections.some((s) => s.kind === 'reset');
  const spec: JobSpec = { jobs: [] };
  const leading: Record<string, RawOptionValue> = {};
  let inherited: Record<string, RawOptionValue> = {};
  let beforeFirstJob = !foldAll;
  for (const section of sections) {
    if (section.kind === 'reset') {
      inherited = {};
    } else if (section.kind === 'global') {
      toRecord(section.entries, beforeFirstJob ? leading : inherited);
    } else {
      beforeFirstJob = false;
      spec.jobs.push(jobRecord(section, inherited));
    }
  }
  if (Object.keys(leading).length) spec.global = leading;
  return spec;
}
