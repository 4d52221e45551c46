/**
 * A volume as the user describes it (`gp3:size=500g,iops=6000,throughput=250`) and the check of
 * it against its type's limits: a size, IOPS or throughput the type does not allow is refused
 * naming the limit and where it comes from.
 */
import { VolbenchError } from '../errors.js';
import { parseSize } from '../jobspec/index.js';
import { instanceType, loadInstances, volumeType, type CatalogVolumeType } from './catalog.js';
import type { InstanceTypeInfo, SizeTierInfo, VolumeTypeInfo } from './schema.js';

export interface VolumeSpec {
  type: string;
  /** Whole GiB; 0 for instance store given without a size (the device, as the instance has it). */
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
  if (!spec.sizeGiB && !volumeType(type).from_instance) refuse(`${field}.size`, `${field}: the volume's size is missing`, 'size=, e.g. gp3:size=500g');
  checkVolume(spec, field);
  return spec;
}

/** The provisioned IOPS a spec gets: what it says, else the type's default. */
export function provisionedIops(spec: VolumeSpec, t: VolumeTypeInfo): number | undefined {
  if (!t.iops.provisioned) return undefined;
  return spec.iops ?? t.iops.included ?? t.iops.min;
}

/**
 * The provisioned throughput a spec gets: what it says, else the type's default, raised to the
 * least its IOPS require (Hyperdisk Balanced: IOPS / 256).
 */
export function provisionedThroughput(spec: VolumeSpec, t: VolumeTypeInfo): number | undefined {
  const tp = t.throughput_mibps;
  if (!tp.provisioned) return undefined;
  if (spec.throughputMiBps !== undefined) return spec.throughputMiBps;
  const byIops = tp.per_iops_min !== undefined ? tp.per_iops_min * (provisionedIops(spec, t) ?? 0) : 0;
  return Math.max(tp.included ?? tp.min ?? 0, byIops);
}

/** The tier a size is billed and performs as: the smallest that holds it (Azure). */
export function tierFor(t: VolumeTypeInfo, sizeGiB: number): SizeTierInfo | undefined {
  return t.tiers?.find((tier) => tier.size_gib >= sizeGiB);
}

/** The instance store of an instance type, or an error naming the field and the types that have one. */
export function instanceStoreOf(instance: string | undefined, field: string): NonNullable<InstanceTypeInfo['instance_store']> & { type: string } {
  const withStore = loadInstances().filter((i) => i.instance_store).map((i) => i.type);
  const families = [...new Set(withStore.map((i) => i.split('.')[0]))].join(', ');
  if (instance === undefined) {
    throw new VolbenchError('EINVALID_VALUE', `instance-store: its size, IOPS and throughput are the instance type's: say which instance type (${field})`, {
      field, accepted: `an instance type with instance store: ${families}`,
    });
  }
  let it: InstanceTypeInfo;
  try {
    it = instanceType(instance);
  } catch (err) {
    if (err instanceof VolbenchError) throw new VolbenchError(err.code, err.message, { field, ...(err.accepted ? { accepted: err.accepted } : {}) });
    throw err;
  }
  if (!it.instance_store) {
    throw new VolbenchError('EINVALID_VALUE', `${instance} has no instance store (in the catalog: ${families})`, { field, accepted: withStore.join(', ') });
  }
  return { ...it.instance_store, type: it.type };
}

/** GB (10^9 bytes, as AWS states instance store) in whole GiB, rounded down. */
export const gbToGiB = (gb: number): number => Math.floor((gb * 1e9) / 1024 ** 3);

/**
 * Refuses a volume and an instance type that do not go together, naming `field` (the instance's
 * flag or query field) or `sizeField`: instance store without an instance that has one, or
 * larger than its device; an EC2 instance type with another provider's volume.
 */
