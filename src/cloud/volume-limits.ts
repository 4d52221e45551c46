/**
 * A volume's size, IOPS and throughput against its type's limits in the catalog. Every refusal
 * is EVOLUME_LIMIT, names the field the value came from and what the type accepts, and says
 * where the limit comes from (the catalog's source for it).
 */
import { VolbenchError } from '../errors.js';
import type { VolumeTypeInfo } from './schema.js';

/** The plain figures of a volume, as a user or a document gives them. */
export interface VolumeSpec {
  type: string;
  /** Whole GiB; 0 for instance store given without a size (the device, as the instance has it). */
  sizeGiB: number;
  /** Provisioned IOPS, when the type takes them. */
  iops?: number;
  /** Provisioned throughput in MiB/s, when the type takes it. */
  throughputMiBps?: number;
}

/** Where each of a volume's values came from, for the error that refuses it. */
export interface VolumeFields {
  type: string;
  size: string;
  iops: string;
  throughput: string;
  suite: string;
}

/** `volume` → `volume.type`, `volume.size`, ...; a partial map overrides single fields. */
export function volumeFields(where: string | Partial<VolumeFields> = 'volume', prefix = 'volume'): VolumeFields {
  const base = typeof where === 'string' ? where : prefix;
  const named = typeof where === 'string' ? {} : where;
  return {
    type: named.type ?? `${base}.type`,
    size: named.size ?? `${base}.size`,
    iops: named.iops ?? `${base}.iops`,
    throughput: named.throughput ?? `${base}.throughput`,
    suite: named.suite ?? `${base}.suite`,
  };
}

