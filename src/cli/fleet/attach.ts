/**
 * `volbench fleet attach FLEET_ID --bucket B`: drives a study from its state in S3 to its end,
 * from any machine with the credentials and no local state (a laptop that slept, a CI job that
 * was killed: the study went on by itself). It takes the study's lease: held by another driver,
 * it exits 2 naming the holder and the lease's expiry, or with --wait takes over once the lease
 * is released or expires. Results go beneath --out, the report to stdout; the exit status is
 * compare's.
 */
import { hostname } from 'node:os';

import { attachStudy, checkFleetId } from '../../fleet/index.js';
import type { FleetContext, FleetSubcommand } from './context.js';
import { driveToEnd } from './drive.js';
import { need } from './flags.js';
import { fleetPrinter } from './fleet-table.js';
import { workloadFrom } from './run.js';
import { interruptible } from './signals.js';
import { studyFound } from './study-found.js';

/** Drives study `fleetId` in `bucket` to its end (attach, and compare on an id that exists). */
export async function attachTo(ctx: FleetContext, fleetId: string, bucket: string): Promise<number> {
  const { values, io, stateDir } = ctx;
  const { outDir } = workloadFrom(values);
  const { state, clients } = await studyFound(ctx, fleetId, bucket);
  const printer = fleetPrinter(io, { json: values.format === 'json', autonomous: true, study: state });
  const stop = interruptible(io, `tearing fleet ${fleetId} down`, undefined, printer.say);
  return driveToEnd(stop, printer, clients, () => attachStudy(fleetId, {
    clients, bucket, stateDir, outDir, wait: values.wait, signal: stop.signal, signalName: stop.received,
    holder: `volbench fleet ${ctx.sub} on ${hostname()} pid ${process.pid}`, onEvent: printer.onEvent,
  }));
}

export const attach: FleetSubcommand = {
  flags: ['bucket', 'out', 'wait'],
  async run(ctx) {
    const id = ctx.positionals[0];
    const fleetId = checkFleetId(id ?? '');
    return attachTo(ctx, fleetId, need(ctx.values, 'bucket', 'the bucket the study lives in'));
  },
};
