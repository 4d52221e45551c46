/**
 * fio's command line (init.c parse_cmd_line, getopt_long_only): `--name=x` starts a job,
 * options before the first `--name` are global, other arguments are job files.
 *
 * How fio 3.33 combines them, and so volbench:
 * - `--opt=value` always; `--opt value` for options that need a value; a flag (time_based,
 *   group_reporting, ...) takes a value only as `--flag=1`. A single dash works too (`-bs=4k`).
 * - Command-line global options are applied before a job file's [global] section, so the job
 *   file wins where both set an option; they apply to the jobs of the first job file only.
 * - Jobs given with `--name` come before the jobs of job files.
 * - A second job file starts again from fio's defaults, and its first job waits for the jobs
 *   before it (stonewall).
 */
import { readFileSync } from 'node:fs';

import { VolbenchError } from '../errors.js';
import type { JobSpec } from './types.js';
import type { Env } from './expand.js';
import { parseJobFileSections } from './jobfile.js';
import { COMMAND_FLAGS, COMMAND_FLAGS_ACCEPTED, takeCommandFlag, type CommandFlags } from './command-flags.js';
import { fileIncludeReader } from './include.js';
import { findOption, optionNameError } from './option-lookup.js';
import { MAX_INSTANCES } from './options.js';
import { sectionsToSpec, type ResetGlobals, type Section } from './sections.js';

export type FioOutputFormat = 'json' | 'json+' | 'normal' | 'terse';

export interface FioArgs extends CommandFlags {
  spec: JobSpec;
  /** In the order given, without repeats; `json+` replaces `json` (fio prints one JSON document). */
  outputFormats: FioOutputFormat[];
  output?: string;
  jobFiles: string[];
}

export interface FioArgsOptions {
  /** Environment for `${VAR}` in job files (default: process.env). */
  env?: Env;
}

/** fio's own command flags (init.c l_opts) that volbench does not take (COMMAND_FLAGS it does). */
const FIO_COMMAND_FLAGS = new Set([
  'latency-log', 'bandwidth-log', 'append-terse', 'version', 'help', 'cmdhelp', 'enghelp',
  'showcmd', 'readonly', 'eta', 'eta-interval', 'eta-newline', 'debug', 'parse-only', 'section',
  'inflate-log', 'alloc-size', 'profile', 'warnings-fatal', 'max-jobs', 'terse-version', 'server',
  'daemonize', 'client', 'remote-config', 'cpuclock-test', 'crctest', 'memcpytest', 'idle-prof',
  'status-interval', 'trigger-file', 'trigger-timeout', 'trigger', 'trigger-remote', 'aux-path',
  'merge-blktrace-only',
]);

const OUTPUT_FORMATS_ACCEPTED = 'a comma-separated list of json, json+, normal, terse (also minimal or csv)';

function argsError(field: string, message: string, accepted?: string): VolbenchError {
  return new VolbenchError('EINVALID_ARGS', message, { field, ...(accepted ? { accepted } : {}) });
}

export function parseOutputFormats(text: string): FioOutputFormat[] {
  const out: FioOutputFormat[] = [];
  for (const word of text.split(',')) {
    // fio's words for its terse (v3) lines: terse, minimal, csv.
    const format = word === 'minimal' || word === 'csv' ? 'terse' : word;
    if (format === 'json' || format === 'json+' || format === 'normal' || format === 'terse') {
      if (!out.includes(format)) out.push(format);
    } else {
      throw argsError('--output-format', `invalid output format '${word}'`, OUTPUT_FORMATS_ACCEPTED);
    }
  }
  return out.includes('json+') ? out.filter((f) => f !== 'json') : out;
}

interface Parsed extends CommandFlags {
  sections: Section[];
  /** Job sections so far, kept as a count: recounting them per argument is quadratic. */
  jobCount: number;
  jobFiles: string[];
  outputFormats: FioOutputFormat[];
  output?: string;
}

/** One `--opt[=value]` argument; returns how many extra arguments it consumed. */
function takeOption(argv: string[], i: number, parsed: Parsed): number {
  const body = argv[i].replace(/^--?/, '');
  const eq = body.indexOf('=');
  const name = eq < 0 ? body : body.slice(0, eq);
  let value: string | undefined = eq < 0 ? undefined : body.slice(eq + 1);
  const current = parsed.sections[parsed.sections.length - 1];
  const scope = current?.kind === 'job' ? `jobs[${parsed.jobCount - 1}]` : 'global';
  const def = findOption(name);
  const command = Object.hasOwn(COMMAND_FLAGS, name) ? COMMAND_FLAGS[name] : undefined;
  if (!def && !command) {
    if (FIO_COMMAND_FLAGS.has(name)) {
      throw new VolbenchError('EUNSUPPORTED_OPTION', `fio flag '--${name}' is not supported by volbench yet`,
        { field: `--${name}`, accepted: COMMAND_FLAGS_ACCEPTED });
    }
    throw optionNameError(name, scope, [...Object.keys(COMMAND_FLAGS), ...FIO_COMMAND_FLAGS]);
  }
  const takesValue = command ? command.value : !def?.flag;
  if (command && !command.value && value !== undefined) {
    throw argsError(`--${name}`, `fio flag '--${name}' takes no value`, `--${name} alone`);
  }
  let consumed = 0;
  // getopt: an option that needs a value takes the next argument when none follows '='.
  if (value === undefined && takesValue) {
    if (i + 1 >= argv.length) throw argsError(`--${name}`, `option '--${name}' needs a value`, def?.accepted);
    value = argv[i + 1];
    consumed = 1;
  }
  if (value === '' && takesValue) throw argsError(`--${name}`, `option '--${name}' needs a value`, def?.accepted);
  if (name === 'output') parsed.output = value;
  else if (name === 'output-format') parsed.outputFormats = parseOutputFormats(value as string);
  // --minimal is fio's terse output alone (init.c: output_format = FIO_OUTPUT_TERSE).
  else if (name === 'minimal') parsed.outputFormats = ['terse'];
  else if (command) takeCommandFlag(parsed, name, value);
  else addOption(parsed, name, value ?? true);
  return consumed;
}

