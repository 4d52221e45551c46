/**
 * fio's own command flags (init.c l_opts) that volbench takes besides --output and
 * --output-format, with fio's value rules:
 *
 * - `--minimal`: fio's terse lines alone (taken by args.ts, as the output formats are);
 * - `--readonly`: no job may write or trim (refused before any file is opened or laid out);
 * - `--section=NAME` (repeatable): only these job sections of the job files run ([global]
 *   sections always apply; `--section=global` is refused, as fio refuses it);
 * - `--status-interval=TIME`: the full report every TIME while the run goes on;
 * - `--eta-newline=TIME`: the terminal's status line starts a new line every TIME.
 *
 * TIME is fio's: a whole number with an optional unit, seconds when bare, at least 1 ms.
 */
import { VolbenchError } from '../errors.js';
import { parseTimeNs } from './units.js';

export interface CommandFlags {
  readonly: boolean;
  /** Job sections to run (--section), in the order given; empty: all of them. */
  jobSections: string[];
  statusIntervalMs?: number;
  etaNewlineMs?: number;
}

/** The flags of fio's own that volbench takes, and whether each needs a value. */
export const COMMAND_FLAGS: Readonly<Record<string, { value: boolean }>> = {
  output: { value: true },
  'output-format': { value: true },
  readonly: { value: false },
  section: { value: true },
  'status-interval': { value: true },
  'eta-newline': { value: true },
  minimal: { value: false },
};

export const COMMAND_FLAGS_ACCEPTED = `fio's job options as --option=value, and of fio's own flags ${Object.keys(COMMAND_FLAGS).map((f) => `--${f}`).join(', ')}`;

const TIME_ACCEPTED = 'a duration of at least 1ms, such as 1, 10s, 500ms (a bare number is in seconds)';

function timeMs(flag: string, text: string): number {
  const ns = parseTimeNs(text, { field: `--${flag}`, kbBase: 1024, defaultUnit: 's' });
  const ms = Math.floor(ns / 1e6);
  if (ms < 1) {
    throw new VolbenchError('EINVALID_ARGS', `--${flag}=${text} is shorter than 1ms`, { field: `--${flag}`, accepted: TIME_ACCEPTED });
  }
  return ms;
}

/** Takes `--name[=value]` of COMMAND_FLAGS (not output/output-format/minimal) into `flags`. */
export function takeCommandFlag(flags: CommandFlags, name: string, value: string | undefined): void {
  switch (name) {
    case 'readonly':
      flags.readonly = true;
      return;
    case 'section':
      if (value === 'global') {
        throw new VolbenchError('EINVALID_ARGS', "--section=global: the global section always applies and cannot be the only one", {
          field: '--section', accepted: 'the name of a job section of the job files',
        });
      }
      flags.jobSections.push(value as string);
      return;
    case 'status-interval':
      flags.statusIntervalMs = timeMs(name, value as string);
      return;
    case 'eta-newline':
      flags.etaNewlineMs = timeMs(name, value as string);
      return;
    default:
      throw new Error(`not a command flag: ${name}`);
  }
}
