/**
 * `volbench run`: fio's command line (flags and job files) in, fio's output out. JSON goes to
 * stdout alone; progress and diagnostics go to stderr. `--assert`, `--junit` and `--github`
 * gate the run on its numbers (gates/); `--volume` holds it against the catalog, and
 * `--until-baseline` runs a volume that bursts until its baseline shows.
 */
import { appendFileSync, writeFileSync } from 'node:fs';

import { runPlan } from '../run/run-jobs.js';
import { untilBaselineSpec } from '../run/until-baseline.js';
import { staleWarning } from '../cloud/index.js';
import { formatResult, type FioResult } from '../fio-output/index.js';
import { parseFioArgs, parseSpec } from '../jobspec/index.js';
import type { OutputFormat } from '../fio-output/types.js';
import { parseUntilSteadySec, planRun, type RunPlan } from '../plan/index.js';
import { availableEngines } from '../index.js';
import { openingLines, startNotes } from './opening.js';
import { extractOwnFlags, flagName, flagValue, instanceNeedsVolume, ownFlagsUsage } from './own-flags.js';
import { checkOutputPaths } from './gate-report.js';
import { endCommand } from './ending.js';
import { warnTo, type CommandIo } from './io.js';
import { ProgressPrinter } from './progress-line.js';
import { cloudForRun, type CloudLookupDeps } from './cloud-lookup.js';

export type { CommandIo } from './io.js';

export const RUN_USAGE = `Usage:
  volbench run [fio options] [jobfile ...] [options]

Runs jobs given as fio's flags and/or fio job files, as fio does: options before the first
--name are global, each --name starts a job; job files follow the command line's jobs. Prints
fio's output (normal text by default, json or json+) to stdout or --output; progress and notes
go to stderr. Exit status: 0 when every job ran clean and every gate held, 1 when a job ended
with an error or a gate failed, 2 on bad input, 130 when interrupted.

fio's options, by fio's names (an option volbench lacks is refused by name), e.g.:
  --name=NAME --filename=PATH | --directory=DIR --size=SIZE --rw=randread --bs=4k
  --iodepth=32 --ioengine=io_uring|libaio|psync --direct=1 --numjobs=N
  --runtime=30 --time_based --ramp_time=5 --rate_iops=N --verify=crc32c --allow_block_write=1
  --output-format=normal|json|json+|terse (comma-separated for several)   --output=FILE
  --minimal (fio's terse lines alone)
  --readonly (refuse any job that writes)   --section=NAME (only this job section; repeatable)
  --status-interval=TIME (the report so far, every TIME)   --eta-newline=TIME

volbench's own options:
${ownFlagsUsage('run')}
Examples:
  volbench run --name=rr --filename=/data/vb.bin --size=1g --rw=randread --bs=4k \\
      --iodepth=32 --ioengine=io_uring --direct=1 --runtime=30 --time_based --output-format=json
  volbench run job.fio --output-format=json+
  volbench run job.fio --assert 'rr.iops >= 3000' --assert 'rr.clat_ns.p99 <= 2ms' --junit report.xml
  volbench run job.fio --volume gp2:100g --until-baseline --max-runtime 1h
`;

/**
 * What fio says about a job's options when it reads them (e.g. that blockalign turns the random
 * map off), on stderr before anything runs, as fio prints its warnings.
 */
export function sayNotes(plan: RunPlan, io: CommandIo): void {
  for (const job of plan.jobs) {
    for (const note of job.notes) io.stderr.write(`volbench: ${job.jobname}: ${note}\n`);
  }
}

/**
 * The report in every format asked for, as fio prints them together whatever the order given:
 * the terse lines, then JSON (json or json+), then the normal text after a blank line (fio prints
 * one before it whether JSON came first or only its opening lines did).
 */
export function renderOutputs(result: FioResult, formats: OutputFormat[]): string {
  const terse = formats.includes('terse') ? [formatResult(result, 'terse')] : [];
  const json = formats.filter((f) => f === 'json' || f === 'json+').map((f) => formatResult(result, f)).map((t) => (t.endsWith('\n') ? t : `${t}\n`));
  const normal = formats.includes('normal') ? [`\n${formatResult(result, 'normal')}`] : [];
  return [...terse, ...json, ...normal].join('');
}