function refuse(field: string, message: string, accepted: string, source?: string): never {
  throw new VolbenchError('EVOLUME_LIMIT', source ? `${message} (${source})` : message, { field, accepted });
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

/** The provisioned IOPS a volume gets: what it says, else the type's default. */
export function provisionedIops(spec: VolumeSpec, t: VolumeTypeInfo): number | undefined {
  if (!t.iops.provisioned) return undefined;
  return spec.iops ?? t.iops.included ?? t.iops.min;
}

/**
 * The provisioned throughput a volume gets: what it says, else the type's default, raised to
 * the least its IOPS require (Hyperdisk Balanced: IOPS / 256).
 */
export function provisionedThroughput(spec: VolumeSpec, t: VolumeTypeInfo): number | undefined {
  const tp = t.throughput_mibps;
  if (!tp.provisioned) return undefined;
  if (spec.throughputMiBps !== undefined) return spec.throughputMiBps;
  const byIops = tp.per_iops_min !== undefined ? tp.per_iops_min * (provisionedIops(spec, t) ?? 0) : 0;
  return Math.max(tp.included ?? tp.min ?? 0, byIops);
}

function checkSize(spec: VolumeSpec, t: VolumeTypeInfo, f: VolumeFields): void {
  const size = t.size_gib;
  // Instance store without a size is the device as the instance has it.
  if (t.from_instance && spec.sizeGiB === 0) return;
  if (spec.sizeGiB < size.min || spec.sizeGiB > size.max) {
    refuse(f.size, `${t.type} volumes are ${size.min}–${size.max} GiB, not ${spec.sizeGiB}`, `${size.min}–${size.max} GiB`, size.source);
  }
}

function checkIops(spec: VolumeSpec, t: VolumeTypeInfo, f: VolumeFields): void {
  const iops = t.iops;
  if (spec.iops === undefined) {
    if (iops.provisioned && iops.included === undefined) refuse(f.iops, `${t.type} needs provisioned IOPS`, `iops=${iops.min ?? 100}–${iops.max}`, iops.source);
    return;
  }
  if (!iops.provisioned) refuse(f.iops, `${t.type} has no provisioned IOPS`, 'no iops= for this type', iops.source);
  if (iops.min !== undefined && spec.iops < iops.min) refuse(f.iops, `${t.type}: at least ${iops.min} IOPS`, `${iops.min}–${iops.max}`, iops.source);
  if (iops.per_gib_min !== undefined && spec.iops < iops.per_gib_min * spec.sizeGiB) {
    refuse(f.iops, `${t.type}: at least ${iops.per_gib_min} IOPS per GiB (${iops.per_gib_min * spec.sizeGiB} for ${spec.sizeGiB} GiB)`,
      `at least ${iops.per_gib_min * spec.sizeGiB}`, iops.source);
  }
  // The ratio first: on a small volume it is the limit the user runs into. What is included
  // comes at any size (gp3 and Premium SSD v2 have 3,000 IOPS from 1 GiB).
  const byRatio = iops.per_gib_max !== undefined ? iops.per_gib_max * spec.sizeGiB : Infinity;
  if (spec.iops > Math.max(byRatio, iops.included ?? 0)) {
    refuse(f.iops, `${t.type}: at most ${iops.per_gib_max} IOPS per GiB (${byRatio} for ${spec.sizeGiB} GiB)`,
      `at most ${Math.min(iops.max, Math.max(byRatio, iops.included ?? 0))}`, iops.source);
  }
  if (spec.iops > iops.max) refuse(f.iops, `${t.type}: at most ${iops.max} IOPS`, `${iops.min ?? 0}–${iops.max}`, iops.source);
}

function checkThroughput(spec: VolumeSpec, t: VolumeTypeInfo, f: VolumeFields): void {
  const tp = t.throughput_mibps;
  const given = spec.throughputMiBps;
  if (given === undefined) {
    if (tp.provisioned && tp.included === undefined) refuse(f.throughput, `${t.type} needs provisioned throughput`, `throughput=${tp.min ?? 1}–${tp.max} (MiB/s)`, tp.source);
    return;
  }
  if (!tp.provisioned) refuse(f.throughput, `${t.type} has no provisioned throughput`, 'no throughput= for this type', tp.source);
  if (tp.min !== undefined && given < tp.min) refuse(f.throughput, `${t.type}: at least ${tp.min} MiB/s`, `${tp.min}–${tp.max}`, tp.source);
  if (given > tp.max) refuse(f.throughput, `${t.type}: at most ${tp.max} MiB/s`, `${tp.min ?? 0}–${tp.max}`, tp.source);
  const tib = spec.sizeGiB / 1024;
  if (tp.per_tib_min !== undefined && given < tp.per_tib_min * tib) {
    refuse(f.throughput, `${t.type}: at least ${tp.per_tib_min} MiB/s per TiB (${round3(tp.per_tib_min * tib)} for ${spec.sizeGiB} GiB)`,
      `at least ${Math.ceil(tp.per_tib_min * tib)}`, tp.source);
  }
  if (tp.per_tib_max !== undefined && given > tp.per_tib_max * tib) {
    refuse(f.throughput, `${t.type}: at most ${tp.per_tib_max} MiB/s per TiB (${round3(tp.per_tib_max * tib)} for ${spec.sizeGiB} GiB)`,
      `at most ${Math.floor(tp.per_tib_max * tib)}`, tp.source);
  }
  const iopsFor = provisionedIops(spec, t) ?? 0;
  if (tp.per_iops_max !== undefined && t.iops.provisioned && given > tp.per_iops_max * iopsFor) {
    refuse(f.throughput, `${t.type}: at most ${tp.per_iops_max} MiB/s per provisioned IOPS (${round3(tp.per_iops_max * iopsFor)} for ${iopsFor} IOPS)`,
      `at most ${Math.floor(tp.per_iops_max * iopsFor)}`, tp.source);
  }
  if (tp.per_iops_min !== undefined && given < tp.per_iops_min * iopsFor) {
    refuse(f.throughput, `${t.type}: at least ${round3(tp.per_iops_min)} MiB/s per provisioned IOPS (${round3(tp.per_iops_min * iopsFor)} for ${iopsFor} IOPS)`,
      `at least ${Math.ceil(tp.per_iops_min * iopsFor)}`, tp.source);
  }
}

/**
 * Refuses a volume its type does not allow. The order is the one a user fixes things in: the
 * size, the IOPS given (or missing), the throughput given (or missing).
 */
export function checkLimits(spec: VolumeSpec, t: VolumeTypeInfo, fields: VolumeFields): void {
  checkSize(spec, t, fields);
  if (spec.iops !== undefined) checkIops(spec, t, fields);
  if (spec.throughputMiBps !== undefined) checkThroughput(spec, t, fields);
  if (spec.iops === undefined) checkIops(spec, t, fields);
  if (spec.throughputMiBps === undefined) checkThroughput(spec, t, fields);
}
