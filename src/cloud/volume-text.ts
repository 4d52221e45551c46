/**
 * The one text grammar of a volume, for every flag that names one:
 *
 *   TYPE[:SIZE][:key=value]…     gp3:500g:iops=6000:throughput=250, st1:2t, instance-store
 *
 * keys: size (the same as the bare SIZE), iops, throughput (MiB/s), suite (the suite a fleet
 * member runs, taken only where a caller says so). A list is canonical forms separated by
 * commas. `--volume` still takes the older `TYPE:size=500g,iops=6000` and says it is old.
 * Refusals are EVOLUME_SYNTAX for the text, then whatever Volume.of says of the figures.
 */
import { VolbenchError } from '../errors.js';
import { parseSize } from '../jobspec/units.js';
import { catalogTypeOf, Volume, volumeFields, type VolumeFields, type VolumeInput } from './volume.js';

export interface VolumeTextOptions {
  /** The flag or field the text came from (`--volume`, `--volumes`). */
  field?: string;
  /** Accept `suite=` (a fleet's volumes); elsewhere it is refused. */
  suite?: boolean;
  /**
   * Accept the older `TYPE:size=S,key=V` (one volume, commas between settings), telling this
   * callback how to write it now. Without it a comma is refused: lists take canonical forms.
   */
  onOldForm?: (note: string) => void;
}

const GiB = 1024 ** 3;
const MAX_VOLUME_TEXT = 256;
const MAX_LIST_TEXT = 4096;
const MAX_VOLUMES = 50;
const FORM = 'TYPE[:SIZE][:iops=N][:throughput=MiB/s], e.g. gp3:500g:iops=6000:throughput=250';
const SUITE_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

function syntax(field: string, message: string, accepted = FORM): never {
  throw new VolbenchError('EVOLUME_SYNTAX', message, { field, accepted });
}

function wholeGiB(text: string, field: string, where: string): number {
  let bytes: number;
  try {
    bytes = parseSize(text, { field });
  } catch (err) {
    if (err instanceof VolbenchError) syntax(field, `${where}: '${text}' is not a size`, 'a size in whole GiB, e.g. 500g or 2t');
    throw err;
  }
  if (bytes === 0 || bytes % GiB !== 0) syntax(field, `${where}: a volume's size is whole GiB, not '${text}'`, 'a size in whole GiB, e.g. 500g or 2t');
  return bytes / GiB;
}

function wholeNumber(text: string, field: string, where: string, key: string): number {
  if (!/^\d{1,9}$/.test(text)) syntax(field, `${where}: ${key} must be a whole number, not '${text}'`, `a whole number, e.g. ${key === 'iops' ? '6000' : '250'}`);
  return Number(text);
}

type Setting = readonly [key: string, value: string];

/** One volume's settings: each named in errors by `fields`, described in messages as `where`. */
function volumeFromSettings(type: string, settings: readonly Setting[], where: string, fields: VolumeFields, opts: VolumeTextOptions): Volume {
  const t = catalogTypeOf(type, fields.type);
  const input: VolumeInput = { type: t.type, sizeGiB: 0 };
  let sized = false;
  for (const [key, value] of settings) {
    if (value === '') syntax(where, `${where}: ${key}= has no value`, 'SIZE, size=, iops=, throughput=');
    if (key === 'size') {
      if (sized) syntax(fields.size, `${where}: the size is given twice`, 'one size, e.g. 500g');
      input.sizeGiB = wholeGiB(value, fields.size, where);
      sized = true;
    } else if (key === 'iops') {
      input.iops = wholeNumber(value, fields.iops, where, key);
    } else if (key === 'throughput') {
      input.throughputMiBps = wholeNumber(value, fields.throughput, where, key);
    } else if (key === 'suite') {
      if (!opts.suite) syntax(fields.suite, `${where}: suite= names the suite a fleet member runs on its volume; ${where} does not take it`, 'size, iops, throughput');
      if (!SUITE_NAME.test(value)) syntax(fields.suite, `${where}: '${value.slice(0, 64)}' is not a suite name`, 'a suite name, e.g. aws-hdd');
      input.suite = value;
    } else {
      syntax(where, `${where}: unknown setting '${key.slice(0, 32)}'`, 'size, iops, throughput');
    }
  }
  if (!sized && !t.from_instance) syntax(fields.size, `${where}: ${t.type} needs a size`, `a size, e.g. ${t.type}:500g`);
  return Volume.of(input, fields);
}

