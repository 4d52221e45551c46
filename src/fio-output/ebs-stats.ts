/**
 * What a result says of a Nitro volume's own statistics (NVMe log page 0xD0, src/device/
 * ebs-log-page.ts), per job: the page read before and after the job's stage, as deltas. The
 * exceeded times say which limit held the job back, measured by EBS rather than modelled: a job
 * bound by a limit shows that limit exceeded for close to its whole time.
 *
 * The shapes of `volbench.jobs[i].ebs_stats` and `volbench.cloud.emulation`, from the result
 * schema (fio-result.ts).
 */
import type { z } from 'zod';

import type { VolbenchCloud } from './fio-result.js';
import type { ebsLatencyBinSchema, VolbenchEbsStats } from './ebs-stats-section.js';

export type EbsStatsJob = VolbenchEbsStats;
export type EbsLatencyBin = z.infer<typeof ebsLatencyBinSchema>;
export type EbsExceeded = VolbenchEbsStats['exceeded_us'];
export type CloudEmulation = NonNullable<VolbenchCloud['emulation']>;
