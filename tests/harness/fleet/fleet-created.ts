/**
 * Which fleet a running `volbench fleet up` or `fleet compare` created: the one place that knows
 * how the CLI says so. Today that is the state file it saves, before any stack, in the
 * `--state-dir` the rehearsal gives each such command (so the directory holds that fleet alone),
 * read with the library's own reader. When the CLI prints the fleet lifecycle's events
 * (`{"event":"created","fleetId":...}`, the first JSON line of `--format json`), this reads that
 * line instead; its callers do not change.
 */
import { checkFleetId, listStates } from '../../../src/fleet/index.js';

/** The fleet whose state the command wrote in `stateDir`, or undefined before it has. */
export function createdFleet(stateDir: string): string | undefined {
  const states = listStates(stateDir);
  if (states.length > 1) throw new Error(`${stateDir}: ${states.length} fleets, where one command made one`);
  // A state file is input like any other: its id is checked before it names stacks.
  return states.length ? checkFleetId(String(states[0].fleetId)) : undefined;
}

/**
 * Calls `onCreated` once, as soon as the command's fleet exists (looking every `everyMs`), until
 * stop(), which answers the fleet id (undefined: none was created) or throws what the look found
 * wrong.
 */
export function watchCreated(stateDir: string, onCreated: (fleetId: string) => void, everyMs = 100): { stop(): string | undefined } {
  let fleetId: string | undefined;
  let failure: unknown;
  const look = () => {
    if (fleetId !== undefined || failure !== undefined) return;
    try {
      fleetId = createdFleet(stateDir);
    } catch (err) {
      failure = err;
      clearInterval(timer);
      return;
    }
    if (fleetId !== undefined) onCreated(fleetId);
  };
  const timer = setInterval(look, everyMs);
  return {
    stop() {
      clearInterval(timer);
      look();
      if (failure !== undefined) throw failure;
      return fleetId;
    },
  };
}
