/**
 * `volbench fleet down FLEET_ID`: everything of the fleet deleted, and the check that nothing
 * remains (exit 1 when something does). A signal asks every stack to go at once, then the
 * teardown goes on; a second one leaves.
 */
import { deleteStacksOnAbort, fleetDown } from '../../fleet/index.js';
import type { FleetSubcommand } from './context.js';
import { foundFleet } from './found.js';
import { eventPrinter, print } from './print.js';
import { interruptible } from './signals.js';

export const down: FleetSubcommand = {
  flags: ['bucket'],
  async run(ctx) {
    const { values, io, stateDir } = ctx;
    const { state, clients } = await foundFleet(ctx);
    const onEvent = eventPrinter(io, false);
    const stop = interruptible(io, `deleting fleet ${state.fleetId}`);
    const stopListening = deleteStacksOnAbort(stop.signal, state, { clients, stateDir, onEvent });
    try {
      const { remaining } = await fleetDown(state, { clients, stateDir, onEvent });
      print(io, values, { fleetId: state.fleetId, remaining }, '');
      return remaining.length ? 1 : 0;
    } finally {
      stopListening();
      stop.dispose();
      clients.destroy();
    }
  },
};
