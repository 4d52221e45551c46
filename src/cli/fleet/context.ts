/** What each fleet subcommand's run function is given: its parsed flags, and where it writes. */
import type { CommandIo } from '../io.js';
import type { FleetFlag, FleetValues } from './flags.js';

export interface FleetContext {
  sub: string;
  values: FleetValues;
  positionals: string[];
  /** Streams that stop writing, silently, once their reader is gone (signals.ts). */
  io: CommandIo & { gone(): void };
  /** --state-dir, resolved. */
  stateDir: string;
}

export interface FleetSubcommand {
  /** The flags it takes besides the common ones (--region, --profile, --state-dir, --format). */
  flags: readonly FleetFlag[];
  run(ctx: FleetContext): Promise<number>;
}
