/**
 * `volbench fleet up`: the fleet made (one stack per volume), as the library's fleetUp says it
 * goes. A signal tears down what was made (signals.ts) and exits with the signal's status.
 */
import { fleetClients, fleetUp } from '../../fleet/index.js';
import type { FleetSubcommand } from './context.js';
import { upSettings } from './create.js';
import { UP_FLAGS } from './flags.js';
import { planFrom } from './plan.js';
import { eventPrinter } from './print.js';
import { interruptible, signalStatus } from './signals.js';

export const up: FleetSubcommand = {
  flags: UP_FLAGS,
  async run({ values, io, stateDir }) {
    const plan = planFrom(values);
    const settings = await upSettings(values, plan);
    const json = values.format === 'json';
    const clients = fleetClients({ region: plan.region, profile: values.profile });
    const stop = interruptible(io, `tearing fleet ${plan.fleetId} down`);
    try {
      const state = await fleetUp(plan, { ...settings, clients, stateDir, signal: stop.signal, onEvent: eventPrinter(io, json) });
      if (!json) io.stdout.write(`${state.fleetId}\n`);
      return 0;
    } catch (err) {
      // Torn down on a signal: the signal's status, as a shell expects.
      if (stop.received()) return signalStatus(stop.received())!;
      throw err;
    } finally {
      stop.dispose();
      clients.destroy();
    }
  },
};
