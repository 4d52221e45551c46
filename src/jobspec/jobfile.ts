/**
 * fio's job file format (init.c __parse_jobs_ini): `[section]` headers, `key=value` lines and
 * bare flags, comments, `${VAR}` and `$ncpus` substitutions. The result is the JSON form
 * (JobSpec), with each section's options in the order fio applies them.
 */
import { VolbenchError } from '../errors.js';
import type { JobSpec } from './types.js';
import { jobLimitError, type SpecBounds } from './bounds.js';
import { expandEnv, expandKeywords, type Env } from './expand.js';
import type { OptionDef } from './option-def.js';
import { findOption, optionNameError } from './option-lookup.js';
import { MAX_INSTANCES } from './options.js';
import { sectionsToSpec, type Section } from './sections.js';
import { MAX_JOB_FILE_LENGTH, MAX_INCLUDE_DEPTH, type IncludeReader } from './include.js';

export { MAX_JOB_FILE_LENGTH } from './include.js';

/** fio reads section names with `%255[^\n]`. */
const MAX_SECTION_NAME = 255;

/*
 * MAX_JOB_FILE_LENGTH (include.ts) is the service's body limit. Job files are a few KiB; 1 MiB
 * holds fio's 4096 jobs with a dozen options each. A bound on the whole keeps a hostile file's
 * cost small, however it is built.
 */

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
  /** `global` or `jobs[2]`: where the line's option goes in the spec. */
  scope: string;
}

/**
 * The option a line names, refused at once when volbench does not take it, as on the command
 * line. parseSpec would refuse it too, but later: a file of thousands of distinct unknown names
 * in a [global] after a job made every later job copy them all (95 KB took 29 s, 400 KB ran the
 * process out of memory). Known names keep every section's record to a hundred keys at most.
 */
function checkOptionName(name: string, ctx: LineContext): OptionDef {
  const def = findOption(name);
  if (def !== undefined) return def;
  const err = optionNameError(name, ctx.scope);
  throw new VolbenchError(err.code, `line ${ctx.lineNo}: ${err.message}`, { field: err.field, accepted: err.accepted });
}

/** `${VAR}` and fio's keywords all start with '$': a line without one is taken as written. */
function expanded(text: string, ctx: LineContext, rawName: string): string {
  if (!text.includes('$')) return text;
  return expandEnv(text, { env: ctx.env, line: ctx.lineNo, field: `${ctx.scope}.${rawName}` });
}

interface OptionLine {
  name: string;
  value: string | true;
  def: OptionDef;
}

function parseOptionLine(line: string, ctx: LineContext): OptionLine {
  const eq = line.indexOf('=');
  const rawName = (eq < 0 ? line : line.slice(0, eq)).trim();
  const name = expanded(rawName, ctx, rawName);
  const def = checkOptionName(name, ctx);
  if (eq < 0) return { name, value: true, def };
  // fio keeps blanks after '=' in the value it echoes (" 4"); volbench trims them.
  const value = expanded(line.slice(eq + 1), ctx, rawName).trim();
  if (!value.includes('$')) return { name, value, def };
  return { name, value: expandKeywords(name, value, { env: ctx.env, line: ctx.lineNo, field: `${ctx.scope}.${rawName}` }), def };
}

/** Options before the ioengine's, kb_base (prio 1) before the rest, filename (prio -1) last. */
function priorityRank(def: OptionDef): number {
  return (def.engine ? 1000 : 0) - def.prio;
}

function checkLine(raw: string, lineNo: number): void {
  if (raw.length <= MAX_LINE_LENGTH) return;
  throw jobFileError(lineNo, `the line is ${raw.length} characters long, more than ${MAX_LINE_LENGTH}`,
    `${LINE_ACCEPTED}, at most ${MAX_LINE_LENGTH} characters (fio's line buffer)`);
}

/**
 * Sections in one file: fio's 4096 jobs, each after a [global] of its own. More [global]
 * sections than that change nothing a file could not say with fewer, and each costs its keep.
 */