function addOption(parsed: Parsed, name: string, value: string | true): void {
  const sections = parsed.sections;
  if (name === 'name') {
    // fio: `--name=global...` (any name starting with "global") opens a global section.
    const isGlobal = typeof value === 'string' && value.startsWith('global');
    if (!isGlobal && ++parsed.jobCount > MAX_INSTANCES) {
      throw argsError('--name', `more than ${MAX_INSTANCES} jobs on the command line`, `at most ${MAX_INSTANCES} jobs, as fio (MAX_JOBS)`);
    }
    sections.push({ kind: isGlobal ? 'global' : 'job', entries: [] });
  } else if (sections.length === 0) {
    sections.push({ kind: 'global', entries: [] });
  }
  sections[sections.length - 1].entries.push([name, value]);
}

function readJobFile(path: string): string {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (cause) {
    throw new VolbenchError('EJOBFILE', `cannot read job file '${path}': ${(cause as Error).message}`, { path, cause });
  }
}

/**
 * Job files' sections after the command line's, with fio's reset between files: only the
 * sections `wanted` names (all when empty), and each file's includes read beside it.
 */
function jobFileSections(files: string[], env: Env, wanted: readonly string[]): Array<Section | ResetGlobals> {
  const out: Array<Section | ResetGlobals> = [];
  const sections = wanted.length ? new Set(wanted) : undefined;
  const found = new Set<string>();
  files.forEach((path, k) => {
    const file = path === '-' ? undefined : path;
    const read = parseJobFileSections(readJobFile(path), env, {}, { sections, includes: fileIncludeReader(file), path: file });
    for (const s of read) if (s.header !== undefined) found.add(s.header);
    pushFile(out, read, k);
  });
  const missing = wanted.filter((name) => !found.has(name));
  if (missing.length) {
    throw new VolbenchError('EINVALID_ARGS', `--section=${missing[0]}: no job file has a section [${missing[0]}]`, {
      field: '--section', accepted: 'the name of a job section of the job files given',
    });
  }
  return out;
}

/** A file's sections after the ones before: the second file on starts anew, behind a stonewall. */
function pushFile(out: Array<Section | ResetGlobals>, sections: Section[], k: number): void {
  if (k > 0) {
    out.push({ kind: 'reset' });
    const first = sections.find((s) => s.kind === 'job');
    if (first) first.stonewall = true;
  }
  out.push(...sections);
}

/**
 * Parse fio's command line: job options, job files (read now, with what they include), and the
 * flags of fio's own that volbench takes (--output-format, --output, --readonly, --section,
 * --status-interval, --eta-newline).
 */
export function parseFioArgs(argv: string[], options: FioArgsOptions = {}): FioArgs {
  const parsed: Parsed = { sections: [], jobCount: 0, jobFiles: [], outputFormats: ['normal'], readonly: false, jobSections: [] };
  let optionsEnded = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!optionsEnded && arg === '--') optionsEnded = true;
    else if (optionsEnded || !arg.startsWith('-') || arg === '-') parsed.jobFiles.push(arg);
    else i += takeOption(argv, i, parsed);
  }
  const spec = sectionsToSpec([...parsed.sections, ...jobFileSections(parsed.jobFiles, options.env ?? process.env, parsed.jobSections)]);
  if (spec.jobs.length === 0) throw new VolbenchError('EINVALID_ARGS', 'no jobs defined: give --name=<job> or a job file', {});
  return {
    spec,
    outputFormats: parsed.outputFormats,
    ...(parsed.output === undefined ? {} : { output: parsed.output }),
    jobFiles: parsed.jobFiles,
    readonly: parsed.readonly,
    jobSections: parsed.jobSections,
    ...(parsed.statusIntervalMs === undefined ? {} : { statusIntervalMs: parsed.statusIntervalMs }),
    ...(parsed.etaNewlineMs === undefined ? {} : { etaNewlineMs: parsed.etaNewlineMs }),
  };
}
