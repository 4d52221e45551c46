/**
 * Help, one way for every command: `volbench COMMAND --help` (or -h, anywhere before `--`) and
 * `volbench help COMMAND` print that command's usage and exit 0, before the command parses
 * anything. Each usage lives beside its command; this table only says where, so the commands
 * that load heavy modules (serve, fleet) load them only when asked.
 */
import { suggestName } from '../jobspec/suggest.js';
import { VolbenchError } from '../errors.js';

type UsageLoader = () => Promise<string>;

const USAGES: Readonly<Record<string, UsageLoader>> = {
  run: async () => (await import('./run-command.js')).RUN_USAGE,
  demo: async () => (await import('./demo-command.js')).DEMO_USAGE,
  doctor: async () => (await import('./doctor-command.js')).DOCTOR_USAGE,
  serve: async () => (await import('./serve-command.js')).SERVE_USAGE,
  suite: async () => (await import('./suite-command.js')).SUITE_USAGE,
  compare: async () => (await import('./compare-command.js')).COMPARE_USAGE,
  report: async () => (await import('./report-command.js')).REPORT_USAGE,
  fleet: async () => (await import('./fleet/usage.js')).FLEET_USAGE,
  catalog: async () => (await import('./catalog-command.js')).CATALOG_USAGE,
  prices: async () => (await import('./prices-command.js')).PRICES_USAGE,
  sweep: async () => (await import('./sweep-command.js')).SWEEP_USAGE,
  uniformity: async () => (await import('./uniformity-command.js')).UNIFORMITY_USAGE,
  rotational: async () => (await import('./rotational-command.js')).ROTATIONAL_USAGE,
  'ebs-stats': async () => (await import('./ebs-stats-command.js')).EBS_STATS_USAGE,
};

/** Every command, in the order the overview lists them. */
export const COMMANDS: readonly string[] = Object.keys(USAGES);

/** Commands with subcommands, where `volbench COMMAND help` also asks for help. */
const WITH_SUBCOMMANDS = new Set(['fleet', 'catalog', 'prices', 'suite']);

/** Whether `args` (after the command) ask for its help: --help or -h before any `--`. */
export function asksForHelp(command: string, args: readonly string[]): boolean {
  if (WITH_SUBCOMMANDS.has(command) && args[0] === 'help') return true;
  for (const arg of args) {
    if (arg === '--') return false;
    if (arg === '--help' || arg === '-h') return true;
  }
  return false;
}

export function isCommand(name: string): boolean {
  return Object.hasOwn(USAGES, name);
}

/** The error for a command volbench lacks, with the closest one it has. */
export function unknownCommand(name: string): VolbenchError {
  const near = suggestName(name, COMMANDS);
  return new VolbenchError('EINVALID_ARGS', `unknown command '${name}'${near ? `; did you mean '${near}'?` : ''}`, {
    field: 'command',
    accepted: COMMANDS.join(', '),
  });
}

export function commandUsage(command: string): Promise<string> {
  if (!isCommand(command)) throw unknownCommand(command);
  return USAGES[command]();
}
