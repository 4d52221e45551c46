/**
 * The cloud facts a report reads from a result, from its volbench section as the schema parsed
 * it (read-result.ts): the volume (`volbench.cloud`), the analyses (`volbench.jobs[].analysis`,
 * `volbench.sweep`). A result without them (fio's own, or a run on a plain file) still reports,
 * with those columns empty.
 */
import type { VolbenchBurst } from '../fio-output/analysis-sections.js';
import type { VolbenchCloud, VolbenchPrice } from '../fio-output/fio-result.js';

/** The volume a result was measured on, as far as the result knows it. */
export interface CloudVolumeFields {
  provider?: string;
  region?: string;
  availability_zone?: string;
  instance_type?: string;
  volume_id?: string;
  /** gp3, io2, st1, ... */
  volume_type?: string;
  size_gib?: number;
  /** Provisioned (or baseline) IOPS and throughput. */
  iops?: number;
  throughput_mibps?: number;
  /** The fleet member's label. */
  label?: string;
  fleet_id?: string;
  /** The price the result carries, if the catalog priced it when the result was written. */
  price?: VolumePrice;
}

/** A volume's monthly price as a report reads it: a result's own, or the pricer's, which says the region it priced. */
export type VolumePrice = Omit<VolbenchPrice, 'source'> & {
  source?: string;
  /** The region priced, when the pricer says (the catalog's does). */
  region?: string;
};

export interface SweepPoint {
  iodepth: number;
  iops?: number;
  bw_bytes?: number;
  clat_p99_ns?: number;
}

export interface SweepCurve {
  name: string;
  points: SweepPoint[];
  /** The depth (or job count) the sweep found best, when it says. */
  optimum?: number;
}

/** Prices a volume the result does not price itself (wired to the catalog). */
export type PriceVolume = (volume: CloudVolumeFields, region?: string) => VolumePrice | null | undefined;

/** `volbench.cloud` flattened for the report's rows and its pricer. */
export function cloudFields(c: VolbenchCloud | undefined): CloudVolumeFields | undefined {
  if (!c) return undefined;
  const v = c.volume;
  const fields: CloudVolumeFields = {
    provider: c.provider, region: c.region, availability_zone: c.availability_zone, instance_type: c.instance_type,
    volume_id: v?.id, volume_type: v?.type, size_gib: v?.size_gib, iops: v?.iops, throughput_mibps: v?.throughput_mibps,
    label: c.fleet?.label, fleet_id: c.fleet?.id, price: c.price,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, x]) => x !== undefined)) as CloudVolumeFields;
}

/** The burst analysis of one job's series, as a row's note reads it. */
export type JobBurst = VolbenchBurst;

/** `volbench.sweep` as the charts draw it: the curve by its depth (or job count) and its optimum. */
export function sweepCurves(sweep: { over: string; points: ReadonlyArray<{ value: number; iops: number; bw_bytes: number; clat_p99_ns: number }>; optimum: { value: number } | null } | undefined): SweepCurve[] {
  if (!sweep || sweep.points.length === 0) return [];
  const points = sweep.points.map((p) => ({ iodepth: p.value, iops: p.iops, bw_bytes: p.bw_bytes, clat_p99_ns: p.clat_p99_ns }));
  return [{ name: `sweep over ${sweep.over}`, points, ...(sweep.optimum ? { optimum: sweep.optimum.value } : {}) }];
}
