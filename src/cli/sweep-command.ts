/**
 * `volbench sweep`: one job template (fio's flags or a job file) run at iodepth 1, 2, 4, ... (or
 * over numjobs), the curve and the best depth printed as drvperf prints them.
 */
import { VolbenchError } from '../errors.js';
import { runSweep, DEFAULT_MAX_DEPTH, type SweepOver } from '../analysis/sweep.js';
import { DEFAULT_ALPHA } from '../findings/optimum.js';
import { parseFioArgs, parseTimeNs } from '../jobspec/index.js';
import { extractOwnFlags } from './own-flags.js';
import { analysisOutputUsage, intFlag, runAnalysisCommand, takeAnalysisFlags } from './analysis-shared.js';
import { warnTo, type CommandIo } from './io.js';

export const SWEEP_USAGE = `Usage:
  volbench sweep [fio options of one job] [jobfile] [options]

Runs the job at iodepth 1, 2, 4, ... up to --max-depth and finds the depth that maximises
T·L / (α·L + (1−α)·T), T the IOPS and L the reciprocal mean latency, each over the sweep's best.
Stops early once IOPS grow less than 5% over two doublings, or p99 passes --max-p99. A job
without a runtime runs 5s, time based, at each point.

Options:
  --max-depth N                      the highest depth (or job count) tried (default ${DEFAULT_MAX_DEPTH})
  --over iodepth|numjobs             what the sweep doubles (default iodepth)
  --alpha A                          weight of throughput against latency, 0..1 (default ${DEFAULT_ALPHA})
  --max-p99 TIME                     stop once a point's p99 completion latency passes TIME (5ms)
${analysisOutputUsage('sweep')}
Example:
  volbench sweep --name=rr --filename=/data/vb.bin --size=1g --rw=randread --bs=4k \\
      --ioengine=io_uring --direct=1 --runtime=3 --time_based --max-depth 128 \\
      --assert 'sweep.optimal_depth >= 8'
`;

function parseAlpha(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const alpha = Number(text);
  if (text.trim() === '' || !(alpha >= 0 && alpha <= 1)) {
    throw new VolbenchError('EINVALID_VALUE', `--alpha takes a number from 0 to 1, not '${text}'`, { field: '--alpha', accepted: '0 to 1, e.g. 0.8' });
  }
  return alpha;
}

function parseOver(text: string | undefined): SweepOver | undefined {
  if (text === undefined || text === 'iodepth' || text === 'numjobs') return text;
  throw new VolbenchError('EINVALID_VALUE', `--over takes iodepth or numjobs, not '${text}'`, { field: '--over', accepted: 'iodepth, numjobs' });
}

export async function sweepCommand(argv: string[], io: CommandIo): Promise<number> {
  const gates = extractOwnFlags(argv, { warn: warnTo(io) });
  const flags = takeAnalysisFlags('sweep', gates.rest, ['max-depth', 'over', 'alpha', 'max-p99'], [], true);
  const { spec } = parseFioArgs(flags.rest);
  const maxP99 = flags.values.get('max-p99');
  const options = {
    over: parseOver(flags.values.get('over')),
    maxDepth: intFlag(flags, 'max-depth'),
    alpha: parseAlpha(flags.values.get('alpha')),
    maxP99Ns: maxP99 === undefined ? undefined : parseTimeNs(maxP99, { defaultUnit: 'us', field: '--max-p99' }),
    assertions: gates.asserts,
    limits: gates.limits,
    ...(gates.cloud ? { cloud: gates.cloud } : {}),
  };
  return runAnalysisCommand('sweep', flags, gates, io, ({ signal, printer, say }) =>
    runSweep(spec, {
      ...options,
      signal,
      onProgress: (p) => printer.update(p),
      onPoint: (e) => {
        if (e.figures === undefined) return;
        const f = e.figures;
        say(`[${e.point}/${e.points}] ${e.over}=${e.value}: ${Math.round(f.iops)} IOPS, p99 ${(f.clat_p99_ns / 1000).toFixed(1)}us`);
      },
    }));
}
