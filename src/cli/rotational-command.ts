/**
 * `volbench rotational`: seek time, revolution time and RPM of a spinning disk, from many long
 * and shortest jumps.
 */
import { runRotational, DEFAULT_ROTATIONAL_SAMPLES } from '../analysis/rotational.js';
import { extractOwnFlags } from './own-flags.js';
import { analysisOutputUsage, intFlag, runAnalysisCommand, takeAnalysisFlags } from './analysis-shared.js';
import { warnTo, type CommandIo } from './io.js';

export const ROTATIONAL_USAGE = `Usage:
  volbench rotational --filename PATH [options]

Times single direct reads that jump between the two ends of the target (full strokes) and
within a small window (the shortest seeks); outliers are dropped by MAD filtering. Only reads.

Options:
  --filename PATH                    a block device (or a file on one)
  --force                            measure a target that does not say it is rotational
  --samples N                        long jumps and short jumps timed, each (default ${DEFAULT_ROTATIONAL_SAMPLES})
  --ioengine E                       the engine of the reads
${analysisOutputUsage('rotational')}`;

export async function rotationalCommand(argv: string[], io: CommandIo): Promise<number> {
  const gates = extractOwnFlags(argv, { warn: warnTo(io) });
  const flags = takeAnalysisFlags('rotational', gates.rest, ['filename', 'samples', 'ioengine'], ['force'], false);
  const samples = intFlag(flags, 'samples');
  const options = {
    ...(flags.values.has('filename') ? { filename: flags.values.get('filename') } : {}),
    ...(flags.values.has('ioengine') ? { ioengine: flags.values.get('ioengine') } : {}),
    ...(samples === undefined ? {} : { longSamples: samples, shortSamples: samples }),
    force: flags.switches.has('force'),
    assertions: gates.asserts,
    limits: gates.limits,
    ...(gates.cloud ? { cloud: gates.cloud } : {}),
  };
  return runAnalysisCommand('rotational', flags, gates, io, ({ signal, say }) =>
    runRotational({ ...options, signal, onBatch: (e) => say(`${e.done}/${e.total} reads timed`) }));
}
