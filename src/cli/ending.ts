/**
 * How every command that runs I/O ends, once the result is printed: each job's error and each
 * I/O the device never answered on stderr, the gate report (a line per assertion, JUnit,
 * GitHub annotations), and the exit status: 130 when interrupted, 1 when a job ended with an
 * error or an assertion failed, else 0.
 */
import { isAmazonModel } from '../device/ebs-stats-source.js';
import { EMULATED_NVME_ENV } from '../device/emulated-nvme.js';
import type { FioResult } from '../fio-output/fio-result.js';
import { gateExitStatus, reportGates } from './gate-report.js';
import type { CommandIo } from './io.js';
import type { GateArgs } from './own-flags.js';

/** Exit status of a result alone: 0 when every job ran clean, 1 when one ended with an error, 130 when interrupted. */
export function exitStatus(result: FioResult): number {
  if (result.jobs.some((j) => j.error !== 0)) return 1;
  if (result.volbench.jobs.some((j) => j.cancelled)) return 130;
  return 0;
}

/** Each job's error, and the I/Os a device never answered, one line each on stderr. */
export function reportJobTrouble(result: FioResult, io: CommandIo): void {
  for (const job of result.volbench.jobs) {
    if (job.error_message) io.stderr.write(`volbench: job ${job.jobname}: ${job.error_message}\n`);
    // A thread inside the kernel cannot be killed: say why the process may not exit yet.
    if (job.stuck_ios) {
      const n = job.stuck_ios === 1 ? '1 I/O' : `${job.stuck_ios} I/Os`;
      io.stderr.write(`volbench: job ${job.jobname}: ${n} never completed: the device stopped answering, ` +
        'and this process cannot exit until it answers (or its connection is aborted)\n');
    }
  }
}

/**
 * Why the run has no EBS statistics, one line on stderr, only where a user expects them: a
 * target on an Amazon NVMe volume, or the test seam set (a local disk's result says it too,
 * but quietly: volbench.ebs_stats_unavailable).
 */
export function reportMissingEbsStats(result: FioResult, io: CommandIo): void {
  const why = result.volbench.ebs_stats_unavailable;
  if (why === undefined) return;
  const expected = result.volbench.targets.some((t) => isAmazonModel(t.model)) || why.includes(EMULATED_NVME_ENV);
  if (expected) io.stderr.write(`volbench: no EBS statistics (bound_by comes from the model): ${why}\n`);
}

export interface Ending {
  io: CommandIo;
  /** The command's gate flags; without them no gate is reported (demo). */
  gates?: GateArgs;
  /** The name the JUnit report gives the run (`volbench`, `volbench.<suite>`). */
  name?: string;
}

/** Reports the run's trouble and its gates; the command's exit status. */
export function endCommand(result: FioResult, { io, gates, name = 'volbench' }: Ending): number {
  reportJobTrouble(result, io);
  reportMissingEbsStats(result, io);
  const outcomes = result.volbench.assertions ?? [];
  if (gates) reportGates(outcomes, gates, io, result, name);
  return gateExitStatus(exitStatus(result), outcomes);
}
