/**
 * fio's job file format (init.c __parse_jobs_ini): `[section]` headers, `key=value` lines and
 * bare flags, comments, `${VAR}` and `$ncpus` substitutions. The result is the JSON form
 * (JobSpec), with each section's options in the order fio applies them.
 */
import { VolbenchError } from '../errors.js';
import type { JobSpec } from './types.js';
import { expandEnv, expandKeywords, type Env } from './expand.js';
import { findOption } from './option-lookup.js';
import { sectionsToSpec, type Section } from './sections.js';

/** fio reads section names with `%255[^\n]`. */
const MAX_SECTION_NAME = 255;

function jobFileError(line: number, message: string, details: { field?: string; accepted?: string } = {}): VolbenchError {
  return new VolbenchError('EJOBFILE', `line ${line}: ${message}`, details);
}

/**
 * fio's strip_blank_end cuts a line at its first ';' and at its first '#', wherever they are,
 * so `bs=4k # comment` is `bs=4k` and a value can hold neither character.
 */
export function stripComment(line: string): string {
  let out = line;
  const semicolon = out.indexOf(';');
  if (semicolon >= 0) out = out.slice(0, semicolon);
  const hash = out.indexOf('#');
  if (hash >= 0) out = out.slice(0, hash);
  return out.trim();
}

function parseHeader(line: string, lineNo: number): Section {
  if (!line.endsWith(']')) throw jobFileError(lineNo, `section header '${line}' does not end with ']'`);
  const name = line.slice(1, -1);
  if (name === '') throw jobFileError(lineNo, 'section header has no name');
  if (name.length > MAX_SECTION_NAME) throw jobFileError(lineNo, `section name is longer than ${MAX_SECTION_NAME} characters`);
  // fio takes every section whose name starts with "global" as a [global] section.
  return name.startsWith('global') ? { kind: 'global', entries: [] } : { kind: 'job', header: name, entries: [] };
}

interface LineContext {
  env: Env;
  lineNo: number;
  scope: string;
}

function parseOptionLine(line: string, ctx: LineContext): [string, string | true] {
  const eq = line.indexOf('=');
  const rawName = (eq < 0 ? line : line.slice(0, eq)).trim();
  const expandCtx = { env: ctx.env, line: ctx.lineNo, field: `${ctx.scope}.${rawName}` };
  const name = expandEnv(rawName, expandCtx);
  if (eq < 0) return [name, true];
  // fio keeps blanks after '=' in the value it echoes (" 4"); volbench trims them.
  const value = expandEnv(line.slice(eq + 1), expandCtx).trim();
  return [name, expandKeywords(name, value, expandCtx)];
}

/**
 * fio sorts a section's options by priority before applying them (parse.c sort_options, a
 * stable sort): kb_base (prio 1) first, filename (prio -1) last; ioengine options are parsed in
 * a second pass, after all others. The echo follows the same order.
 */
function sortByPriority(entries: Section['entries']): Section['entries'] {
  const rank = ([name]: [string, unknown]): number => {
    const def = findOption(name);
    return def ? (def.engine ? 1000 : 0) - def.prio : 0;
  };
  return [...entries].sort((a, b) => rank(a) - rank(b));
}

/** The sections of a job file, in file order, each with its options in fio's order. */
export function parseJobFileSections(text: string, env: Env = process.env): Section[] {
  const sections: Section[] = [];
  let jobs = 0;
  text.split('\n').forEach((raw, index) => {
    const lineNo = index + 1;
    const line = stripComment(raw);
    if (line === '') return;
    if (line.startsWith('[')) {
      const section = parseHeader(line, lineNo);
      if (section.kind === 'job') jobs++;
      sections.push(section);
      return;
    }
    const current = sections[sections.length - 1];
    if (!current) throw jobFileError(lineNo, `option '${line}' is outside of any [section]`);
    if (/^include(\s|$)/.test(line)) {
      throw new VolbenchError('EUNSUPPORTED_OPTION', `line ${lineNo}: job file 'include' is not supported by volbench yet`, {});
    }
    const scope = current.kind === 'global' ? 'global' : `jobs[${jobs - 1}]`;
    current.entries.push(parseOptionLine(line, { env, lineNo, scope }));
  });
  for (const section of sections) section.entries = sortByPriority(section.entries);
  return sections;
}

/**
 * Parse a fio job file into the JSON form. A job's section name is its `name` unless it sets
 * `name=`; bare flags become `true`; a [global] section after jobs applies to the jobs after it.
 * `env` defaults to process.env (fio reads its own environment).
 */
export function parseJobFile(text: string, env?: Record<string, string | undefined>): JobSpec {
  const spec = sectionsToSpec(parseJobFileSections(text, env ?? process.env));
  if (spec.jobs.length === 0) throw new VolbenchError('EJOBFILE', 'the job file defines no jobs (only [global] sections)', {});
  return spec;
}
