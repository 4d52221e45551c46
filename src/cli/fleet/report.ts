/** `volbench fleet report FLEET_ID`: the report of the results `run` saved beneath --out, as `volbench report` makes it. */
import { resolve } from 'node:path';

import { fleetReport, savedResults } from '../../fleet/index.js';
import { renderMarkdown } from '../../publish/index.js';
import type { FleetSubcommand } from './context.js';
import { foundFleet } from './found.js';
import { print } from './print.js';

export const report: FleetSubcommand = {
  flags: ['out', 'bucket'],
  async run(ctx) {
    const { state, clients } = await foundFleet(ctx);
    try {
      const results = savedResults(state, resolve(ctx.values.out ?? 'results'));
      print(ctx.io, ctx.values, { fleetId: state.fleetId, results }, renderMarkdown(fleetReport(state, results)));
      return 0;
    } finally {
      clients.destroy();
    }
  },
};