export function checkPlacement(spec: VolumeSpec, instance: string | undefined, field = 'instance', sizeField = 'volume.size'): void {
  const t = volumeType(spec.type);
  if (t.from_instance) {
    const store = instanceStoreOf(instance, field);
    const device = gbToGiB(store.gb_per_device);
    if (spec.sizeGiB > device) {
      throw new VolbenchError('EINVALID_VALUE', `instance-store on ${store.type} is ${store.devices} device${store.devices > 1 ? 's' : ''} of ${store.gb_per_device} GB (${device} GiB), not ${spec.sizeGiB} GiB (${store.source})`, {
        field: sizeField, accepted: `at most ${device} GiB, or no size`,
      });
    }
    return;
  }
  if (instance !== undefined && t.provider !== 'aws') {
    throw new VolbenchError('EINVALID_VALUE', `${instance} is an EC2 instance type and ${t.type} a ${t.provider} volume: the catalog bounds only AWS volumes by an instance`, {
      field, accepted: `no instance type for ${t.provider} volumes`,
    });
  }
  if (instance !== undefined) {
    try {
      instanceType(instance);
    } catch (err) {
      if (err instanceof VolbenchError) throw new VolbenchError(err.code, err.message, { field, ...(err.accepted ? { accepted: err.accepted } : {}) });
      throw err;
    }
  }
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

/** Refuses a volume its type does not allow, naming the limit and its source. */
export function checkVolume(spec: VolumeSpec, field = 'volume'): CatalogVolumeType {
  const t = volumeType(spec.type);
  const size = t.size_gib;
  // Instance store without a size is the device as the instance has it.
  if (!(t.from_instance && spec.sizeGiB === 0) && (spec.sizeGiB < size.min || spec.sizeGiB > size.max)) {
    refuse(`${field}.size`, `${t.type} volumes are ${size.min}–${size.max} GiB, not ${spec.sizeGiB}`, `${size.min}–${size.max} GiB`, size.source);
  }
  const iops = t.iops;
  if (spec.iops !== undefined) {
    if (!iops.provisioned) refuse(`${field}.iops`, `${t.type} has no provisioned IOPS`, 'no iops= for this type', iops.source);
    if (iops.min !== undefined && spec.iops < iops.min) refuse(`${field}.iops`, `${t.type}: at least ${iops.min} IOPS`, `${iops.min}–${iops.max}`, iops.source);
    if (iops.per_gib_min !== undefined && spec.iops < iops.per_gib_min * spec.sizeGiB) {
      refuse(`${field}.iops`, `${t.type}: at least ${iops.per_gib_min} IOPS per GiB (${iops.per_gib_min * spec.sizeGiB} for ${spec.sizeGiB} GiB)`,
        `at least ${iops.per_gib_min * spec.sizeGiB}`, iops.source);
    }
    // The ratio first: on a small volume it is the limit the user runs into. What is included
    // comes at any size (gp3 and Premium SSD v2 have 3,000 IOPS from 1 GiB).
    const byRatio = iops.per_gib_max !== undefined ? iops.per_gib_max * spec.sizeGiB : Infinity;
    if (spec.iops > Math.max(byRatio, iops.included ?? 0)) {
      refuse(`${field}.iops`, `${t.type}: at most ${iops.per_gib_max} IOPS per GiB (${byRatio} for ${spec.sizeGiB} GiB)`,
        `at most ${Math.min(iops.max, Math.max(byRatio, iops.included ?? 0))}`, iops.source);
    }
    if (spec.iops > iops.max) refuse(`${field}.iops`, `${t.type}: at most ${iops.max} IOPS`, `${iops.min ?? 0}–${iops.max}`, iops.source);
  }
  const tp = t.throughput_mibps;
  if (spec.throughputMiBps !== undefined) {
    if (!tp.provisioned) refuse(`${field}.throughput`, `${t.type} has no provisioned throughput`, 'no throughput= for this type', tp.source);
    if (tp.min !== undefined && spec.throughputMiBps < tp.min) refuse(`${field}.throughput`, `${t.type}: at least ${tp.min} MiB/s`, `${tp.min}–${tp.max}`, tp.source);
    if (spec.throughputMiBps > tp.max) refuse(`${field}.throughput`, `${t.type}: at most ${tp.max} MiB/s`, `${tp.min ?? 0}–${tp.max}`, tp.source);
    const tib = spec.sizeGiB / 1024;
    if (tp.per_tib_min !== undefined && spec.throughputMiBps < tp.per_tib_min * tib) {
      refuse(`${field}.throughput`, `${t.type}: at least ${tp.per_tib_min} MiB/s per TiB (${round3(tp.per_tib_min * tib)} for ${spec.sizeGiB} GiB)`,
        `at least ${Math.ceil(tp.per_tib_min * tib)}`, tp.source);
    }
    if (tp.per_tib_max !== undefined && spec.throughputMiBps > tp.per_tib_max * tib) {
      refuse(`${field}.throughput`, `${t.type}: at most ${tp.per_tib_max} MiB/s per TiB (${round3(tp.per_tib_max * tib)} for ${spec.sizeGiB} GiB)`,
        `at most ${Math.floor(tp.per_tib_max * tib)}`, tp.source);
    }
    const iopsFor = provisionedIops(spec, t) ?? 0;
    if (tp.per_iops_max !== undefined && iops.provisioned && spec.throughputMiBps > tp.per_iops_max * iopsFor) {
      refuse(`${field}.throughput`, `${t.type}: at most ${tp.per_iops_max} MiB/s per provisioned IOPS (${round3(tp.per_iops_max * iopsFor)} for ${iopsFor} IOPS)`,
        `at most ${Math.floor(tp.per_iops_max * iopsFor)}`, tp.source);
    }
    if (tp.per_iops_min !== undefined && spec.throughputMiBps < tp.per_iops_min * iopsFor) {
      refuse(`${field}.throughput`, `${t.type}: at least ${round3(tp.per_iops_min)} MiB/s per provisioned IOPS (${round3(tp.per_iops_min * iopsFor)} for ${iopsFor} IOPS)`,
        `at least ${Math.ceil(tp.per_iops_min * iopsFor)}`, tp.source);
    }
  }
  if (iops.provisioned && iops.included === undefined && spec.iops === undefined) {
    refuse(`${field}.iops`, `${t.type} needs provisioned IOPS`, `iops=${iops.min ?? 100}–${iops.max}`, iops.source);
  }
  if (tp.provisioned && tp.included === undefined && spec.throughputMiBps === undefined) {
    refuse(`${field}.throughput`, `${t.type} needs provisioned throughput`, `throughput=${tp.min ?? 1}–${tp.max} (MiB/s)`, tp.source);
  }
  return t;
}
