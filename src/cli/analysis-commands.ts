/** The analysis commands, wired into main.ts in one place. */
import type { CommandIo } from './io.js';
import { rotationalCommand } from './rotational-command.js';
import { sweepCommand } from './sweep-command.js';
import { uniformityCommand } from './uniformity-command.js';

export const ANALYSIS_COMMANDS = ['sweep', 'uniformity', 'rotational'] as const;

export const ANALYSIS_COMMANDS_USAGE = `  volbench sweep [fio options of one job]    the best iodepth (or numjobs): a curve and its optimum
  volbench uniformity --filename PATH        speed along a file or device (--initialize: read it all)
  volbench rotational --filename PATH        seek time, revolution time and RPM of a spinning disk
`;

export function analysisCommand(command: (typeof ANALYSIS_COMMANDS)[number], argv: string[], io: CommandIo): Promise<number> {
  if (command === 'sweep') return sweepCommand(argv, io);
  if (command === 'uniformity') return uniformityCommand(argv, io);
  return rotationalCommand(argv, io);
}
