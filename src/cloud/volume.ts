/**
 * A volume, checked once: its type is in the catalog and its size, IOPS and throughput are ones
 * the type allows. A `Volume` is made only by `volumeOf` (from figures), `volumeFromJson` (the
 * `{type, size_gib, iops, throughput_mibps}` of results and HTTP bodies) or `parseVolume`
 * (the text grammar, volume-text.ts); it carries its catalog entry, so everything downstream
 * (entitlement, price, findings, fleets, reports) takes it as it is and never checks it again.
 */
import { VolbenchError } from '../errors.js';
import { volumeType, type CatalogVolumeType } from './catalog.js';
import { checkLimits, provisionedIops, provisionedThroughput, volumeFields, type VolumeFields, type VolumeSpec } from './volume-limits.js';
import type { SizeTierInfo, VolumeTypeInfo } from './schema.js';

export { provisionedIops, provisionedThroughput, volumeFields } from './volume-limits.js';
export type { VolumeFields, VolumeSpec } from './volume-limits.js';
export { checkPlacement, gbToGiB, instanceStoreOf } from './placement.js';

/** A volume as results (`volbench.cloud.volume`) and HTTP bodies write it. */
export interface VolumeJson {
  type: string;
  size_gib: number;
  iops?: number;
  throughput_mibps?: number;
}

/** The figures a volume is made of, and the suite a fleet member runs on it (`suite=`). */
export interface VolumeInput extends VolumeSpec {
  suite?: string;
}

/** The tier a size is billed and performs as: the smallest that holds it (Azure). */
export function tierFor(t: VolumeTypeInfo, sizeGiB: number): SizeTierInfo | undefined {
  return t.tiers?.find((tier) => tier.size_gib >= sizeGiB);
}

/** 500g, 2t: a size in GiB as the grammar writes it. */
export function sizeText(gib: number): string {
  return gib % 1024 === 0 ? `${gib / 1024}t` : `${gib}g`;
}

/**
 * `gp3 500 GiB, 6000 IOPS, 250 MiB/s`; `short`, a report row's label: `gp3 500 GiB 6000/250`
 * (IOPS/MiB/s when both are given, else the one given with its unit).
 */
export function describeSpec(v: VolumeSpec, style: 'long' | 'short' = 'long'): string {
  const size = `${v.type} ${v.sizeGiB} GiB`;
  if (style === 'short' && v.iops !== undefined && v.throughputMiBps !== undefined) return `${size} ${v.iops}/${v.throughputMiBps}`;
  return [size, ...(v.iops !== undefined ? [`${v.iops} IOPS`] : []),
    ...(v.throughputMiBps !== undefined ? [`${v.throughputMiBps} MiB/s`] : [])].join(style === 'short' ? ' ' : ', ');
}

/** The catalog's entry for a volume type, or EVOLUME_TYPE naming `field` and the closest type. */
export function catalogTypeOf(type: string, field: string): CatalogVolumeType {
  try {
    return volumeType(type);
  } catch (err) {
    if (!(err instanceof VolbenchError)) throw err;
    throw new VolbenchError('EVOLUME_TYPE', err.message, { field, ...(err.accepted ? { accepted: err.accepted } : {}) });
  }
}

export class Volume implements VolumeInput {
  readonly type: string;
  readonly sizeGiB: number;
  // Declared only: a figure not given is no key at all, as in the figures it was made from.
  declare readonly iops?: number;
  declare readonly throughputMiBps?: number;
  /** The suite a fleet member runs on this volume (`suite=`), where the caller takes one. */
  declare readonly suite?: string;
  /** The catalog's entry for the type (not enumerable: a volume serialises as its figures). */
  declare readonly catalog: CatalogVolumeType;

