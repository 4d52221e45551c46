/**
 * parseSpec: the JSON form (from JSON, a job file or the command line) to ParsedSpec. Each job
 * starts from the defaults, takes [global]'s options, then its own, in order, as fio applies a
 * job's options; a later option overrides an earlier one, and per-direction options keep the
 * directions they do not name from what came before.
 */
import { VolbenchError } from '../errors.js';
import type { JobOptions, JobSpec, ParsedJob, ParsedSpec, RawOptionValue } from './types.js';
import { checkSpecBounds } from './bounds.js';
import { checkJob, checkSection, type SectionValues } from './checks.js';
import { defaultOptions } from './defaults.js';
import { echoEntries, entryValue, readEntries, valueText, type Entry } from './entries.js';
import type { OptionContext } from './option-def.js';
import { jobSpecSchema } from './schema.js';
import { appliesInOrder, hasHeaderName } from './sections.js';
import type { KbBase } from './units.js';

function pathOf(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((out, key) =>
    typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key), '');
}

/** The shape check; the spec itself (not zod's copy) is returned, to keep its hidden marks. */
function validateShape(spec: unknown): JobSpec {
  checkSpecBounds(spec);
  const result = jobSpecSchema.safeParse(spec);
  if (result.success) return spec as JobSpec;
  const issue = result.error.issues[0];
  const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
  const field = keys.length ? pathOf([...issue.path, keys[0]]) : pathOf(issue.path) || 'spec';
  const message = keys.length ? `unknown key '${keys[0]}' (a spec has only global and jobs)` : issue.message;
  throw new VolbenchError('EINVALID_SPEC', `${field}: ${message}`, {
    field,
    accepted: '{ "global"?: { option: value }, "jobs": [{ option: value }, ...] } with at least one job; ' +
      'values are strings, numbers or booleans',
  });
}

interface Applied {
  options: Partial<JobOptions>;
  kbBase: KbBase;
}

/**
 * Apply one section's options in order onto `applied`, which it changes. Where the order is
 * fio's (`inOrder`: a command line, a job file), a size is read with the kb_base in force where
 * it stands, as fio reads it: `--bs=4k --kb_base=1000` keeps 4096 bytes, `--kb_base=1000
 * --bs=4k` makes 4000 (a job file's kb_base comes first whatever its line: fio sorts it there,
 * and so does parseJobFile). A JSON spec's kb_base applies to the whole section, as in a job
 * file. The values it replaces are not changed: parsers build new values from `previous`.
 */
function applySection(entries: Entry[], applied: Applied, jobName: string, inOrder: boolean): Applied {
  const options = applied.options;
  const ctx = (entry: Entry): OptionContext => ({
    field: entry.field, kbBase: applied.kbBase, jobName, previous: options[entry.def.field],
  });
  const kbEntry = inOrder ? undefined : entries.find((e) => e.def.name === 'kb_base');
  if (kbEntry) applied.kbBase = entryValue(kbEntry, ctx(kbEntry)) as KbBase;
  const values: SectionValues = new Map();
  for (const entry of entries) {
    const value = entryValue(entry, ctx(entry));
    if (entry.def.name === 'kb_base') applied.kbBase = value as KbBase;
    (options as Record<string, unknown>)[entry.def.field] = value;
    values.set(entry.def.name, { value, field: entry.field });
  }
  checkSection(values);
  return applied;
}

/** A job's name: its own, else [global]'s; fio has no nameless jobs. */
function jobNameOf(own: Entry[], global: Entry[], scope: string): string {
  const entry = own.find((e) => e.def.name === 'name') ?? global.find((e) => e.def.name === 'name');
  const text = entry ? valueText(entry) : undefined;
  if (!entry || text === undefined) {
    throw new VolbenchError('EINVALID_SPEC', `${scope} has no name`, { field: `${scope}.name`, accepted: 'a job name' });
  }
  return entry.def.parse(text, { field: entry.field, kbBase: 1024, jobName: '', previous: undefined }) as string;
}

/** [global] on the defaults, as each job inherits it: a shallow copy the job may change. */
type Inherit = (jobName: string) => Applied;

/**
 * [global] is parsed once, when the first job needs it (so errors keep their order), not once
 * per job: a spec of thousands of jobs under a large [global] parsed and copied it thousands of
 * times (4096 jobs under a 64-entry bssplit: a second). The values it sets are shared by the jobs,
 * as the defaults are. Only a bare write_bw_log (and friends) depends on the job, which logs under
 * its own name.
 */
function inheritFrom(global: Entry[], inOrder: boolean): Inherit {
  let applied: Applied | undefined;
  const bare = global.filter((e) => valueText(e) === undefined);
  return (jobName) => {
    if (applied === undefined) {
      const section = applySection(global, { options: defaultOptions(), kbBase: 1024 }, '', inOrder);
      // Copied once into a literal: built key by key, the options are a V8 dictionary object,
      // which costs ten times as much to copy for each job.
      applied = { options: { ...section.options }, kbBase: section.kbBase };
    }
    const options = { ...applied.options };
    for (const entry of bare) {
      const ctx: OptionContext = { field: entry.field, kbBase: applied.kbBase, jobName, previous: options[entry.def.field] };
      (options as Record<string, unknown>)[entry.def.field] = entryValue(entry, ctx);
    }
    return { options, kbBase: applied.kbBase };
  };
}

function resolveJob(record: Record<string, RawOptionValue>, index: number, global: Entry[], inherit: Inherit): ParsedJob {
  const scope = `jobs[${index}]`;
  const own = readEntries(record, scope);
  const name = jobNameOf(own, global, scope);
  const options = applySection(own, inherit(name), name, appliesInOrder(record)).options as JobOptions;
  options.name = name;
  checkJob(options, scope);
  const headerName = hasHeaderName(record);
  const fields = Object.fromEntries([...global, ...own].map((e) => [e.def.name, e.field]));
  return { ownOptions: echoEntries(own, (e) => headerName && e.def.name === 'name'), options, fields };
}

/**
 * Validate a spec and parse every job. Throws VolbenchError: EINVALID_SPEC for a wrong shape,
 * EUNKNOWN_OPTION / EUNSUPPORTED_OPTION for option names, EINVALID_VALUE / EUNSUPPORTED_OPTION
 * for values, EINVALID_PLAN for options that contradict each other.
 * `globalOptions` is present when the spec has a non-empty `global` (fio prints "global
 * options" then, as `{}` when it held only bare flags). The result is read-only: jobs share the
 * values they inherit (a per-direction `bs`, a `bssplit`) rather than each holding a copy.
 */
export function parseSpec(spec: unknown): ParsedSpec {
  const input = validateShape(spec);
  const global = input.global ? readEntries(input.global, 'global') : [];
  const inherit = inheritFrom(global, input.global !== undefined && appliesInOrder(input.global));
  const jobs = input.jobs.map((record, i) => resolveJob(record, i, global, inherit));
  const hasGlobal = input.global !== undefined && Object.keys(input.global).length > 0;
  return { ...(hasGlobal ? { globalOptions: echoEntries(global) } : {}), jobs };
}
