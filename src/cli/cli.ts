/**
 * The volbench command: thin wiring over the library. Loaded by main.ts once the Node version
 * is known to be one volbench runs on.
 */
import { usePrices } from '../cloud/price-source.js';
import { VolbenchError } from '../errors.js';
import { inertText } from '../inert-text.js';
import { VERSION } from '../version.js';
import { demoCommand } from './demo-command.js';
import { runCommand } from './run-command.js';
import type { CommandIo } from './io.js';
import { suiteCommand } from './suite-command.js';
import { compareCommand } from './compare-command.js';
import { analysisCommand, ANALYSIS_COMMANDS_USAGE } from './analysis-commands.js';
import { reportCommand } from './report-command.js';
import { asksForHelp, commandUsage, isCommand, unknownCommand } from './help.js';

const USAGE = `volbench ${VERSION}: block storage benchmark with fio's options and fio's JSON

Usage:
  volbench run [fio options] [jobfile ...]   run jobs given as fio flags and/or fio job files,
                                             with gates (--assert), limits, --volume,
                                             --until-steady and --until-baseline
  volbench demo [--directory DIR]            a short built-in benchmark on a temp file
  volbench doctor [--directory DIR] [--aws]  whether this machine runs volbench, and what to do
  volbench serve [options]                   the HTTP service (see volbench serve --help)
  volbench suite NAME --directory DIR        a named suite (ars, kdiskmark, aws-ssd, ...; --list)
  volbench compare A.json B.json             compare two results (--tolerance 5%)
  volbench fleet plan|up|run|down|compare    compare volume types on AWS instances (fleet --help)
  volbench catalog [list|show|price|entitled] volume types, prices and what they deliver
  volbench catalog refresh --instances       EC2 instance limits from DescribeInstanceTypes
  volbench report RESULT.json ...            price/performance tables and charts (--format
                                             md|csv|json|html, --out; --server URL --run ID)
  volbench ebs-stats DEVICE | --page FILE   a Nitro volume's own statistics (NVMe log page
                                             0xD0): time over each limit, latency histograms
  volbench prices refresh --region R         EBS prices from the AWS Price List API, to a file
                                             that --prices FILE (or VOLBENCH_PRICES) uses in
                                             place of the shipped prices (catalog, fleet,
                                             report, run, serve)
${ANALYSIS_COMMANDS_USAGE}  volbench --version | --help
  volbench COMMAND --help                    what COMMAND takes (also: volbench help COMMAND)

Examples:
  volbench run --name=rr --filename=/data/vb.bin --size=1g --rw=randread --bs=4k \\
      --iodepth=32 --ioengine=io_uring --direct=1 --runtime=30 --time_based --output-format=json
  volbench run job.fio --output-format=json+
  volbench run job.fio --assert 'rr.iops >= 3000' --assert 'rr.clat_ns.p99 <= 2ms' --junit report.xml
  volbench run job.fio --volume gp2:100g --until-baseline --max-runtime 1h
`;

/** The commands that price a volume, and so take --prices FILE. */
const PRICING_COMMANDS = new Set(['run', 'suite', 'catalog', 'fleet', 'report', 'serve']);

/**
 * Takes `--prices FILE` (or `--prices=FILE`) out of a command's arguments and puts the file's
 * prices in place of the shipped ones for the whole process; a bad file is refused here.
 */
export function takePricesFlag(args: string[]): string[] {
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      rest.push(...args.slice(i));
      break;
    }
    if (a === '--prices' || a.startsWith('--prices=')) {
      const file = a === '--prices' ? args[++i] : a.slice('--prices='.length);
      if (!file) throw new VolbenchError('EINVALID_ARGS', '--prices needs a file', { field: '--prices', accepted: 'a file written by volbench prices refresh' });
      usePrices(file);
      continue;
    }
    rest.push(a);
  }
  return rest;
}

/** The answer to --version, --help, `help` and a command's --help, before any command parses anything; undefined otherwise. */
async function answeredAtOnce(command: string | undefined, given: string[], io: CommandIo): Promise<number | undefined> {
  switch (command) {
    case '--version':
    case '-v':
      io.stdout.write(`volbench-${VERSION}\n`);
      return 0;
    case undefined:
    case '--help':
    case '-h':
      io.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    case 'help':
      io.stdout.write(given[0] === undefined ? USAGE : await commandUsage(given[0]));
      return 0;
  }
  if (!isCommand(command)) throw unknownCommand(command);
  // Before anything parses: a command's help never fails on the rest of its arguments.
  if (asksForHelp(command, given)) {
    io.stdout.write(await commandUsage(command));
    return 0;
  }
  return undefined;
}

export async function main(argv: string[], io: CommandIo): Promise<number> {
  const [command, ...given] = argv;
  const answered = await answeredAtOnce(command, given, io);
  if (answered !== undefined || command === undefined) return answered ?? 2;
  const rest = PRICING_COMMANDS.has(command) ? takePricesFlag(given) : given;
  switch (command) {
    case 'run':
      return runCommand(rest, io);
    case 'demo':
      return demoCommand(rest, io);
    case 'suite':
      return suiteCommand(rest, io);
    case 'compare':
      return compareCommand(rest, io);
    case 'catalog': {
      const { catalogCommand } = await import('./catalog-command.js');
      return catalogCommand(rest, io);
    }
    case 'fleet': {
      // Loaded only here: the AWS SDK clients cost other commands their start-up.
      const { fleetCommand } = await import('./fleet/index.js');
      return fleetCommand(rest, io);
    }
    case 'sweep':
    case 'uniformity':
    case 'rotational':
      return analysisCommand(command, rest, io);
    case 'report':
      return reportCommand(rest, io);
    case 'ebs-stats': {
      const { ebsStatsCommand } = await import('./ebs-stats-command.js');
      return ebsStatsCommand(rest, io);
    }
    case 'prices': {
      const { pricesCommand } = await import('./prices-command.js');
      return pricesCommand(rest, io);
    }
    case 'doctor': {
      const { doctorCommand } = await import('./doctor-command.js');
      return doctorCommand(rest, io);
    }
    case 'serve': {
      // Loaded only here: the service pulls in fastify and SQLite, which every other command
      // would otherwise pay for at start-up.
      const { serveCommand } = await import('./serve-command.js');
      return serveCommand(rest, io);
    }
    default:
      throw unknownCommand(command);
  }
}

function reportError(err: unknown, io: CommandIo): number {
  if (err instanceof VolbenchError) {
    // A message may quote what a file, a bucket or a member said: shown inert, on one line.
    io.stderr.write(`volbench: ${inertText(err.message)}${err.field ? ` [${inertText(err.field)}]` : ''}\n`);
    // What the field takes (fio's rw words, a flag's forms), unless the message says it already.
    if (err.accepted && !err.message.includes(err.accepted)) io.stderr.write(`volbench: accepted: ${inertText(err.accepted)}\n`);
    return 2;
  }
  io.stderr.write(`volbench: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return 2;
}

/** Runs the command line this process was given; its exit status is set when it ends. */
export function start(): void {
  const io: CommandIo = { stdout: process.stdout, stderr: process.stderr };
  main(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.exitCode = reportError(err, io);
    },
  );
}
