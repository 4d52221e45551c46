/**
 * A volume as the user describes it (`gp3:size=500g,iops=6000,throughput=250`) and the check of
 * it against its type's limits: a size, IOPS or throughput the type does not allow is refused
 * naming the limit and where it comes from.
 */
import { VolbenchError } from '../errors.js';
import { parseSize } from '../jobspec/index.js';
import { volumeType } from './catalog.js';
import type { VolumeTypeInfo } from './schema.js';

export interface VolumeSpec {
  type: string;
  sizeGiB: number;
  /** Provisioned IOPS, when the type takes them. */
  iops?: number;
  /** Provisioned throughput in MiB/s, when the type takes it. */
  throughputMiBps?: number;
}

const GiB = 1024 ** 3;

function refuse(field: string, message: string, accepted: string, source?: string): never {
  throw new VolbenchError('EINVALID_VALUE', source ? `${message} (${source})` : message, { field, accepted });
}

/** Parses TYPE:size=500g,iops=6000,throughput=250 (the --volume flag). */
export function parseVolumeSpec(text: string, field = '--volume'): VolumeSpec {
  if (text.length > 256) refuse(field, `${field} is longer than 256 characters`, 'TYPE:size=SIZE[,iops=N][,throughput=MiB/s]');
  const colon = text.indexOf(':');
  const type = (colon < 0 ? text : text.slice(0, colon)).trim().toLowerCase();
  const spec: VolumeSpec = { type, sizeGiB: 0 };
  for (const part of colon < 0 ? [] : text.slice(colon + 1).split(',')) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim().toLowerCase();
    const value = part.slice(eq + 1).trim();
    if (eq < 0 || !value) refuse(field, `${field}: '${part}' is not key=value`, 'size=, iops=, throughput=');
    if (key === 'size') {
      const bytes = parseSize(value, { field: `${field}.size` });
      if (bytes % GiB !== 0 || bytes === 0) refuse(`${field}.size`, `${field}: a volume's size is whole GiB, not '${value}'`, 'e.g. 500g or 2t');
      spec.sizeGiB = bytes / GiB;
    } else if (key === 'iops' || key === 'throughput') {
      if (!/^\d{1,9}$/.test(value)) refuse(`${field}.${key}`, `${field}: ${key} must be a whole number, not '${value}'`, 'a whole number');
      if (key === 'iops') spec.iops = Number(value);
      else spec.throughputMiBps = Number(value);
    } else {
      refuse(field, `${field}: unknown setting '${key}'`, 'size, iops, throughput');
    }
  }
  if (!spec.sizeGiB) refuse(`${field}.size`, `${field}: the volume's size is missing`, 'size=, e.g. gp3:size=500g');
  checkVolume(spec, field);
  return spec;
}

/** The provisioned IOPS a spec gets: what it says, else the type's default. */
export function provisionedIops(spec: VolumeSpec, t: VolumeTypeInfo): number | undefined {
  if (!t.iops.provisioned) return undefined;
  return spec.iops ?? t.iops.included ?? t.iops.min;
}

export function provisionedThroughput(spec: VolumeSpec, t: VolumeTypeInfo): number | undefined {
  if (!t.throughput_mibps.provisioned) return undefined;
  return spec.throughputMiBps ?? t.throughput_mibps.included ?? t.throughput_mibps.min;
}

/** Refuses a volume its type does not allow, naming the limit and its source. */
export function checkVolume(spec: VolumeSpec, field = 'volume'): VolumeTypeInfo {
  const t = volumeType(spec.type);
  const size = t.size_gib;
  if (spec.sizeGiB < size.min || spec.sizeGiB > size.max) {
    refuse(`${field}.size`, `${t.type} volumes are ${size.min}–${size.max} GiB, not ${spec.sizeGiB}`, `${size.min}–${size.max} GiB`, size.source);
  }
  const iops = t.iops;
  if (spec.iops !== undefined) {
    if (!iops.provisioned) refuse(`${field}.iops`, `${t.type} has no provisioned IOPS`, 'no iops= for this type', iops.source);
    if (iops.min !== undefined && spec.iops < iops.min) refuse(`${field}.iops`, `${t.type}: at least ${iops.min} IOPS`, `${iops.min}–${iops.max}`, iops.source);
    // The ratio first: on a small volume it is the limit the user runs into.
    if (iops.per_gib_max !== undefined && spec.iops > iops.per_gib_max * spec.sizeGiB) {
      refuse(`${field}.iops`, `${t.type}: at most ${iops.per_gib_max} IOPS per GiB (${iops.per_gib_max * spec.sizeGiB} for ${spec.sizeGiB} GiB)`,
        `at most ${Math.min(iops.max, iops.per_gib_max * spec.sizeGiB)}`, iops.source);
    }
    if (spec.iops > iops.max) refuse(`${field}.iops`, `${t.type}: at most ${iops.max} IOPS`, `${iops.min ?? 0}–${iops.max}`, iops.source);
  }
  const tp = t.throughput_mibps;
  if (spec.throughputMiBps !== undefined) {
    if (!tp.provisioned) refuse(`${field}.throughput`, `${t.type} has no provisioned throughput`, 'no throughput= for this type', tp.source);
    if (tp.min !== undefined && spec.throughputMiBps < tp.min) refuse(`${field}.throughput`, `${t.type}: at least ${tp.min} MiB/s`, `${tp.min}–${tp.max}`, tp.source);
    if (spec.throughputMiBps > tp.max) refuse(`${field}.throughput`, `${t.type}: at most ${tp.max} MiB/s`, `${tp.min ?? 0}–${tp.max}`, tp.source);
    const iopsFor = provisionedIops(spec, t) ?? 0;
    if (tp.per_iops_max !== undefined && spec.throughputMiBps > tp.per_iops_max * iopsFor) {
      refuse(`${field}.throughput`, `${t.type}: at most ${tp.per_iops_max} MiB/s per provisioned IOPS (${tp.per_iops_max * iopsFor} for ${iopsFor} IOPS)`,
        `at most ${tp.per_iops_max * iopsFor}`, tp.source);
    }
  }
  if (iops.provisioned && iops.included === undefined && spec.iops === undefined) {
    refuse(`${field}.iops`, `${t.type} needs provisioned IOPS`, `iops=${iops.min ?? 100}–${iops.max}`, iops.source);
  }
  return t;
}