/** `--until-steady MAX`, run's own flag (fio has none like it), taken out of the arguments. */
export function takeUntilSteady(argv: readonly string[]): { untilSteadySec?: number; rest: string[] } {
  const rest: string[] = [];
  let untilSteadySec: number | undefined;
  for (let i = 0; i < argv.length; ) {
    if (argv[i] === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (flagName(argv[i]) !== 'until-steady') {
      rest.push(argv[i++]);
      continue;
    }
    const [value, used] = flagValue(argv, i, 'until-steady');
    untilSteadySec = parseUntilSteadySec(value, '--until-steady');
    i += used;
  }
  return { ...(untilSteadySec === undefined ? {} : { untilSteadySec }), rest };
}

/** `--until-baseline` (run only): taken out before the flags run and suite share. */
function takeUntilBaseline(argv: string[]): { until: boolean; rest: string[] } {
  const end = argv.indexOf('--');
  const head = end < 0 ? argv : argv.slice(0, end);
  const tail = end < 0 ? [] : argv.slice(end);
  return { until: head.includes('--until-baseline'), rest: [...head.filter((a) => a !== '--until-baseline'), ...tail] };
}

export async function runCommand(argv: string[], io: CommandIo, deps: CloudLookupDeps = {}): Promise<number> {
  const { untilSteadySec, rest: unsteady } = takeUntilSteady(argv);
  const { until, rest } = takeUntilBaseline(unsteady);
  const gates = extractOwnFlags(rest, { volumeFromAws: true, warn: warnTo(io) });
  const args = parseFioArgs(gates.rest);
  checkOutputPaths(gates, args.output);
  // --until-baseline: as long as the volume's full bucket lasts (refused without a volume that
  // bursts), stopped at the cliff.
  const untilBaseline = until ? { volume: gates.cloud?.volume } : undefined;
  const parsed = untilBaseline ? untilBaselineSpec(parseSpec(args.spec), untilBaseline, gates.limits.maxRuntimeSec) : parseSpec(args.spec);
  // Every check before any I/O: the spec, its targets, the limits, and assertions naming a job,
  // direction or metric the spec lacks.
  const plan = await planRun(parsed, { assertions: gates.asserts, limits: gates.limits, untilSteadySec, readonly: args.readonly });
  // The volume behind the run, when AWS can say (a target on EBS): a --volume that says
  // otherwise is refused here, before any I/O.
  let cloud;
  try {
    const flags = { volume: gates.cloud?.volume, instance: gates.cloud?.instance ?? gates.instance, lookup: gates.cloudLookup };
    cloud = await cloudForRun(plan.targetPaths, flags, (line) => io.stderr.write(`volbench: ${line}\n`), deps);
    if (gates.instance && !cloud) throw instanceNeedsVolume();
    // Applied to the result before its assertions are judged.
    if (cloud) plan.cloud = cloud;
  } catch (err) {
    plan.release();
    throw err;
  }
  // fio's opening lines go with its normal text (to the output, at once when that is stdout);
  // with JSON alone, stdout holds the JSON only, and the layouts and notes go to stderr.
  const available = availableEngines();
  const withNormal = args.outputFormats.includes('normal');
  const opening = withNormal ? openingLines(plan, available) : startNotes(plan, available);
  const openingText = opening.map((l) => `${l}\n`).join('');
  if (!withNormal) io.stderr.write(openingText);
  else if (!args.output) io.stdout.write(openingText);
  sayNotes(plan, io);
  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const printer = new ProgressPrinter(io.stderr, args.etaNewlineMs);
  // --status-interval: the report so far, every interval, where the final one goes.
  let written = false;
  const emit = (text: string): void => {
    if (!args.output) io.stdout.write(text);
    else if (written) appendFileSync(args.output, text);
    else writeFileSync(args.output, (withNormal ? openingText : '') + text);
    written = true;
  };
  const onStatus = (interim: FioResult): void => {
    printer.done();
    emit(renderOutputs(interim, args.outputFormats));
  };
  try {
    const result = await runPlan(plan, {
      signal: controller.signal,
      onProgress: (p) => printer.update(p),
      ...(untilBaseline?.volume ? { untilBaseline: { volume: untilBaseline.volume } } : {}),
      ...(args.statusIntervalMs ? { statusIntervalMs: args.statusIntervalMs, onStatus } : {}),
    });
    const stale = result.volbench.cloud?.price ? staleWarning(result.volbench.cloud.price.as_of) : undefined;
    if (stale) io.stderr.write(`volbench: warning: ${stale}\n`);
    printer.done();
    emit(renderOutputs(result, args.outputFormats));
    return endCommand(result, { io, gates, name: 'volbench' });
  } finally {
    printer.done();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
