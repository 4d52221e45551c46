/**
 * What `volbench sweep`, `uniformity` and `rotational` share: their flags (values, switches and
 * the gates of own-flags.ts), `--format normal|json` and `--output FILE`, Ctrl-C stopping the
 * analysis with what it measured so far, and the gate report. The analysis's lines go to
 * stderr as it goes; stdout holds the result alone.
 */
import { writeFileSync } from 'node:fs';

import { VolbenchError } from '../errors.js';
import { formatAnalysis } from '../analysis/format.js';
import { formatJson, type FioResult } from '../fio-output/index.js';
import { flagName, flagValue, ownFlagsUsage, type OwnFlags } from './own-flags.js';
import { checkOutputPaths } from './gate-report.js';
import { endCommand } from './ending.js';
import { ProgressPrinter } from './progress-line.js';
import type { CommandIo } from './io.js';

export type AnalysisFormat = 'normal' | 'json';

/** The options every analysis takes, as `command`'s --help lists them. */
export function analysisOutputUsage(command: 'sweep' | 'uniformity' | 'rotational'): string {
  return `  --format normal|json               the analysis as text, or one fio JSON document with it
                                     under "volbench" (default: normal)
  --output FILE                      write the result there instead of stdout
${ownFlagsUsage(command)}`;
}

export interface AnalysisFlags {
  values: Map<string, string>;
  switches: Set<string>;
  format: AnalysisFormat;
  output?: string;
  /** Arguments that are none of the command's own. */
  rest: string[];
}

/**
 * Takes the command's flags out of `argv` (gates already taken): `values` take a value
 * (`--name V` or `--name=V`), `switches` none. With `passRest`, anything else is left in `rest`
 * (fio's flags for sweep); otherwise it is refused, naming what the command accepts.
 */
export function takeAnalysisFlags(
  command: string, argv: readonly string[], values: readonly string[], switches: readonly string[], passRest: boolean,
): AnalysisFlags {
  const out: AnalysisFlags = { values: new Map(), switches: new Set(), format: 'normal', rest: [] };
  const accepted = [...values, ...switches, 'format', 'output'].map((f) => `--${f}`).join(', ') + ', --assert, --junit, --github';
  for (let i = 0; i < argv.length; ) {
    const arg = argv[i];
    const name = flagName(arg);
    if (name !== null && switches.includes(name) && arg === `--${name}`) {
      out.switches.add(name);
      i++;
    } else if (name !== null && (values.includes(name) || name === 'format' || name === 'output')) {
      const [value, used] = flagValue(argv, i, name);
      if (name === 'format') {
        if (value !== 'normal' && value !== 'json') {
          throw new VolbenchError('EINVALID_VALUE', `--format takes normal or json, not '${value}'`, { field: '--format', accepted: 'normal, json' });
        }
        out.format = value;
      } else if (name === 'output') out.output = value;
      else out.values.set(name, value);
      i += used;
    } else if (passRest) {
      out.rest.push(arg);
      i++;
    } else {
      throw new VolbenchError('EINVALID_ARGS', `${command} does not take '${arg}'`, { field: arg, accepted });
    }
  }
  return out;
}

/** A whole number flag. */
export function intFlag(flags: AnalysisFlags, name: string): number | undefined {
  const text = flags.values.get(name);
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw new VolbenchError('EINVALID_VALUE', `--${name} takes a whole number, not '${text}'`, { field: `--${name}`, accepted: 'a whole number' });
  return Number(text);
}

export interface AnalysisRunContext {
  signal: AbortSignal;
  printer: ProgressPrinter;
  /** A line on stderr (the progress line cleared first). */
  say: (line: string) => void;
}

/** Runs an analysis with Ctrl-C, prints or writes its result, reports its gates; the exit status. */
export async function runAnalysisCommand(
  name: string, flags: AnalysisFlags, gates: OwnFlags, io: CommandIo, run: (ctx: AnalysisRunContext) => Promise<FioResult>,
): Promise<number> {
  checkOutputPaths(gates, flags.output);
  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  const printer = new ProgressPrinter(io.stderr);
  const say = (line: string): void => {
    printer.done();
    io.stderr.write(`volbench ${name}: ${line}\n`);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const result = await run({ signal: controller.signal, printer, say });
    printer.done();
    const text = flags.format === 'json' ? formatJson(result) : formatAnalysis(result);
    if (flags.output) writeFileSync(flags.output, text);
    else io.stdout.write(text);
    return endCommand(result, { io, gates, name: `volbench.${name}` });
  } finally {
    printer.done();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
