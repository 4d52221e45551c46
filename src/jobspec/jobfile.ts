/**
 * fio's job file format (init.c __parse_jobs_ini): `[section]` headers, `key=value` lines and
 * bare flags, comments, `${VAR}` and `$ncpus` substitutions. The result is the JSON form
 * (JobSpec), with each section's options in the order fio applies them.
 */
import { VolbenchError } from '../errors.js';
import type { JobSpec } from './types.js';
import { expandEnv, expandKeywords, type Env } from './expand.js';
import { findOption, optionNameError } from './option-lookup.js';
import { MAX_INSTANCES } from './options.js';
import { sectionsToSpec, type Section } from './sections.js';

/** fio reads section names with `%255[^\n]`. */
const MAX_SECTION_NAME = 255;

/**
 * The service's body limit. Job files are a few KiB; 1 MiB holds fio's 4096 jobs with a dozen
 * options each. A bound on the whole keeps a hostile file's cost small, however it is built.
 */
export const MAX_JOB_FILE_LENGTH = 1024 * 1024;

/** fio reads a job file a line at a time into a buffer of OPT_LEN_MAX (8192) bytes. */
export const MAX_LINE_LENGTH = 8192;

const SECTION_ACCEPTED = "a '[name]' section header, a name of 1 to 255 characters";
const LINE_ACCEPTED = "a '[section]' header, 'option=value' or a bare 'option', or a comment (# or ;)";

function jobFileError(line: number, message: string, accepted: string, field = `line ${line}`): VolbenchError {
  return new VolbenchError('EJOBFILE', `line ${line}: ${message}`, { field, accepted });
}

function checkLength(text: string): void {
  if (text.length <= MAX_JOB_FILE_LENGTH) return;
  throw new VolbenchError('EJOBFILE', `the job file is ${text.length} characters long, more than ${MAX_JOB_FILE_LENGTH}`, {
    field: 'jobfile',
    accepted: `a job file of at most ${MAX_JOB_FILE_LENGTH} characters (1 MiB)`,
  });
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
  if (!line.endsWith(']')) throw jobFileError(lineNo, `section header '${line}' does not end with ']'`, SECTION_ACCEPTED);
  const name = line.slice(1, -1);
  if (name === '') throw jobFileError(lineNo, 'section header has no name', SECTION_ACCEPTED);
  if (name.length > MAX_SECTION_NAME) throw jobFileError(lineNo, `section name is longer than ${MAX_SECTION_NAME} characters`, SECTION_ACCEPTED);
  // fio takes every section whose name starts with "global" as a [global] section.
  return name.startsWith('global') ? { kind: 'global', entries: [] } : { kind: 'job', header: name, entries: [] };
}

interface LineContext {
  env: Env;
  lineNo: number;
  scope: string;
}

/**
 * The option a line names, refused at once when volbench does not take it, as on the command
 * line. parseSpec would refuse it too, but later: a file of thousands of distinct unknown names
 * in a [global] after a job made every later job copy them all (95 KB took 29 s, 400 KB ran the
 * process out of memory). Known names keep every section's record to a hundred keys at most.
 */
function checkOptionName(name: string, ctx: LineContext): void {
  if (findOption(name) !== undefined) return;
  const err = optionNameError(name, ctx.scope);
  throw new VolbenchError(err.code, `line ${ctx.lineNo}: ${err.message}`, { field: err.field, accepted: err.accepted });
}

function parseOptionLine(line: string, ctx: LineContext): [string, string | true] {
  const eq = line.indexOf('=');
  const rawName = (eq < 0 ? line : line.slice(0, eq)).trim();
  const expandCtx = { env: ctx.env, line: ctx.lineNo, field: `${ctx.scope}.${rawName}` };
  const name = expandEnv(rawName, expandCtx);
  checkOptionName(name, ctx);
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

function checkLine(raw: string, lineNo: number): void {
  if (raw.length <= MAX_LINE_LENGTH) return;
  throw jobFileError(lineNo, `the line is ${raw.length} characters long, more than ${MAX_LINE_LENGTH}`,
    `${LINE_ACCEPTED}, at most ${MAX_LINE_LENGTH} characters (fio's line buffer)`);
}

function checkJobCount(jobs: number, lineNo: number): void {
  if (jobs <= MAX_INSTANCES) return;
  throw jobFileError(lineNo, `the job file defines more than ${MAX_INSTANCES} jobs`,
    `at most ${MAX_INSTANCES} jobs, as fio (MAX_JOBS)`);
}

/** The sections of a job file, in file order, each with its options in fio's order. */
export function parseJobFileSections(text: string, env: Env = process.env): Section[] {
  checkLength(text);
  const sections: Section[] = [];
  let jobs = 0;
  text.split('\n').forEach((raw, index) => {
    const lineNo = index + 1;
    checkLine(raw, lineNo);
    const line = stripComment(raw);
    if (line === '') return;
    if (line.startsWith('[')) {
      const section = parseHeader(line, lineNo);
      if (section.kind === 'job') checkJobCount(++jobs, lineNo);
      sections.push(section);
      return;
    }
    const current = sections[sections.length - 1];
    if (!current) throw jobFileError(lineNo, `option '${line}' is outside of any [section]`, LINE_ACCEPTED);
    if (/^include(\s|$)/.test(line)) {
      throw new VolbenchError('EUNSUPPORTED_OPTION', `line ${lineNo}: job file 'include' is not supported by volbench yet`,
        { field: `line ${lineNo}`, accepted: 'the job file\'s own sections and options' });
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
  if (spec.jobs.length === 0) {
    throw new VolbenchError('EJOBFILE', 'the job file defines no jobs (only [global] sections)',
      { field: 'jobfile', accepted: 'at least one job section besides [global]' });
  }
  return spec;
}
