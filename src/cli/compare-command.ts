/**
 * `volbench compare A.json B.json [--tolerance 5%] [--metric iops,bw,clat_ns.p99]`: the table
 * on stdout; exit 1 when B is worse than A beyond the tolerance, 2 on bad input.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

import { VolbenchError } from '../errors.js';
import { compareResults, formatComparison, parseFioJsonText } from '../compare/index.js';
import type { FioJson } from '../fio-output/fio-result.js';
import { flagName, flagValue } from './own-flags.js';
import type { CommandIo } from './io.js';

export const COMPARE_USAGE = `Usage:
  volbench compare A.json B.json [--tolerance 5%] [--metric iops,bw,clat_ns.p99]

Pairs the jobs of two fio or volbench JSON results by name and direction, prints A, B and the
change, and exits 1 when B is worse than A by more than the tolerance on any metric (higher is
better for iops, bw and io_bytes, lower for latencies), 2 on error.
`;

const TOLERANCE_ACCEPTED = 'a percentage such as 5% (or 5)';

function parseTolerance(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*%?$/.exec(text.trim());
  if (!m) throw new VolbenchError('EINVALID_VALUE', `--tolerance takes a percentage, not '${text}'`, { field: '--tolerance', accepted: TOLERANCE_ACCEPTED });
  return Number(m[1]);
}

function readResult(path: string): FioJson {
  let text: string;
  try {
    text = readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (cause) {
    throw new VolbenchError('EINVALID_ARGS', `cannot read ${path}: ${(cause as Error).message}`, { path, cause });
  }
  return parseFioJsonText(text, path);
}

export async function compareCommand(argv: string[], io: CommandIo): Promise<number> {
  const files: string[] = [];
  let tolerancePct: number | undefined;
  let metrics: string[] | undefined;
  for (let i = 0; i < argv.length; ) {
    const name = flagName(argv[i]);
    if (name === 'tolerance' || name === 'metric') {
      const [value, used] = flagValue(argv, i, name);
      if (name === 'tolerance') tolerancePct = parseTolerance(value);
      else metrics = value.split(',').map((m) => m.trim()).filter(Boolean);
      i += used;
    } else if (argv[i].startsWith('-') && argv[i] !== '-') {
      throw new VolbenchError('EINVALID_ARGS', `compare does not take '${argv[i]}'`, { field: argv[i], accepted: '--tolerance, --metric' });
    } else {
      files.push(argv[i++]);
    }
  }
  if (files.length !== 2) {
    throw new VolbenchError('EINVALID_ARGS', `compare needs two result files (baseline, then candidate), got ${files.length}`, { accepted: 'A.json B.json' });
  }
  const [a, b] = files.map(readResult);
  const comparison = compareResults(a, b, { ...(tolerancePct === undefined ? {} : { tolerancePct }), ...(metrics ? { metrics } : {}) });
  const short = files.map((f) => basename(f));
  io.stdout.write(formatComparison(comparison, (short[0] === short[1] ? files : short) as [string, string]));
  return comparison.worse ? 1 : 0;
}