  private constructor(spec: VolumeInput, catalog: CatalogVolumeType) {
    this.type = catalog.type;
    this.sizeGiB = spec.sizeGiB;
    const self = this as { -readonly [K in 'iops' | 'throughputMiBps' | 'suite']?: VolumeInput[K] };
    if (spec.iops !== undefined) self.iops = spec.iops;
    if (spec.throughputMiBps !== undefined) self.throughputMiBps = spec.throughputMiBps;
    if (spec.suite !== undefined) self.suite = spec.suite;
    Object.defineProperty(this, 'catalog', { value: catalog, enumerable: false });
    Object.freeze(this);
  }

  /** The one check: the type, then its limits, each refusal naming its field. */
  static of(spec: VolumeInput, where: string | Partial<VolumeFields> = 'volume'): Volume {
    const fields = volumeFields(where);
    const catalog = catalogTypeOf(spec.type, fields.type);
    checkLimits(spec, catalog, fields);
    return new Volume(spec, catalog);
  }

  get provider(): string {
    return this.catalog.provider;
  }

  /** What it is provisioned with: the IOPS given, else the type's default (undefined: not provisioned). */
  get provisionedIops(): number | undefined {
    return provisionedIops(this, this.catalog);
  }

  get provisionedThroughputMiBps(): number | undefined {
    return provisionedThroughput(this, this.catalog);
  }

  /** The size tier it is billed and performs as (Azure), if its type has tiers. */
  get tier(): SizeTierInfo | undefined {
    return tierFor(this.catalog, this.sizeGiB);
  }

  /** The canonical text: `gp3:500g:iops=6000:throughput=250`. */
  get text(): string {
    return [this.type, ...(this.sizeGiB ? [sizeText(this.sizeGiB)] : []), ...(this.iops !== undefined ? [`iops=${this.iops}`] : []),
      ...(this.throughputMiBps !== undefined ? [`throughput=${this.throughputMiBps}`] : []), ...(this.suite ? [`suite=${this.suite}`] : [])].join(':');
  }

  /** A name results are saved under: `gp3-500g-6000iops-250mibs`. */
  get label(): string {
    return [this.type, ...(this.sizeGiB ? [sizeText(this.sizeGiB)] : []), ...(this.iops !== undefined ? [`${this.iops}iops`] : []),
      ...(this.throughputMiBps !== undefined ? [`${this.throughputMiBps}mibs`] : [])].join('-');
  }

  /** `gp3 500 GiB, 6000 IOPS, 250 MiB/s`: the figures given; `short`: `gp3 500 GiB 6000/250`. */
  describe(style: 'long' | 'short' = 'long'): string {
    return describeSpec(this, style);
  }

  /** As a result writes it: the provisioned IOPS and throughput the volume has, given or by default. */
  json(): VolumeJson {
    const iops = this.provisionedIops;
    const throughput = this.provisionedThroughputMiBps;
    return {
      type: this.type, size_gib: this.sizeGiB,
      ...(iops !== undefined ? { iops } : {}), ...(throughput !== undefined ? { throughput_mibps: throughput } : {}),
    };
  }

  /** Its figures as given (what a state file or a stored request keeps). */
  toJSON(): VolumeInput {
    return { ...this };
  }
}

/** A volume from its figures; `where` names the fields in errors (`--volume`, or each field). */
export function volumeOf(spec: VolumeInput, where: string | Partial<VolumeFields> = 'volume'): Volume {
  return spec instanceof Volume ? spec : Volume.of(spec, where);
}

/** Whether `v` is a checked Volume (not plain figures). */
export function isVolume(v: unknown): v is Volume {
  return v instanceof Volume;
}

/**
 * A volume from the JSON form (`{type, size_gib, iops, throughput_mibps}`), refusals naming
 * `<where>.size_gib` and so on.
 */
export function volumeFromJson(json: VolumeJson, where = 'volume'): Volume {
  return Volume.of({
    type: json.type, sizeGiB: json.size_gib,
    ...(json.iops !== undefined ? { iops: json.iops } : {}),
    ...(json.throughput_mibps !== undefined ? { throughputMiBps: json.throughput_mibps } : {}),
  }, { type: `${where}.type`, size: `${where}.size_gib`, iops: `${where}.iops`, throughput: `${where}.throughput_mibps` });
}
