/**
 * `volbench uniformity`: the speed along a file or device, a large sequential direct probe in
 * each of its chunks; with --initialize, every block read once (a restored EBS volume's
 * initialisation pass).
 */
import { runUniformity, DEFAULT_CHUNKS, DEFAULT_PROBE } from '../analysis/uniformity.js';
import { uniformityMiB, uniformityMiBps } from '../analysis/format.js';
import { extractOwnFlags } from './own-flags.js';
import { analysisOutputUsage, intFlag, runAnalysisCommand, takeAnalysisFlags } from './analysis-shared.js';
import { warnTo, type CommandIo } from './io.js';

export const UNIFORMITY_USAGE = `Usage:
  volbench uniformity --filename PATH [options]

Splits the target into even chunks and times a sequential direct probe at the start of each:
min / avg / max MiB/s, where the slowest and fastest are, and every chunk's speed, each chunk's
as it is timed ([i/N] on stderr). Sizes and offsets are in MiB; the JSON keeps fio's MB/s
(10^6 bytes/s: min_mbps, avg_mbps, max_mbps, and the gates on them).

Options:
  --filename PATH                    a file or block device
  --size SIZE                        the bytes to cover (default: the target's size; needed for
                                     a file not there yet, which is laid out first)
  --chunks N                         chunks (default ${DEFAULT_CHUNKS})
  --probe SIZE                       bytes at the start of each chunk (default ${DEFAULT_PROBE}, less
                                     when a chunk is smaller)
  --initialize                       read every chunk whole: every block once (EBS initialisation)
  --write                            write the probes (a block device needs --allow_block_write)
  --bs SIZE, --iodepth N, --ioengine E   the probes' I/O (default 1m, 1, the default engine)
  --allow_block_write                allow writing a block device
${analysisOutputUsage('uniformity')}`;

export async function uniformityCommand(argv: string[], io: CommandIo): Promise<number> {
  const gates = extractOwnFlags(argv, { warn: warnTo(io) });
  const flags = takeAnalysisFlags('uniformity', gates.rest,
    ['filename', 'size', 'chunks', 'probe', 'bs', 'iodepth', 'ioengine'], ['initialize', 'write', 'allow_block_write'], false);
  const v = (name: string) => flags.values.get(name);
  const options = {
    filename: v('filename'),
    size: v('size'),
    chunks: intFlag(flags, 'chunks'),
    probe: v('probe'),
    bs: v('bs'),
    iodepth: v('iodepth'),
    ioengine: v('ioengine'),
    initialize: flags.switches.has('initialize'),
    write: flags.switches.has('write'),
    allow_block_write: flags.switches.has('allow_block_write'),
    assertions: gates.asserts,
    limits: gates.limits,
    ...(gates.cloud ? { cloud: gates.cloud } : {}),
  };
  const defined = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  return runAnalysisCommand('uniformity', flags, gates, io, ({ signal, printer, say }) =>
    runUniformity({
      ...defined,
      signal,
      onProgress: (p) => printer.update(p),
      onChunk: (e) => {
        if (e.mbps !== undefined) say(`[${e.chunk}/${e.chunks}] at ${uniformityMiB(e.offset)}: ${uniformityMiBps(e.mbps)}`);
      },
    }));
}
