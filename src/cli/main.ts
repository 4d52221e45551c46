#!/usr/bin/env node
/**
 * The volbench command: thin wiring over the library.
 */
import { VolbenchError } from '../errors.js';
import { VERSION } from '../version.js';
import { demoCommand } from './demo-command.js';
import { runCommand, type CommandIo } from './run-command.js';
import { suiteCommand } from './suite-command.js';
import { compareCommand } from './compare-command.js';
import { analysisCommand, ANALYSIS_COMMANDS, ANALYSIS_COMMANDS_USAGE } from './analysis-commands.js';
import { reportCommand } from './report-command.js';

const USAGE = `volbench ${VERSION}: block storage benchmark with fio's options and fio's JSON

Usage:
  volbench run [fio options] [jobfile ...]   run jobs given as fio flags and/or fio job files;
                                             also --assert, --junit, --github, --max-runtime,
                                             --max-size (volbench suite --help says more),
                                             --volume, --instance, and --until-baseline: on a
                                             volume that bursts, run until its baseline shows
  volbench demo [--directory DIR]            a short built-in benchmark on a temp file
  volbench serve [options]                   the HTTP service (see volbench serve --help)
  volbench suite NAME --directory DIR        a named suite (ars, kdiskmark, aws-ssd, ...; --list)
  volbench compare A.json B.json             compare two results (--tolerance 5%)
  volbench fleet plan|up|run|down|compare    compare volume types on AWS instances (fleet --help)
  volbench catalog [list|show|price|entitled] volume types, prices and what they deliver
  volbench report RESULT.json ...            price/performance tables and charts (--format
                                             md|csv|json|html, --out; --server URL --run ID)
${ANALYSIS_COMMANDS_USAGE}  volbench --version | --help

Examples:
  volbench run --name=rr --filename=/data/vb.bin --size=1g --rw=randread --bs=4k \\
      --iodepth=32 --ioengine=io_uring --direct=1 --runtime=30 --time_based --output-format=json
  volbench run job.fio --output-format=json+
  volbench run job.fio --assert 'rr.iops >= 3000' --assert 'rr.clat_ns.p99 <= 2ms' --junit report.xml
  volbench run job.fio --volume gp2:size=100g --until-baseline --max-runtime 1h
`;

export async function main(argv: string[], io: CommandIo): Promise<number> {
  const [command, ...rest] = argv;
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
      const { fleetCommand } = await import('./fleet-command.js');
      return fleetCommand(rest, io);
    }
    case 'sweep':
    case 'uniformity':
    case 'rotational':
      return analysisCommand(command, rest, io);
    case 'report':
      return reportCommand(rest, io);
    case 'serve': {
      // Loaded only here: the service pulls in fastify and SQLite, which every other command
      // would otherwise pay for at start-up.
      const { SERVE_USAGE, serveCommand } = await import('./serve-command.js');
      if (rest.includes('--help') || rest.includes('-h')) {
        io.stdout.write(SERVE_USAGE);
        return 0;
      }
      return serveCommand(rest, io);
    }
    case '--version':
    case '-v':
      io.stdout.write(`volbench-${VERSION}\n`);
      return 0;
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      io.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    default:
      throw new VolbenchError('EINVALID_ARGS', `unknown command '${command}'; commands are: run, demo, serve, suite, compare, report, fleet, catalog, ${ANALYSIS_COMMANDS.join(', ')}`, {
        accepted: `run, demo, serve, suite, compare, report, fleet, catalog, ${ANALYSIS_COMMANDS.join(', ')}`,
      });
  }
}

function reportError(err: unknown, io: CommandIo): number {
  if (err instanceof VolbenchError) {
    io.stderr.write(`volbench: ${err.message}${err.field ? ` [${err.field}]` : ''}\n`);
    return 2;
  }
  io.stderr.write(`volbench: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return 2;
}

const io: CommandIo = { stdout: process.stdout, stderr: process.stderr };
main(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.exitCode = reportError(err, io);
  },
);
