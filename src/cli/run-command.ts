/**
 * `volbench run`: fio's command line (flags and job files) in, fio's output out. JSON goes to
 * stdout alone; progress and diagnostics go to stderr. `--assert`, `--junit` and `--github`
 * gate the run on its numbers (gates/).
 */
import { writeFileSync } from 'node:fs';

import { runParsed } from '../run/run-jobs.js';
import { formatResult, type FioResult } from '../report/index.js';
import { parseFioArgs, parseSpec } from '../jobspec/index.js';
import type { OutputFormat } from '../report/types.js';
import { bindAssertions, evaluateAssertions, parseAssertion, withAssertions } from '../gates/index.js';
import { extractGateArgs } from './gate-args.js';
import { checkOutputPaths, gateExitStatus, reportGates } from './gate-report.js';
import { ProgressPrinter } from './progress-line.js';

export interface CommandIo {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

/** Exit status: 0 when every job ran clean, 1 when one ended with an error, 130 when interrupted. */
export function exitStatus(result: FioResult): number {
  if (result.jobs.some((j) => j.error !== 0)) return 1;
  if (result.volbench.jobs.some((j) => j.cancelled)) return 130;
  return 0;
}

export function renderOutputs(result: FioResult, formats: OutputFormat[]): string {
  return formats.map((f) => {
    const text = formatResult(result, f);
    return text.endsWith('\n') ? text : `${text}\n`;
  }).join('');
}

export async function runCommand(argv: string[], io: CommandIo): Promise<number> {
  const gates = extractGateArgs(argv);
  const assertions = gates.asserts.map(parseAssertion);
  const args = parseFioArgs(gates.rest);
  const parsed = parseSpec(args.spec);
  // Assertions naming a job, direction or metric the spec lacks are refused before any I/O.
  const bound = bindAssertions(parsed, assertions);
  checkOutputPaths(gates, args.output);
  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const printer = new ProgressPrinter(io.stderr);
  try {
    const run = await runParsed(parsed, { signal: controller.signal, onProgress: (p) => printer.update(p) });
    printer.done();
    const outcomes = evaluateAssertions(run, bound);
    const result = outcomes.length ? withAssertions(run, outcomes) : run;
    const text = renderOutputs(result, args.outputFormats);
    if (args.output) writeFileSync(args.output, text);
    else io.stdout.write(text);
    for (const job of result.volbench.jobs) {
      if (job.error_message) io.stderr.write(`volbench: job ${job.jobname}: ${job.error_message}\n`);
    }
    reportGates(outcomes, gates, io, result, 'volbench');
    return gateExitStatus(exitStatus(result), outcomes);
  } finally {
    printer.done();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
