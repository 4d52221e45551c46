/**
 * parseSpec: the JSON form (from JSON, a job file or the command line) to ParsedSpec. Each job
 * starts from the defaults, takes [global]'s options, then its own, in order, as fio applies a
 * job's options; a later option overrides an earlier one, and per-direction options keep the
 * directions they do not name from what came before.
 */
import { VolbenchError } from '../errors.js';
import type { JobOptions, JobSpec, ParsedJob, ParsedSpec, RawOptionValue } from './types.js';
import { checkJob, checkSection, type SectionValues } from './checks.js';
import { defaultOptions } from './defaults.js';
import { echoEntries, entryValue, readEntries, valueText, type Entry } from './entries.js';
import type { OptionContext } from './option-def.js';
import { jobSpecSchema } from './schema.js';
import { hasHeaderName } from './sections.js';
import type { KbBase } from './units.js';

function pathOf(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((out, key) =>
    typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key), '');
}

/** The shape check; the spec itself (not zod's copy) is returned, to keep its hidden marks. */
function validateShape(spec: unknown): JobSpec {
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

/** Apply one section's options in order on top of `base`; kb_base first, as fio sorts it. */
function applySection(entries: Entry[], base: Applied, jobName: string): Applied {
  const options = structuredClone(base.options);
  const applied: Applied = { options, kbBase: base.kbBase };
  const ctx = (entry: Entry): OptionContext => ({
    field: entry.field, kbBase: applied.kbBase, jobName, previous: options[entry.def.field],
  });
  const kbEntry = entries.find((e) => e.def.name === 'kb_base');
  if (kbEntry) applied.kbBase = entryValue(kbEntry, ctx(kbEntry)) as KbBase;
  const values: SectionValues = new Map();
  for (const entry of entries) {
    const value = entryValue(entry, ctx(entry));
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

function resolveJob(record: Record<string, RawOptionValue>, index: number, global: Entry[], globalApplied: Applied): ParsedJob {
  const scope = `jobs[${index}]`;
  const own = readEntries(record, scope);
  const name = jobNameOf(own, global, scope);
  // [global] is applied per job because a bare write_bw_log in it logs under each job's name.
  const inherited = applySection(global, globalApplied, name);
  const options = { ...applySection(own, inherited, name).options, name } as JobOptions;
  // fio uses a given randseed whatever randrepeat says (init.c fixup_options); in JobOptions
  // that is "repeatable, with this seed".
  if ([...own, ...global].some((e) => e.def.name === 'randseed')) options.randrepeat = true;
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
 * options" then, as `{}` when it held only bare flags).
 */
export function parseSpec(spec: unknown): ParsedSpec {
  const input = validateShape(spec);
  const global = input.global ? readEntries(input.global, 'global') : [];
  const start: Applied = { options: defaultOptions(), kbBase: 1024 };
  const jobs = input.jobs.map((record, i) => resolveJob(record, i, global, start));
  const hasGlobal = input.global !== undefined && Object.keys(input.global).length > 0;
  return { ...(hasGlobal ? { globalOptions: echoEntries(global) } : {}), jobs };
}
