/**
 * The last step of every run, after the report is built: what volbench knows of a result beyond
 * fio's figures, added in one order.
 *
 *   1. cloud facts: with a volume named, `volbench.cloud` and each job's entitlement (src/cloud);
 *   2. findings: each job's series looked at for a burst cliff, held against the volume's burst
 *      model where the result names a volume (src/findings);
 *   3. gates: the run's assertions judged on all of it (src/gates), so a gate may name any of it.
 */
import { cloudFacts, volumeOf, type CloudContext, type Volume } from '../cloud/index.js';
import { analyseBurst } from '../findings/burst.js';
import { judged, type Assertion } from '../gates/index.js';
import type { FioResult } from '../fio-output/fio-result.js';

export interface FinishOptions {
  /** The volume (and instance, region) measured. */
  cloud?: CloudContext;
  /** The volume the findings are held against when no cloud context names one (--until-baseline's). */
  volume?: Volume;
  /** The run's assertions, bound to its spec. */
  assertions?: readonly Assertion[];
}

export function finishRun(result: FioResult, options: FinishOptions = {}): FioResult {
  const facts = options.cloud ? cloudFacts(result, options.cloud) : result;
  const volume = options.cloud ? volumeOf(options.cloud.volume) : options.volume;
  const found = analyseBurst(facts, { volume });
  return judged(found, [...(options.assertions ?? [])]);
}