export const MAX_SECTIONS = 2 * MAX_INSTANCES;

function checkSectionCount(sections: number, jobs: number, lineNo: number, bounds: SpecBounds): void {
  if (bounds.maxJobs !== undefined && jobs > bounds.maxJobs) throw jobLimitError(bounds.maxJobs, `line ${lineNo}`, 'the job file');
  if (jobs > MAX_INSTANCES) {
    throw jobFileError(lineNo, `the job file defines more than ${MAX_INSTANCES} jobs`, `at most ${MAX_INSTANCES} jobs, as fio (MAX_JOBS)`);
  }
  if (sections > MAX_SECTIONS) {
    throw jobFileError(lineNo, `the job file has more than ${MAX_SECTIONS} sections`,
      `at most ${MAX_SECTIONS} sections: fio's ${MAX_INSTANCES} jobs, each after a [global] of its own`);
  }
}

/** Where a job file came from, for what only a file read from disk can do. */
export interface JobFileSource {
  /** Job sections to read (fio's --section); [global] sections always are. Undefined: all. */
  sections?: ReadonlySet<string>;
  /** Reads the files `include` lines name; without one, an include is refused. */
  includes?: IncludeReader;
  /** The job file's path, what its includes are relative to (undefined: stdin). */
  path?: string;
}

function isInclude(line: string): boolean {
  return line.startsWith('include') && /^include(\s|$)/.test(line);
}

const INCLUDE_ACCEPTED = `'include FILE' inside a section, in a job file read from disk (volbench run FILE), ` +
  `FILE relative to the job file's directory, at most ${MAX_INCLUDE_DEPTH} deep, no [section] in it`;

/**
 * fio's `include FILE` inside a section: the file's option lines join the section, and may
 * include further files; a section header in one is refused, as fio refuses it. A job file
 * posted as text (the service) has no directory to include from.
 */
function includeInto(reader: SectionReader, line: string, ctx: LineContext, source: JobFileSource, from: string | undefined): void {
  const name = line.slice('include'.length).trim();
  const at = `line ${ctx.lineNo}`;
  if (!source.includes) {
    throw new VolbenchError('EUNSUPPORTED_OPTION', `${at}: 'include' works only in a job file read from disk`, { field: at, accepted: INCLUDE_ACCEPTED });
  }
  if (name === '') throw jobFileError(ctx.lineNo, "'include' names no file", INCLUDE_ACCEPTED);
  let file;
  try {
    file = source.includes.read(name, from);
  } catch (err) {
    if (!(err instanceof VolbenchError)) throw err;
    throw new VolbenchError(err.code, `${at}: ${err.message}`, { field: `${at} include ${name}`, ...(err.accepted ? { accepted: err.accepted } : {}), cause: err });
  }
  const outer = ctx.lineNo;
  try {
    forEachLine(file.text, (raw, lineNo) => {
      const text = stripComment(raw);
      if (text === '') return;
      ctx.lineNo = lineNo;
      if (text.startsWith('[')) throw jobFileError(lineNo, `no new sections in included files ('${text}')`, INCLUDE_ACCEPTED);
      if (isInclude(text)) includeInto(reader, text, ctx, source, file.path);
      else reader.add(parseOptionLine(text, ctx));
    });
  } catch (err) {
    if (!(err instanceof VolbenchError)) throw err;
    throw new VolbenchError(err.code, `${at}: include ${file.path}: ${err.message}`, { field: `${at} include ${file.path}`, ...(err.accepted ? { accepted: err.accepted } : {}), cause: err });
  } finally {
    ctx.lineNo = outer;
    source.includes.leave();
  }
}

/** `fn(raw line, line number)` for each line, each checked for length as fio's line buffer. */
function forEachLine(text: string, fn: (raw: string, lineNo: number) => void): void {
  for (let start = 0, lineNo = 1; start <= text.length; lineNo++) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    const raw = text.slice(start, end);
    start = end + 1;
    checkLine(raw, lineNo);
    fn(raw, lineNo);
  }
}

