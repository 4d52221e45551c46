/**
 * `volbench fleet compare`: the whole study in one command (the library's compareFleet): up,
 * the workload on every member, the report on stdout, down (or --keep). Exits 0 when every member
 * finished and no gate failed, 1 otherwise, the signal's status after a signal.
 */
import { compareFleet, fleetClients, formatPlan, studyPassed } from '../../fleet/index.js';
import type { FleetSubcommand } from './context.js';
import { upSettings } from './create.js';
import { RUN_FLAGS, UP_FLAGS } from './flags.js';
import { planFrom } from './plan.js';
import { eventPrinter } from './print.js';
import { workloadFrom } from './run.js';
import { interruptible, signalStatus } from './signals.js';

export const compare: FleetSubcommand = {
  flags: [...UP_FLAGS, ...RUN_FLAGS, 'keep'],
  async run({ values, io, stateDir }) {
    const plan = planFrom(values);
    io.stderr.write(formatPlan(plan));
    const settings = await upSettings(values, plan);
    // The members run the suites the plan gave them (auto, suite=): --suite made the plan.
    const { suite: _planned, ...workload } = workloadFrom(values);
    const clients = fleetClients({ region: plan.region, profile: values.profile });
    const stop = interruptible(io, `tearing fleet ${plan.fleetId} down`);
    try {
      const outcome = await compareFleet(plan, {
        ...settings, ...workload, clients, stateDir, keep: values.keep, signal: stop.signal, onEvent: eventPrinter(io, values.format === 'json'),
      });
      if (stop.received()) return signalStatus(stop.received())!;
      return studyPassed(outcome.results) ? 0 : 1;
    } catch (err) {
      if (stop.received()) return signalStatus(stop.received())!;
      throw err;
    } finally {
      stop.dispose();
      clients.destroy();
    }
  },
};
