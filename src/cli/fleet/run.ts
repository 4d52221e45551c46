/**
 * `volbench fleet run FLEET_ID`: the workload (the plan's suites, --suite, or --job) on every
 * member of a fleet that is up, refused when longer than the fleet has left unless --ttl extends
 * it; the report on stdout. A signal cancels the runs and leaves the fleet up.
 */
import { resolve } from 'node:path';

import { fitWorkload, fleetNow, fleetReport, parseTtl, readEndpointMap, runFleet, studyPassed, workloadSeconds, type FleetRunOptions } from '../../fleet/index.js';
import { VolbenchError } from '../../errors.js';
import { renderMarkdown } from '../../publish/index.js';
import type { FleetSubcommand } from './context.js';
import { RUN_FLAGS, type FleetValues } from './flags.js';
import { foundFleet } from './found.js';
import { jobText } from './plan.js';
import { fleetPrinter } from './fleet-table.js';
import { print } from './print.js';
import { interruptible, signalStatus } from './signals.js';

/** The workload and where it goes, as the flags give them (`compare` too). */
export function workloadFrom(values: FleetValues): Omit<FleetRunOptions, 'clients' | 'signal' | 'onEvent'> {
  return {
    outDir: resolve(values.out ?? 'results'),
    ...(values.job ? { jobFile: jobText(values.job) } : {}),
    ...(values.suite !== undefined ? { suite: values.suite } : {}),
    ...(values.runtime !== undefined ? { runtime: values.runtime } : {}),
    ...(values['no-precondition'] ? { precondition: false } : {}),
    assert: values.assert,
    endpointMap: values['endpoint-map'] ? readEndpointMap(values['endpoint-map']) : undefined,
  };
}

export const run: FleetSubcommand = {
  flags: [...RUN_FLAGS, 'ttl', 'now', 'bucket'],
  async run(ctx) {
    const { values, io, stateDir } = ctx;
    const { state, clients } = await foundFleet(ctx);
    if (state.study) {
      clients.destroy();
      throw new VolbenchError('EINVALID_ARGS', `fleet ${state.fleetId} is a study: its members run on their own (fleet status, fleet attach follow it)`, {
        field: 'FLEET_ID', accepted: 'a fleet made by fleet up',
      });
    }
    const printer = fleetPrinter(io, { json: false, fleet: state });
    const stop = interruptible(io, 'cancelling the runs', undefined, printer.say);
    try {
      const workload = workloadFrom(values);
      await fitWorkload(state, workloadSeconds(state.plan, workload), {
        clients, stateDir, now: fleetNow(values.now), ...(values.ttl ? { ttlSec: parseTtl(values.ttl) } : {}), onEvent: printer.onEvent,
      });
      const results = await runFleet(state, { ...workload, clients, signal: stop.signal, onEvent: printer.onEvent });
      printer.finish();
      print(io, values, { fleetId: state.fleetId, results: results.map(({ result: _r, ...rest }) => rest) }, renderMarkdown(fleetReport(state, results)));
      if (stop.received()) return signalStatus(stop.received())!;
      return studyPassed(results) ? 0 : 1;
    } finally {
      printer.finish();
      stop.dispose();
      clients.destroy();
    }
  },
};
