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

const IN_ORDER = Symbol('volbench.inOrder');

/**
 * A section from a command line or a job file holds its options in the order fio applies them,
 * each size read with the kb_base given before it (a job file's kb_base is sorted first). A JSON
 * spec written by hand is read with its kb_base first wherever the key stands, as in a job
 * file; this hidden mark, which JSON does not carry, tells parseSpec the order is fio's.
 */
export function markInOrder(record: Record<string, RawOptionValue>): void {
  Object.defineProperty(record, IN_ORDER, { value: true, enumerable: false });
}

export function appliesInOrder(record: object): boolean {
  return (record as Record<symbol, unknown>)[IN_ORDER] === true;
}

/** The key a name shares with its aliases (`blocksize` and `bs` are one option). */
function optionKey(name: string): string {
  return findOption(name)?.name ?? name;
}

/**
 * A section's options as a record, being built. Last value wins; a repeated option keeps the
 * place (and the spelling) it first had, also when it is repeated under an alias. The key each
 * option went in under is kept beside the record: finding it again from the record's keys on
 * every section was quadratic in a file of many [global] sections (20,000 of them: 51 s).
 */
class OptionRecord {
  readonly values: Record<string, RawOptionValue> = {};
  private readonly keyOf = new Map<string, string>();

  set(name: string, value: RawOptionValue): void {
    const canonical = optionKey(name);
    const key = this.keyOf.get(canonical) ?? name;
    this.keyOf.set(canonical, key);
    this.values[key] = value;
  }

  setAll(entries: Iterable<readonly [string, RawOptionValue]>): this {
    for (const [name, value] of entries) this.set(name, value);
    return this;
  }
}

/** A job's record in fio's order of application: inherited globals, the file stonewall, its own. */
function jobRecord(section: Section, inherited: OptionRecord): Record<string, RawOptionValue> {
  const job = new OptionRecord();
  const header = section.header;
  const named = header !== undefined && !section.entries.some(([name]) => name === 'name');
  if (named) job.set('name', header);
  // A job's header names it even when a [global] sets name=, as in fio.
  job.setAll(Object.entries(inherited.values).filter(([k]) => header === undefined || k !== 'name'));
  if (section.stonewall) job.set('stonewall', true);
  // Its own options last, folded as they go in: first place and spelling, last value.
  job.setAll(section.entries);
  if (named) markHeaderName(job.values);
  markInOrder(job.values);
  return job.values;
}

export function sectionsToSpec(sections: ReadonlyArray<Section | ResetGlobals>): JobSpec {
  const foldAll = sections.some((s) => s.kind === 'reset');
  const spec: JobSpec = { jobs: [] };
  const leading = new OptionRecord();
  let inherited = new OptionRecord();
  let beforeFirstJob = !foldAll;
  for (const section of sections) {
    if (section.kind === 'reset') {
      inherited = new OptionRecord();
    } else if (section.kind === 'global') {
      (beforeFirstJob ? leading : inherited).setAll(section.entries);
    } else {
      beforeFirstJob = false;
      spec.jobs.push(jobRecord(section, inherited));
    }
  }
  if (Object.keys(leading.values).length) {
    markInOrder(leading.values);
    spec.global = leading.values;
  }
  return spec;
}
