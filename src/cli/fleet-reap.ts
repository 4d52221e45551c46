/**
 * `volbench fleet reap`: lists what it found past its expiry (and what it spares, with why), then
 * deletes it once the user says yes at the terminal, or given --yes. With no terminal and no
 * --yes it deletes nothing and exits 2.
 */
import { VolbenchError } from '../errors.js';
import { awsRegion } from '../cloud/index.js';
import { findExpired, fleetClients, fleetNow, reapFleets, type ReapPlan } from '../fleet/index.js';
import { confirm } from './confirm.js';
import type { CommandIo } from './io.js';

export interface ReapFlags {
  region?: string;
  profile?: string;
  bucket?: string;
  now?: string;
  yes?: boolean;
  format?: string;
}

const KINDS = ['stacks', 'instances', 'volumes', 'parameters', 'objects'] as const;

function listing(found: ReapPlan): string {
  const lines = KINDS.filter((k) => found[k].length).map((k) => `past its expiry, to delete: ${found[k].length} ${k}: ${found[k].join(', ')}\n`);
  for (const s of found.spared) lines.push(`spared (past its volbench:expires, but not provably volbench's): ${s}\n`);
  return lines.join('');
}

export async function reapCommand(flags: ReapFlags, io: CommandIo): Promise<number> {
  const clients = fleetClients({ region: awsRegion(flags.region, '--region'), profile: flags.profile });
  const print = (json: unknown, text: string) => io.stdout.write(flags.format === 'json' ? `${JSON.stringify(json, null, 2)}\n` : text);
  try {
    const now = fleetNow(flags.now);
    io.stderr.write(`reaping fleets expired at ${now.toISOString()} in ${clients.region}\n`);
    const found = await findExpired({ clients, now, bucket: flags.bucket });
    io.stderr.write(listing(found));
    const n = KINDS.reduce((sum, k) => sum + found[k].length, 0);
    if (n === 0) {
      print(found, 'nothing expired\n');
      return 0;
    }
    if (!flags.yes) {
      const yes = await confirm(`delete these ${n}?`, io);
      if (yes === undefined) {
        print(found, '');
        throw new VolbenchError('EINVALID_ARGS', `fleet reap: ${n} expired resource(s) listed above would be deleted; with no terminal to ask, nothing was deleted`, {
          field: '--yes', accepted: '--yes to delete them, or a terminal to answer',
        });
      }
      if (!yes) {
        io.stderr.write('nothing deleted\n');
        print(found, '');
        return 1;
      }
    }
    const reaped = await reapFleets({ clients, now, bucket: flags.bucket, log: (l) => io.stderr.write(`${l}\n`) }, found);
    print({ ...reaped, spared: found.spared }, '');
    return 0;
  } finally {
    clients.destroy();
  }
}
