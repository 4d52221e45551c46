/**
 * `volbench fleet reap`: lists what it found past its expiry (and what it spares, with why), then
 * deletes it once the user says yes at the terminal, or given --yes. With no terminal and no
 * --yes it deletes nothing and exits 2.
 */
import { VolbenchError } from '../../errors.js';
import { findExpired, fleetClients, fleetNow, reapFleets, type ReapPlan } from '../../fleet/index.js';
import { confirm } from '../confirm.js';
import type { FleetContext, FleetSubcommand } from './context.js';
import { region } from './flags.js';
import { print } from './print.js';

const KINDS = ['stacks', 'instances', 'volumes', 'parameters', 'objects', 'schedules'] as const;

function listing(found: ReapPlan): string {
  const lines = KINDS.filter((k) => found[k].length).map((k) => `past its expiry, to delete: ${found[k].length} ${k}: ${found[k].join(', ')}\n`);
  for (const s of found.spared) lines.push(`spared (past its volbench:expires, but not provably volbench's): ${s}\n`);
  return lines.join('');
}

/** Asks at the terminal, unless --yes: true to delete, false when declined; refused with no terminal to ask. */
async function agreed(n: number, yes: boolean | undefined, io: FleetContext['io'], listed: () => void): Promise<boolean> {
  if (yes) return true;
  const answer = await confirm(`delete these ${n}?`, io);
  if (answer === undefined) {
    listed();
    throw new VolbenchError('EINVALID_ARGS', `fleet reap: ${n} expired resource(s) listed above would be deleted; with no terminal to ask, nothing was deleted`, {
      field: '--yes', accepted: '--yes to delete them, or a terminal to answer',
    });
  }
  if (!answer) {
    io.stderr.write('nothing deleted\n');
    listed();
  }
  return answer;
}

async function reapExpired({ values: flags, io }: FleetContext): Promise<number> {
  const clients = fleetClients({ region: region(flags), profile: flags.profile });
  try {
    const now = fleetNow(flags.now);
    io.stderr.write(`reaping fleets expired at ${now.toISOString()} in ${clients.region}\n`);
    const found = await findExpired({ clients, now, bucket: flags.bucket });
    io.stderr.write(listing(found));
    const n = KINDS.reduce((sum, k) => sum + found[k].length, 0);
    if (n === 0) {
      print(io, flags, found, 'nothing expired\n');
      return 0;
    }
    if (!(await agreed(n, flags.yes, io, () => print(io, flags, found, '')))) return 1;
    const reaped = await reapFleets({ clients, now, bucket: flags.bucket, log: (l) => io.stderr.write(`${l}\n`) }, found);
    print(io, flags, { ...reaped, spared: found.spared }, '');
    return 0;
  } finally {
    clients.destroy();
  }
}

export const reap: FleetSubcommand = { flags: ['bucket', 'now', 'yes'], run: reapExpired };
