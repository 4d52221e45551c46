/**
 * ETA samples as a user sees them (a status line, a progress event), stamped with when they
 * arrived, held against when the run actually ended.
 */
export interface EtaSample {
  /** Date.now() when it arrived. */
  at: number;
  /** Share of the run done, 0..1. */
  fraction: number;
  etaMs: number | null;
}

/**
 * The size and runtime of the ETA tests' job: a time_based job on a new file. The issue's own
 * case (4g, 10) or its figure (1g, 40) through VOLBENCH_ETA_SIZE and VOLBENCH_ETA_RUNTIME; by
 * default shorter, for the test run's budget.
 */
export const ETA_JOB = {
  size: process.env.VOLBENCH_ETA_SIZE ?? '1g',
  runtimeS: Number(process.env.VOLBENCH_ETA_RUNTIME ?? 4),
};

/** Within this of the time actually left: a correct estimate, whatever the machine's speed. */
export const ETA_TOLERANCE_MS = 2000;

/** The first sample at `share` of the run or more that has an estimate. */
export function firstAt(samples: readonly EtaSample[], share: number): EtaSample | undefined {
  return samples.find((s) => s.fraction >= share && s.etaMs !== null);
}

/** Each sample's estimate against what was left when it arrived, for the figures. */
export function etaFigures(samples: readonly EtaSample[], endedAt: number): Array<{ share: number; etaS: number; leftS: number }> {
  return [0.1, 0.5, 0.9].flatMap((share) => {
    const s = firstAt(samples, share);
    return s ? [{ share, etaS: s.etaMs! / 1000, leftS: (endedAt - s.at) / 1000 }] : [];
  });
}
