/**
 * Puts a run's EBS statistics into its result, before the cloud facts are added (they read
 * them): each job entry's deltas over its stage on its target's device (`volbench.jobs[i].
 * ebs_stats`), why some have none (`volbench.ebs_stats_unavailable`, once), and an emulated
 * volume's scale (`volbench.cloud.emulation`).
 */
import type { EbsReads, EbsStatsWatch } from '../device/ebs-stats-watch.js';
import type { FioResult, VolbenchSection } from '../fio-output/index.js';

/** The pages read around one stage. */
export interface StageReads {
  from: EbsReads;
  to: EbsReads;
}

/**
 * `entryOf[i]`: the stage and target of result job entry i (its first member's); null for an
 * entry whose jobs touch no device.
 */
export function withEbsStats(
  result: FioResult,
  watch: EbsStatsWatch,
  stages: ReadonlyArray<StageReads | undefined>,
  entryOf: ReadonlyArray<{ stage: number; targetIndex: number } | null>,
): FioResult {
  const jobs = result.volbench.jobs.map((job, i) => {
    const at = entryOf[i];
    const reads = at ? stages[at.stage] : undefined;
    const stats = at && reads ? watch.delta(reads.from, reads.to, at.targetIndex) : null;
    return stats ? { ...job, ebs_stats: stats } : job;
  });
  const section: VolbenchSection = { ...result.volbench, jobs };
  const why = watch.unavailable();
  if (why !== undefined) section.ebs_stats_unavailable = why;
  const emulation = watch.emulation();
  if (emulation) section.cloud = { ...(section.cloud ?? { provider: 'aws' }), emulation };
  return { ...result, volbench: section };
}
