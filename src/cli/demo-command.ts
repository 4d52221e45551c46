/**
 * `volbench demo` (what `npm start` runs): a short, real benchmark on a temporary file in the
 * current directory (or --directory), removed afterwards, printed in fio's normal format.
 */
import { resolve } from 'node:path';

import { nativeAddon } from '../engine/addon.js';
import { VolbenchError } from '../errors.js';
import { runJobs } from '../run/run-jobs.js';
import type { JobSpec } from '../jobspec/types.js';
import { ProgressPrinter } from './progress-line.js';
import { renderOutputs } from './run-command.js';
import { endCommand } from './ending.js';
import type { CommandIo } from './io.js';

export const DEMO_USAGE = `Usage:
  volbench demo [--directory DIR]

A short benchmark on a 256 MiB temporary file in DIR (default: the current directory), removed
afterwards: 4k random read and 4k random write at depth 32, and 1 MiB sequential read at
depth 8, 5 s each, printed as fio's normal text. Direct I/O where the filesystem allows it.
\`npm start\` runs it.
`;

export function demoSpec(directory: string, direct = true): JobSpec {
  return {
    global: {
      filename: resolve(directory, `.volbench-demo-${process.pid}.bin`),
      size: '256m',
      direct: direct ? 1 : 0,
      runtime: '5s',
      time_based: true,
      unlink: 1,
    },
    jobs: [
      { name: 'randread-4k-qd32', rw: 'randread', bs: '4k', iodepth: 32 },
      { name: 'randwrite-4k-qd32', stonewall: true, rw: 'randwrite', bs: '4k', iodepth: 32 },
      { name: 'read-1m-qd8', stonewall: true, rw: 'read', bs: '1m', iodepth: 8 },
    ],
  };
}

export async function demoCommand(argv: string[], io: CommandIo): Promise<number> {
  let directory = process.cwd();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--directory' && argv[i + 1] !== undefined) directory = argv[++i];
    else if (a.startsWith('--directory=')) directory = a.slice('--directory='.length);
    else throw new VolbenchError('EINVALID_ARGS', `demo does not take '${a}'`, { field: a, accepted: '--directory DIR' });
  }
  // Some filesystems (overlay on older kernels, some network ones) refuse O_DIRECT: measure
  // through the page cache there rather than fail the quick start.
  const direct = (await nativeAddon().probeTarget(resolve(directory, '.volbench-demo-probe')))?.directOk ?? false;
  io.stderr.write(
    `volbench demo: 4k random read, 4k random write and 1 MiB sequential read, 5 s each, on a 256 MiB file in ${directory}` +
      `${direct ? '' : ' (buffered: this filesystem refuses O_DIRECT)'}\n`,
  );
  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  process.once('SIGINT', onSignal);
  const printer = new ProgressPrinter(io.stderr);
  try {
    const result = await runJobs(demoSpec(directory, direct), { signal: controller.signal, onProgress: (p) => printer.update(p) });
    printer.done();
    io.stdout.write(renderOutputs(result, ['normal']));
    const status = endCommand(result, { io });
    // What to do next: the suite a desktop benchmark runs, on the same directory.
    if (status === 0) io.stderr.write(`volbench demo: next, a whole suite: volbench suite kdiskmark --directory ${directory === process.cwd() ? '.' : directory}\n`);
    return status;
  } finally {
    printer.done();
    process.off('SIGINT', onSignal);
  }
}
