/**
 * The volumes of a fleet as the user lists them:
 *
 *   gp3:500g,gp3:500g:iops=6000:throughput=250,io2:500g:iops=16000,st1:2t,instance-store
 *
 * Each entry is TYPE[:SIZE][:iops=N][:throughput=MiB/s]; each gets a label its results are saved
 * under (gp3-500g, gp3-500g-6000iops-250mibs, …; a repeated entry gets -2, -3).
 */
import { checkVolume } from '../cloud/index.js';
import { VolbenchError } from '../errors.js';
import { parseSize } from '../jobspec/index.js';
import { closestName } from '../jobspec/suggest.js';

/** EBS volume types, and the instance's own NVMe (instance store). */
export const FLEET_VOLUME_TYPES = ['gp2', 'gp3', 'io1', 'io2', 'st1', 'sc1', 'standard', 'instance-store'] as const;
export type FleetVolumeType = (typeof FLEET_VOLUME_TYPES)[number];

export interface FleetVolume {
  label: string;
  type: FleetVolumeType;
  /** GiB; 0 for instance store (the instance type decides). */
  sizeGiB: number;
  /** Provisioned IOPS (gp3, io1, io2), when given. */
  iops?: number;
  /** Provisioned throughput in MiB/s (gp3), when given. */
  throughputMiBps?: number;
}

const GiB = 1024 ** 3;
const MAX_ENTRIES = 50;
const MAX_TEXT = 4096;

function refuse(field: string, message: string, accepted: string): never {
  throw new VolbenchError('EINVALID_ARGS', message, { field, accepted });
}

function wholeNumber(text: string, field: string, what: string): number {
  if (!/^\d{1,9}$/.test(text) || Number(text) === 0) refuse(field, `${field}: ${what} must be a whole number above 0, not '${text}'`, `a whole number, e.g. ${what === 'iops' ? '6000' : '250'}`);
  return Number(text);
}

function sizeLabel(gib: number): string {
  return gib % 1024 === 0 ? `${gib / 1024}t` : `${gib}g`;
}

/** Parses --volumes (field names the flag in errors). */
export function parseFleetVolumes(text: string, field = '--volumes'): FleetVolume[] {
  if (text.length > MAX_TEXT) refuse(field, `${field} is longer than ${MAX_TEXT} characters`, 'at most 50 volumes');
  const entries = text.split(',').map((e) => e.trim());
  if (entries.length > MAX_ENTRIES) refuse(field, `${field} lists ${entries.length} volumes; at most ${MAX_ENTRIES}`, `at most ${MAX_ENTRIES} volumes`);
  const volumes: FleetVolume[] = [];
  const seen = new Map<string, number>();
  entries.forEach((entry, i) => {
    const where = `${field}[${i}]`;
    if (entry === '') refuse(where, `${where} is empty`, 'TYPE[:SIZE][:iops=N][:throughput=MiB/s], e.g. gp3:500g:iops=6000');
    const [typeText, ...parts] = entry.split(':');
    const type = typeText.toLowerCase();
    if (!(FLEET_VOLUME_TYPES as readonly string[]).includes(type)) {
      const near = closestName(type, FLEET_VOLUME_TYPES);
      refuse(where, `${where}: unknown volume type '${typeText}'${near ? `; did you mean '${near}'?` : ''}`, FLEET_VOLUME_TYPES.join(', '));
    }
    const v: FleetVolume = { label: '', type: type as FleetVolumeType, sizeGiB: 0 };
    for (const part of parts) {
      const eq = part.indexOf('=');
      if (eq < 0) {
        if (v.sizeGiB) refuse(where, `${where}: the size is given twice`, 'one size, e.g. 500g');
        const bytes = parseSize(part, { field: `${where}.size` });
        if (bytes < GiB || bytes % GiB !== 0) refuse(`${where}.size`, `${where}: a volume's size is whole GiB, not '${part}'`, 'a size in whole GiB, e.g. 500g or 2t');
        v.sizeGiB = bytes / GiB;
        continue;
      }
      const key = part.slice(0, eq).toLowerCase();
      const value = part.slice(eq + 1);
      if (key === 'iops') v.iops = wholeNumber(value, `${where}.iops`, 'iops');
      else if (key === 'throughput') v.throughputMiBps = wholeNumber(value, `${where}.throughput`, 'throughput');
      else if (key === 'size') v.sizeGiB = parseSize(value, { field: `${where}.size` }) / GiB;
      else refuse(where, `${where}: unknown setting '${key}'`, 'size, iops, throughput');
    }
    if (v.type === 'instance-store') {
      if (v.sizeGiB || v.iops || v.throughputMiBps) refuse(where, `${where}: instance store takes no size, IOPS or throughput: the instance type decides them`, 'instance-store alone');
    } else if (!v.sizeGiB) {
      refuse(`${where}.size`, `${where}: ${v.type} needs a size`, 'a size in GiB, e.g. 500g or 2t');
    }
    if (v.iops && !['gp3', 'io1', 'io2'].includes(v.type)) refuse(`${where}.iops`, `${where}: ${v.type} has no provisioned IOPS`, 'iops= on gp3, io1 or io2');
    if (v.throughputMiBps && v.type !== 'gp3') refuse(`${where}.throughput`, `${where}: ${v.type} has no provisioned throughput`, 'throughput= on gp3');
    if ((v.type === 'io1' || v.type === 'io2') && !v.iops) refuse(`${where}.iops`, `${where}: ${v.type} needs iops=`, 'iops=N, e.g. io2:500g:iops=16000');
    // The catalog's limits (size, IOPS per GiB, throughput per IOPS), each named with its source.
    if (v.type !== 'instance-store') checkVolume({ type: v.type, sizeGiB: v.sizeGiB, iops: v.iops, throughputMiBps: v.throughputMiBps }, where);
    let label = v.type === 'instance-store' ? 'instance-store' : `${v.type}-${sizeLabel(v.sizeGiB)}`;
    if (v.iops) label += `-${v.iops}iops`;
    if (v.throughputMiBps) label += `-${v.throughputMiBps}mibs`;
    const n = (seen.get(label) ?? 0) + 1;
    seen.set(label, n);
    v.label = n === 1 ? label : `${label}-${n}`;
    volumes.push(v);
  });
  return volumes;
}