/**
 * A section's options, one entry per option: a repeat (under any alias) replaces the value where
 * the option first was, as sectionsToSpec would later. Folding as the lines are read keeps a
 * section to a hundred entries however many lines repeat one, so a file of a million lines
 * leaves nothing behind but short-lived strings.
 */
class SectionReader {
  private readonly firstAt = new Map<string, number>();
  private readonly ranks: number[] = [];

  constructor(readonly section: Section) {}

  add({ name, value, def }: OptionLine): void {
    const at = this.firstAt.get(def.name);
    const entries = this.section.entries;
    if (at === undefined) {
      this.firstAt.set(def.name, entries.length);
      entries.push([name, value]);
      this.ranks.push(priorityRank(def));
    } else {
      entries[at] = [entries[at][0], value];
    }
  }

  /**
   * fio sorts a section's options by priority before applying them (parse.c sort_options, a
   * stable sort): kb_base (prio 1) first, filename (prio -1) last; ioengine options are parsed
   * in a second pass, after all others. The echo follows the same order.
   */
  sortByPriority(): void {
    const { entries } = this.section;
    const ranks = this.ranks;
    if (ranks.every((rank) => rank === ranks[0])) return;
    const order = entries.map((_, i) => i).sort((a, b) => ranks[a] - ranks[b]);
    this.section.entries = order.map((i) => entries[i]);
  }
}

/**
 * The sections of a job file, in file order, each with its options in fio's order (a repeated
 * option once, in its first place, with its last value). With `source.sections`, the lines of
 * other job sections are skipped unread, as fio skips them.
 */
export function parseJobFileSections(text: string, env: Env = process.env, bounds: SpecBounds = {}, source: JobFileSource = {}): Section[] {
  checkLength(text);
  const sections: Section[] = [];
  let reader: SectionReader | undefined;
  let skipping = false;
  let jobs = 0;
  // One context for the whole file, updated line by line: a file is up to a million lines.
  const ctx: LineContext = { env, lineNo: 0, scope: 'global' };
  forEachLine(text, (raw, lineNo) => {
    const line = stripComment(raw);
    if (line === '') return;
    if (line.startsWith('[')) {
      reader?.sortByPriority();
      const section = parseHeader(line, lineNo);
      skipping = section.kind === 'job' && source.sections !== undefined && !source.sections.has(section.header!);
      reader = undefined;
      if (skipping) return;
      if (section.kind === 'job') jobs++;
      sections.push(section);
      checkSectionCount(sections.length, jobs, lineNo, bounds);
      reader = new SectionReader(section);
      ctx.scope = section.kind === 'global' ? 'global' : `jobs[${jobs - 1}]`;
      return;
    }
    if (skipping) return;
    if (!reader) throw jobFileError(lineNo, `option '${line}' is outside of any [section]`, LINE_ACCEPTED);
    ctx.lineNo = lineNo;
    if (isInclude(line)) includeInto(reader, line, ctx, source, source.path);
    else reader.add(parseOptionLine(line, ctx));
  });
  reader?.sortByPriority();
  return sections;
}

/**
 * Parse a fio job file into the JSON form. A job's section name is its `name` unless it sets
 * `name=`; bare flags become `true`; a [global] section after jobs applies to the jobs after it.
 * `env` defaults to process.env (fio reads its own environment). `bounds.maxJobs` refuses a file
 * of more jobs than the caller will run (ELIMIT_EXCEEDED) as soon as its header is read.
 */
export function parseJobFile(text: string, env?: Record<string, string | undefined>, bounds: SpecBounds = {}): JobSpec {
  const spec = sectionsToSpec(parseJobFileSections(text, env ?? process.env, bounds));
  if (spec.jobs.length === 0) {
    throw new VolbenchError('EJOBFILE', 'the job file defines no jobs (only [global] sections)',
      { field: 'jobfile', accepted: 'at least one job section besides [global]' });
  }
  return spec;
}
