/**
 * The few cloud facts the report reads from a result document. The catalog writes them
 * (`volbench.cloud`, `volbench.jobs[].entitlement`), the analyses add `volbench.jobs[].analysis`
 * and `volbench.sweep`; a result without them (fio's own, or a run on a plain file) still
 * reports, with those columns empty. Every reader here takes unknown input and returns only
 * values of the expected type, so a document from another version cannot break a report.
 */

import type { VolbenchPrice } from '../fio-output/fio-result.js';

/** The volume a result was measured on, as far as the result knows it. */
export interface CloudVolumeFields {
  provider?: string;
  region?: string;
  instance_type?: string;
  volume_id?: string;
  /** gp3, io2, st1, ... */
  volume_type?: string;
  size_gib?: number;
  /** Provisioned (or baseline) IOPS and throughput. */
  iops?: number;
  throughput_mibps?: number;
  label?: string;
  /** The price the result carries, if the catalog priced it when the result was written. */
  price?: VolumePrice;
}

/**
 * A volume's monthly price as a report reads it: a result's own (VolbenchPrice, whose source may
 * be missing in a document from elsewhere), or the pricer's, which says the region it priced.
 */
export type VolumePrice = Omit<VolbenchPrice, 'source'> & {
  source?: string;
  /** The region priced, when the pricer says (the catalog's does). */
  region?: string;
};

/** What a job was entitled to on its volume, and which limit bound it. */
export interface JobEntitlement {
  iops?: number;
  throughput_mibps?: number;
  /** With full merging of small sequential I/O where the provider merges (the contract's `entitled_merged`). */
  merged_iops?: number;
  merged_mibps?: number;
  /** volume-iops, volume-throughput, burst-credits, instance-*, latency */
  bound_by?: string;
}

/** The burst analysis of one job's per-second series. */
export interface JobBurst {
  /** Seconds into the job where throughput fell off its burst level, if it did. */
  cliff_at_s?: number;
  /** True when the series stayed at burst level to the end (credits never ran out). */
  never_left_burst?: boolean;
  /** The levels either side of the cliff, in `unit` (IOPS or MiB/s). */
  level_before?: number;
  level_after?: number;
  unit?: string;
  /** Whether the cliff's credits are the catalog's full bucket for the volume. */
  matches_catalog?: boolean;
  /** Without a cliff on a bursting volume: how long a run would drain a full bucket, seconds. */
  seconds_needed?: number;
}

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

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 && v.length <= 200 ? v : undefined;
}

function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export function readPrice(v: unknown): VolumePrice | undefined {
  if (!isObject(v)) return undefined;
  const usd = num(v.usd_per_month);
  const asOf = str(v.as_of);
  const source = str(v.source);
  const confidence = v.confidence === 'H' || v.confidence === 'M' || v.confidence === 'L' ? v.confidence : undefined;
  return usd === undefined || usd < 0 ? undefined : { usd_per_month: usd, as_of: asOf ?? '', ...(source ? { source } : {}), ...(confidence ? { confidence } : {}) };
}

/**
 * `volbench.cloud` as `withCloud` and fleets write it: `{provider, region, instance_type,
 * volume: {id, type, size_gib, iops, throughput_mibps}, fleet: {id, label}}`, plus a `price`
 * when one was recorded with the result.
 */
export function readCloud(v: unknown): CloudVolumeFields | undefined {
  if (!isObject(v)) return undefined;
  const volume = isObject(v.volume) ? v.volume : {};
  const fleet = isObject(v.fleet) ? v.fleet : {};
  return defined({
    provider: str(v.provider),
    region: str(v.region),
    instance_type: str(v.instance_type),
    volume_id: str(volume.id),
    volume_type: str(volume.type),
    size_gib: num(volume.size_gib),
    iops: num(volume.iops),
    throughput_mibps: num(volume.throughput_mibps),
    label: str(v.label) ?? str(fleet.label),
    price: readPrice(v.price),
  });
}

const MIB = 1024 * 1024;

/** A figure as IOPS and MiB/s: `{iops, mibps}`, or a bare number (IOPS). */
function figures(v: unknown): { iops?: number; mibps?: number } {
  if (isObject(v)) return { iops: num(v.iops), mibps: num(v.mibps) ?? num(v.throughput_mibps) };
  return { iops: num(v) };
}

/**
 * `volbench.jobs[].entitlement` for one direction: the contract's per-direction object
 * (`read`/`write`: `entitled`, `entitled_merged`, `bound_by`) where the result has one, else
 * the job's (`expected_iops`, `expected_bw_bytes`, `bound_by`: cloud/annotate.ts).
 */
export function readEntitlement(v: unknown, dir?: 'read' | 'write'): JobEntitlement | undefined {
  if (!isObject(v)) return undefined;
  const e = dir && isObject(v[dir]) ? v[dir] : v;
  const entitled = figures(e.entitled);
  const merged = figures(e.entitled_merged);
  const bw = num(e.expected_bw_bytes);
  return defined({
    iops: entitled.iops ?? num(e.iops) ?? num(e.expected_iops),
    throughput_mibps: entitled.mibps ?? num(e.mibps) ?? (bw === undefined ? undefined : bw / MIB),
    merged_iops: merged.iops,
    merged_mibps: merged.mibps,
    bound_by: str(e.bound_by) ?? str(v.bound_by),
  });
}

export function readBurst(analysis: unknown): JobBurst | undefined {
  if (!isObject(analysis) || !isObject(analysis.burst)) return undefined;
  const b = analysis.burst;
  const catalog = isObject(b.catalog) ? b.catalog : {};
  return defined({
    cliff_at_s: num(b.cliff_at_s),
    never_left_burst: typeof b.never_left_burst === 'boolean' ? b.never_left_burst : undefined,
    level_before: num(b.level_before),
    level_after: num(b.level_after),
    unit: str(b.unit),
    matches_catalog: typeof catalog.matches === 'boolean' ? catalog.matches : undefined,
    seconds_needed: num(catalog.seconds_needed),
  });
}

const MAX_SWEEP_POINTS = 256;

/** `volbench.sweep`: one curve, or a list of curves, of points by iodepth. */
export function readSweep(v: unknown): SweepCurve[] {
  const curves = Array.isArray(v) ? v : isObject(v) ? [v] : [];
  const out: SweepCurve[] = [];
  for (const [i, c] of curves.slice(0, 32).entries()) {
    if (!isObject(c) || !Array.isArray(c.points)) continue;
    const points: SweepPoint[] = [];
    for (const p of c.points.slice(0, MAX_SWEEP_POINTS)) {
      // A sweep's point is at `value` (the iodepth, or numjobs for a sweep over numjobs).
      const iodepth = isObject(p) ? num(p.value) ?? num(p.iodepth) : undefined;
      if (iodepth === undefined || !isObject(p)) continue;
      points.push(defined({ iodepth, iops: num(p.iops), bw_bytes: num(p.bw_bytes), clat_p99_ns: num(p.clat_p99_ns) }));
    }
    const optimum = isObject(c.optimum) ? num(c.optimum.value) ?? num(c.optimum.iodepth) : undefined;
    const name = str(c.name) ?? (str(c.over) ? `sweep over ${str(c.over)}` : `sweep ${i + 1}`);
    if (points.length) out.push(defined({ name, points, optimum }));
  }
  return out;
}
