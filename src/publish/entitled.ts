/**
 * Measured against entitled, per test: each IOPS and MiB/s cell holds what the volume should
 * deliver to that test and direction (the result's `entitlement`, CLOUD-VOLUMES.md "Entitlement
 * in results: the contract"; on an emulated volume scaled as it was held; a mix's direction to
 * its share), the ratio, what bound the job and where that answer comes from, and, above the
 * contract's tolerance, the likely reason the figure cannot be the named volume's.
 */
import type { VolbenchEbsStats } from '../fio-output/ebs-stats-section.js';
import type { BoundBy, BoundBySource, VolbenchEntitlement } from '../fio-output/entitlement-section.js';
import { flagOf, type AboveCause } from '../fio-output/entitled.js';
import type { Dir, Metric } from './suite-columns.js';

export { aboveText, ENTITLED_TOLERANCE, isBuffered, type AboveCause } from '../fio-output/entitled.js';

export interface CellEntitlement {
  /** What the volume allows this test, in the cell's unit (IOPS or MiB/s); null for latency cells or without a volume. */
  entitled: number | null;
  /** The same with full merging of small sequential I/O, where the result says. */
  entitled_merged: number | null;
  measured_vs_entitled: number | null;
  bound_by: BoundBy | null;
  /** ebs-stats: the volume's own statistics said; model: the catalog's model did. */
  bound_by_source: BoundBySource | null;
  /** With bound_by_source ebs-stats: the model's answer beside it. */
  bound_by_model?: BoundBy;
  /**
   * Where the volume's statistics were read: with bound_by_source ebs-stats, the share of the
   * job's time demand exceeded that limit; else the most any limit was exceeded.
   */
  exceeded_share?: number;
  /** With latency: the I/Os in flight the entitled rate needs. */
  depth_needed?: number;
  /** Set when measured/entitled is above the tolerance: the likely cause. */
  flag: AboveCause | null;
}

export const NO_ENTITLEMENT: CellEntitlement = {
  entitled: null, entitled_merged: null, measured_vs_entitled: null, bound_by: null, bound_by_source: null, flag: null,
};

export interface EntitledFacts {
  entitlement: VolbenchEntitlement;
  /** The job's EBS statistics, when its volume answered the page. */
  ebs?: VolbenchEbsStats;
  /** An emulated volume's rate factor (1 for a real one): its entitlement as it was held. */
  rate: number;
  /** Whether the target was identified as the named volume (the result carries its id). */
  identified: boolean;
  buffered: boolean;
}

type Exceeded = keyof VolbenchEbsStats['exceeded_share'];

/** The statistics' counters a limit is measured by (an empty bucket or a spent burst: the volume's or the instance's). */
const COUNTERS: Readonly<Record<string, readonly Exceeded[]>> = {
  'volume-iops': ['volume_iops'], 'volume-throughput': ['volume_throughput'], 'burst-credits': ['volume_iops', 'volume_throughput'],
  'instance-iops': ['instance_iops'], 'instance-bandwidth': ['instance_throughput'], 'instance-burst': ['instance_iops', 'instance_throughput'],
};

/** What bound the job, as every cell of it carries it. */
function binding(f: EntitledFacts): Omit<CellEntitlement, 'entitled' | 'entitled_merged' | 'measured_vs_entitled' | 'flag'> {
  const e = f.entitlement;
  const counters = !f.ebs ? [] : e.bound_by_source === 'ebs-stats' ? COUNTERS[e.bound_by] ?? [] : Object.keys(f.ebs.exceeded_share) as Exceeded[];
  const share = counters.length ? Math.max(...counters.map((k) => f.ebs!.exceeded_share[k])) : undefined;
  return {
    bound_by: e.bound_by, bound_by_source: e.bound_by_source,
    ...(e.bound_by_model ? { bound_by_model: e.bound_by_model } : {}),
    ...(share !== undefined ? { exceeded_share: share } : {}),
    ...(e.depth_needed !== undefined ? { depth_needed: e.depth_needed } : {}),
  };
}

/**
 * The share of the job's entitlement a direction is held to, in the cell's unit: a mix's
 * direction its share of the I/Os (IOPS) or of the bytes (MiB/s), as the result states it;
 * a job of one direction, all of it. Null for a direction the mix does not ask for.
 */
function shareOf(e: VolbenchEntitlement, dir: Dir, metric: 'iops' | 'mibps'): number | null {
  if (!e.read && !e.write) return 1;
  const d = e[dir];
  if (!d) return null;
  return metric === 'iops' ? d.share_of_ios : d.share_of_bytes;
}

/** A cell's entitlement for `metric` in direction `dir`, and its measured `value`. */
export function cellEntitlement(value: number | null, dir: Dir, metric: Metric, f: EntitledFacts): CellEntitlement {
  const bound = binding(f);
  if (metric !== 'iops' && metric !== 'mibps') return { ...NO_ENTITLEMENT, ...bound };
  const e = f.entitlement;
  const share = shareOf(e, dir, metric);
  const pick = (r: { iops: number; mibps: number }) => (share === null ? null : (metric === 'iops' ? r.iops : r.mibps) * share * f.rate);
  const entitled = pick(e.entitled);
  const ratio = value !== null && entitled !== null && entitled > 0 ? value / entitled : null;
  return { ...bound, entitled, entitled_merged: pick(e.entitled_merged), measured_vs_entitled: ratio, flag: flagOf(ratio, f.identified, f.buffered) };
}

/** The job's whole entitlement against its whole measured rate (a price cell's: both directions together). */
export function jobCellEntitlement(value: number | null, metric: 'iops' | 'mibps', f: EntitledFacts): CellEntitlement {
  const e = f.entitlement;
  const entitled = (metric === 'iops' ? e.entitled.iops : e.entitled.mibps) * f.rate;
  const merged = (metric === 'iops' ? e.entitled_merged.iops : e.entitled_merged.mibps) * f.rate;
  const ratio = value !== null && entitled > 0 ? value / entitled : null;
  return { ...binding(f), entitled, entitled_merged: merged, measured_vs_entitled: ratio, flag: flagOf(ratio, f.identified, f.buffered) };
}