/** The parts after a volume's type: each `SIZE` or `key=value`. */
function settingsOf(parts: readonly string[]): Setting[] {
  return parts.map((raw) => {
    const part = raw.trim();
    const eq = part.indexOf('=');
    return eq < 0 ? ['size', part] : [part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim()];
  });
}

function volumeFromParts(type: string, parts: readonly string[], where: string, opts: VolumeTextOptions): Volume {
  return volumeFromSettings(type, settingsOf(parts), where, volumeFields(where), opts);
}

/**
 * A volume from settings given one by one (a command's --size, --iops and --throughput; a
 * query's size, iops and throughput), read as the grammar reads them; each named by `fields`.
 */
export function volumeFromSettingsText(type: string, given: { size?: string; iops?: string; throughput?: string }, fields: VolumeFields, where = type): Volume {
  const settings = (['size', 'iops', 'throughput'] as const).flatMap((k): Setting[] => (given[k] === undefined ? [] : [[k, given[k]!]]));
  return volumeFromSettings(type, settings, where, fields, {});
}

function splitType(text: string): { type: string; rest: string } {
  const colon = text.indexOf(':');
  return { type: (colon < 0 ? text : text.slice(0, colon)).trim().toLowerCase(), rest: colon < 0 ? '' : text.slice(colon + 1) };
}

/** One volume: the canonical form, or (with onOldForm) the older comma form. */
export function parseVolume(text: string, opts: VolumeTextOptions = {}): Volume {
  const field = opts.field ?? '--volume';
  if (text.length > MAX_VOLUME_TEXT) syntax(field, `${field} is longer than ${MAX_VOLUME_TEXT} characters`);
  const { type, rest } = splitType(text);
  if (type === '') syntax(field, `${field}: the volume type is missing`);
  if (!rest.includes(',')) return volumeFromParts(type, rest === '' ? [] : rest.split(':'), field, opts);
  if (!opts.onOldForm) syntax(field, `${field} names one volume; commas separate the volumes of a list`);
  if (rest.includes(':')) syntax(field, `${field}: settings are separated by ':' (or, in the old form, all by ',')`);
  const volume = volumeFromParts(type, rest.split(','), field, opts);
  opts.onOldForm(`${field} ${text}: TYPE:size=S,key=V is the old form; write ${volume.text}`);
  return volume;
}

/** Volumes with the labels their results are saved under (a repeated one gets -2, -3). */
export interface LabelledVolume {
  label: string;
  volume: Volume;
}

/** A comma-separated list of canonical forms; each entry named `<field>[i]` in errors. */
export function parseVolumes(text: string, opts: VolumeTextOptions = {}): LabelledVolume[] {
  const field = opts.field ?? '--volumes';
  if (text.length > MAX_LIST_TEXT) syntax(field, `${field} is longer than ${MAX_LIST_TEXT} characters`, `at most ${MAX_VOLUMES} volumes`);
  const entries = text.split(',').map((e) => e.trim());
  if (entries.length > MAX_VOLUMES) syntax(field, `${field} lists ${entries.length} volumes; at most ${MAX_VOLUMES}`, `at most ${MAX_VOLUMES} volumes`);
  const seen = new Map<string, number>();
  return entries.map((entry, i) => {
    const where = `${field}[${i}]`;
    if (entry === '') syntax(where, `${where} is empty`);
    const { type, rest } = splitType(entry);
    const volume = volumeFromParts(type, rest === '' ? [] : rest.split(':'), where, opts);
    const n = (seen.get(volume.label) ?? 0) + 1;
    seen.set(volume.label, n);
    return { label: n === 1 ? volume.label : `${volume.label}-${n}`, volume };
  });
}
