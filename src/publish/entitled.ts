/**
 * Measured against entitled, per test: each IOPS and MiB/s cell holds what the volume should
 * deliver to that test (the result's `entitlement`, CLOUD-VOLUMES.md "Entitlement in results:
 * the contract"), the ratio, what bound it, and, above the contract's tolerance, the likely
 * reason the figure cannot be the named volume's.
 */
import { flagOf, type AboveCause } from '../fio-output/entitled.js';
import type { JobEntitlement } from './cloud-fields.js';
import type { Metric } from './suite-columns.js';

export { aboveText, ENTITLED_TOLERANCE, isBuffered, type AboveCause } from '../fio-output/entitled.js';

export interface CellEntitlement {
  /** What the volume allows this test, in the cell's unit (IOPS or MiB/s); null for latency cells or without a volume. */
  entitled: number | null;
  /** The same with full merging of small sequential I/O, where the result says. */
  entitled_merged: number | null;
  measured_vs_entitled: number | null;
  bound_by: string | null;
  /** Set when measured/entitled is above the tolerance: the likely cause. */
  flag: AboveCause | null;
}

export const NO_ENTITLEMENT: CellEntitlement = { entitled: null, entitled_merged: null, measured_vs_entitled: null, bound_by: null, flag: null };

export interface EntitledFacts {
  entitlement: JobEntitlement | undefined;
  /** Whether the target was identified as the named volume (the result carries its id). */
  identified: boolean;
  buffered: boolean;
}

/** A cell's entitlement for `metric` and its measured `value`. */
export function cellEntitlement(value: number | null, metric: Metric, facts: EntitledFacts): CellEntitlement {
  const e = facts.entitlement;
  if (!e || (metric !== 'iops' && metric !== 'mibps')) return e?.bound_by ? { ...NO_ENTITLEMENT, bound_by: e.bound_by } : NO_ENTITLEMENT;
  const entitled = (metric === 'iops' ? e.iops : e.throughput_mibps) ?? null;
  const merged = (metric === 'iops' ? e.merged_iops : e.merged_mibps) ?? null;
  const ratio = value !== null && entitled !== null && entitled > 0 ? value / entitled : null;
  const flag = flagOf(ratio, facts.identified, facts.buffered);
  return { entitled, entitled_merged: merged, measured_vs_entitled: ratio, bound_by: e.bound_by ?? null, flag };
}
