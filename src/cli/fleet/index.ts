/**
 * `volbench fleet SUBCOMMAND`: the table of subcommands, one file each (its flags and one run
 * function over the library, src/fleet). A fleet's events go to stderr as lines for a person;
 * the outcome goes to stdout, and with `--format json` `up` and `compare` print their events
 * there as JSON lines (print.ts).
 */
import { resolve } from 'node:path';

import { VolbenchError } from '../../errors.js';
import { defaultStateDir } from '../../fleet/index.js';
import type { CommandIo } from '../io.js';
import { attach } from './attach.js';
import { compare } from './compare.js';
import type { FleetSubcommand } from './context.js';
import { down } from './down.js';
import { parseFleetArgs } from './flags.js';
import { list } from './list.js';
import { member } from './member.js';
import { plan } from './plan.js';
import { reap } from './reap.js';
import { report } from './report.js';
import { run } from './run.js';
import { status } from './status.js';
import { quietIo } from './signals.js';
import { up } from './up.js';
import { FLEET_USAGE } from './usage.js';

export { FLEET_USAGE };

// `member` runs on a study's instances (the template's user data starts it): not in FLEET_USAGE.
const SUBCOMMANDS: Readonly<Record<string, FleetSubcommand>> = { plan, up, run, report, down, list, compare, attach, status, reap, member };

export async function fleetCommand(argv: string[], outerIo: CommandIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined) {
    outerIo.stdout.write(FLEET_USAGE);
    return 2;
  }
  if (!Object.hasOwn(SUBCOMMANDS, sub)) {
    throw new VolbenchError('EINVALID_ARGS', `fleet: unknown subcommand '${sub}'`, { accepted: Object.keys(SUBCOMMANDS).join(', ') });
  }
  const command = SUBCOMMANDS[sub];
  const { values, positionals } = parseFleetArgs(sub, rest, command.flags);
  const stateDir = resolve(values['state-dir'] ?? defaultStateDir());
  return command.run({ sub, values, positionals, io: quietIo(outerIo), stateDir });
}
