/**
 * What a report row is called: the volume it measured (`gp3 500 GiB 3000/125`), else the target
 * it ran on, never a run id unless nothing else is known; `--label` over both. Where two rows
 * of a table would read alike (repeats, two zones, before and after), the target or a short run
 * id is added to each.
 */
import { volumeFromJson } from '../cloud/volume.js';
import type { CloudVolumeFields } from './cloud-fields.js';

export interface LabelFacts {
  override?: string;
  cloud?: CloudVolumeFields;
  targetPath?: string;
  source: string;
  /** The volume key within a document of several targets (one row each), or ''. */
  volumeKey: string;
}

/**
 * The volume in words through the one Volume value, its provisioned figures resolved (a gp3
 * named without IOPS reads `gp3 500 GiB 3000/125`, as its result writes it); a document's odd
 * volume still gets its type and size.
 */
export function volumeWords(cloud: CloudVolumeFields | undefined): string | null {
  if (!cloud?.volume_type || cloud.size_gib === undefined) return null;
  try {
    const given = volumeFromJson({
      type: cloud.volume_type, size_gib: cloud.size_gib,
      ...(cloud.iops !== undefined ? { iops: cloud.iops } : {}),
      ...(cloud.throughput_mibps !== undefined ? { throughput_mibps: cloud.throughput_mibps } : {}),
    });
    return volumeFromJson(given.json()).describe('short');
  } catch {
    return `${cloud.volume_type} ${cloud.size_gib} GiB`;
  }
}

/** A run request's volume (`{type, size_gib, iops?, throughput_mibps?}`) in the words a report row uses. */
export function runVolumeLabel(volume: { type: string; size_gib: number; iops?: number; throughput_mibps?: number } | null): string | null {
  return volume ? volumeWords({ volume_type: volume.type, size_gib: volume.size_gib, iops: volume.iops, throughput_mibps: volume.throughput_mibps }) : null;
}

function basename(source: string): string {
  const cut = source.lastIndexOf('/');
  return cut >= 0 && cut < source.length - 1 ? source.slice(cut + 1) : source;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-/i;

/** A run id's first 8 characters, a file's name without `.json`. */
export function shortSource(source: string): string {
  const name = basename(source);
  return UUID.test(name) ? name.slice(0, 8) : name.replace(/\.json$/i, '');
}

export function rowLabel(f: LabelFacts): { text: string; volume: string | null } {
  const volume = volumeWords(f.cloud);
  if (f.override) return { text: f.override, volume };
  const named = volume ?? f.cloud?.label ?? f.cloud?.volume_id;
  const base = named ?? f.targetPath ?? shortSource(f.source);
  // A document of several targets: one row per volume, told apart by its key (unless it is the target already).
  const text = f.volumeKey && base !== f.volumeKey ? `${base} ${f.volumeKey}` : base;
  return { text, volume };
}

interface Labelled {
  label: string;
  base_label: string;
  target_path: string | null;
  source: string;
}

/**
 * Rows whose labels repeat get the target added where the repeats ran on different targets,
 * else a short run id (or file name); `base_label` keeps what they share.
 */
export function disambiguate<R extends Labelled>(rows: R[]): R[] {
  const byLabel = new Map<string, R[]>();
  for (const r of rows) byLabel.set(r.label, [...(byLabel.get(r.label) ?? []), r]);
  return rows.map((r) => {
    const same = byLabel.get(r.label) ?? [];
    if (same.length < 2) return r;
    const targets = new Set(same.map((x) => x.target_path));
    const byTarget = targets.size === same.length && r.target_path !== null && r.target_path !== r.label;
    return { ...r, label: `${r.label} · ${byTarget ? r.target_path : shortSource(r.source)}` };
  });
}
