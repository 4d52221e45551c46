/**
 * `volbench suite`: list the shipped suites, show one's job file, or run one on a target with
 * gates. fio's JSON (or normal text) goes to stdout or --output; the per-test lines and the
 * summary table go to stderr.
 */
import { writeFileSync } from 'node:fs';

import { VolbenchError } from '../errors.js';
import { parseOutputFormats, type FioOutputFormat } from '../jobspec/index.js';
import { describeSuite, listSuites, loadSuite, prepareSuite, runPrepared, suiteTable, suiteTests, type SuiteRunOptions } from '../suites/index.js';
import { extractOwnFlags, flagName, flagValue, instanceNeedsVolume, ownFlagsUsage, type OwnFlags } from './own-flags.js';
import { cloudForRun, type CloudLookupDeps } from './cloud-lookup.js';
import type { CloudContext } from '../cloud/index.js';
import { checkOutputPaths } from './gate-report.js';
import { endCommand } from './ending.js';
import { LiveTable } from './live-table.js';
import { suiteReporting } from './suite-progress.js';
import { renderOutputs } from './run-command.js';
import { warnTo, type CommandIo } from './io.js';

export const SUITE_USAGE = `Usage:
  volbench suite list                        the suites, each test with the fio command it maps to
  volbench suite show NAME                   a suite's fio job file (also --list, --show NAME)
  volbench suite NAME (--directory DIR | --filename PATH) [options]

Options:
  --directory DIR, --filename PATH   the target (fio's directory / filename); --allow_block_write
                                     to write a block device
  --runtime TIME, --size SIZE        replace the suite's runtime and size in every test
  --loops N                          runs of each test, the best kept (kdiskmark: 5, others: 1)
  --output-format FMT, --output FILE as for volbench run (default: normal)
${ownFlagsUsage('suite')}`;

interface SuiteArgs {
  name?: string;
  list: boolean;
  show?: string;
  options: SuiteRunOptions;
  outputFormats: FioOutputFormat[];
  output?: string;
}

const VALUE_OPTIONS = ['directory', 'filename', 'runtime', 'size', 'loops', 'output-format', 'output', 'show'] as const;
/** Every flag its --help lists: its own, the gates, limits, volume and prices of own-flags.ts. */
const ACCEPTED = `--list, --show, --${VALUE_OPTIONS.filter((o) => o !== 'show').join(', --')}, --allow_block_write, --assert, --junit, --github, `
  + '--max-runtime, --max-size, --max-memory, --volume, --instance, --prices, --no-cloud-lookup';

function parseLoops(text: string): number {
  if (!/^\d+$/.test(text)) throw new VolbenchError('EINVALID_VALUE', `--loops takes a whole number, not '${text}'`, { field: '--loops', accepted: '1 to 1000' });
  return Number(text);
}

function setValue(args: SuiteArgs, name: (typeof VALUE_OPTIONS)[number], value: string): void {
  if (name === 'output-format') args.outputFormats = parseOutputFormats(value);
  else if (name === 'output') args.output = value;
  else if (name === 'show') args.show = value;
  else if (name === 'loops') args.options.loops = parseLoops(value);
  else args.options[name] = value;
}

export function parseSuiteArgs(argv: readonly string[]): SuiteArgs {
  const args: SuiteArgs = { list: false, options: {}, outputFormats: ['normal'] };
  for (let i = 0; i < argv.length; ) {
    const arg = argv[i];
    const name = flagName(arg);
    const first = args.name === undefined && !args.list && args.show === undefined;
    if (arg === '--list' || (arg === 'list' && first)) {
      // `list` and `show NAME` as catalog's subcommands are spelt; --list and --show as before.
      args.list = true;
      i++;
    } else if (arg === 'show' && first && argv[i + 1] !== undefined && !argv[i + 1].startsWith('-')) {
      args.show = argv[i + 1];
      i += 2;
    } else if (arg === '--allow_block_write' || arg === '--allow_block_write=1') {
      args.options.allow_block_write = true;
      i++;
    } else if (name !== null && (VALUE_OPTIONS as readonly string[]).includes(name)) {
      const [value, used] = flagValue(argv, i, name);
      setValue(args, name as (typeof VALUE_OPTIONS)[number], value);
      i += used;
    } else if (!arg.startsWith('-') && args.name === undefined) {
      args.name = arg;
      i++;
    } else {
      throw new VolbenchError('EINVALID_ARGS', `suite does not take '${arg}'`, { field: arg, accepted: ACCEPTED });
    }
  }
  return args;
}

function listText(): string {
  return listSuites().map((s) => describeSuite(loadSuite(s.name))).join('\n');
}

/**
 * The volume behind the suite's target, as `run` finds it: --volume and --instance, or on EC2
 * what AWS says of the EBS volume the target is on (unless --no-cloud-lookup).
 */
async function suiteCloud(args: SuiteArgs, gates: OwnFlags, io: CommandIo, deps: CloudLookupDeps): Promise<CloudContext | undefined> {
  const target = args.options.filename ?? args.options.directory;
  const flags = { volume: gates.cloud?.volume, instance: gates.cloud?.instance ?? gates.instance, lookup: gates.cloudLookup };
  const cloud = target === undefined ? gates.cloud : await cloudForRun([target], flags, (line) => io.stderr.write(`volbench: ${line}\n`), deps);
  if (gates.instance && !cloud) throw instanceNeedsVolume();
  return cloud;
}

async function runSuiteCommand(args: SuiteArgs, gates: OwnFlags, io: CommandIo, deps: CloudLookupDeps): Promise<number> {
  const name = args.name!;
  checkOutputPaths(gates, args.output);
  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  const cloud = await suiteCloud(args, gates, io, deps);
  const options: SuiteRunOptions = {
    ...args.options,
    assertions: gates.asserts,
    limits: gates.limits,
    ...(cloud ? { cloud } : {}),
    signal: controller.signal,
  };
  // Every check (suite, target, options, assertions) before any I/O.
  const prepared = await prepareSuite(name, options);
  const tests = suiteTests(prepared.parsed).map((t) => ({ jobs: t.jobs.map((j) => j.options.name) }));
  const table = new LiveTable(io.stderr, 'test');
  Object.assign(options, suiteReporting(table, tests, `volbench suite ${name}: `));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const result = await runPrepared(prepared, options);
    table.finish();
    const text = renderOutputs(result, args.outputFormats);
    if (args.output) writeFileSync(args.output, text);
    else io.stdout.write(text);
    io.stderr.write(suiteTable(result));
    return endCommand(result, { io, gates, name: `volbench.${name}` });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export async function suiteCommand(argv: string[], io: CommandIo, deps: CloudLookupDeps = {}): Promise<number> {
  const gates = extractOwnFlags(argv, { volumeFromAws: true, warn: warnTo(io) });
  const args = parseSuiteArgs(gates.rest);
  if (args.list) {
    io.stdout.write(listText());
    return 0;
  }
  if (args.show !== undefined) {
    io.stdout.write(loadSuite(args.show).text);
    return 0;
  }
  if (args.name === undefined) {
    throw new VolbenchError('EINVALID_ARGS', 'suite needs a suite name (volbench suite --list shows them)', {
      field: 'suite',
      accepted: listSuites().map((s) => s.name).join(', '),
    });
  }
  return runSuiteCommand(args, gates, io, deps);
}
