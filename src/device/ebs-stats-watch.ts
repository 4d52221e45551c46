/**
 * A run's EBS statistics: which page each target's device has (or why none), read around each
 * stage of jobs, as deltas per job. Reading happens between stages, never while the engine's I/O
 * loop runs, and never fails a run: a page that cannot be read leaves its jobs without
 * `ebs_stats`, and the run's `ebs_stats_unavailable` says why.
 */
import type { CloudEmulation, EbsStatsJob } from '../fio-output/ebs-stats.js';
import type { TargetIdentity } from '../fio-output/types.js';
import { decodeEbsLogPage } from './ebs-log-page.js';
import { ebsStatsDelta, type EbsPageAt } from './ebs-stats-delta.js';
import { ebsSourceOfDisk, isUnavailable, readEbsRawPage, type EbsSource, type EbsUnavailable } from './ebs-stats-source.js';
import { closeEmulatedNvmeDir, openEmulatedNvmeDir, type EmulatedNvmeDir } from './emulated-nvme.js';

/** The pages of one moment: per source key (the device), the page or nothing. */
export type EbsReads = ReadonlyMap<string, EbsPageAt>;

/** A target's source, or why it has none; never throws (a run does not fail for its statistics). */
async function sourceOf(t: TargetIdentity, dir: EmulatedNvmeDir | null): Promise<EbsSource | EbsUnavailable> {
  const disk = t.disk ?? t.device;
  if (disk === null) return { unavailable: `${t.path} has no block device behind it`, looksLikeEbs: false };
  return ebsSourceOfDisk(disk, dir).catch((err: Error) => ({ unavailable: `${disk}: ${err.message}`, looksLikeEbs: false }));
}

export class EbsStatsWatch {
  /** Per target index: the key of its source, or undefined when it has none. */
  private readonly keyOf: Array<string | undefined>;
  private readonly sources: Map<string, EbsSource>;
  private readonly reasons = new Set<string>();
  private scale: CloudEmulation | null = null;

  private constructor(private readonly dir: EmulatedNvmeDir | null, keyOf: Array<string | undefined>, sources: Map<string, EbsSource>) {
    this.keyOf = keyOf;
    this.sources = sources;
  }

  /**
   * The sources of `targets` (null: a target no job touches the device of). `env` holds the
   * test seam's variable (emulated-nvme.ts).
   */
  static async start(targets: ReadonlyArray<TargetIdentity | null>, env: NodeJS.ProcessEnv = process.env): Promise<EbsStatsWatch> {
    const seam = openEmulatedNvmeDir(env);
    const dir = seam && 'dir' in seam ? seam.dir : null;
    const sources = new Map<string, EbsSource>();
    const keyOf: Array<string | undefined> = [];
    const reasons: string[] = seam && 'refused' in seam ? [seam.refused] : [];
    for (const t of targets) {
      const found = t === null ? null : await sourceOf(t, dir);
      if (found !== null && isUnavailable(found)) reasons.push(found.unavailable);
      if (found === null || isUnavailable(found)) {
        keyOf.push(undefined);
        continue;
      }
      sources.set(found.device, found);
      keyOf.push(found.device);
    }
    const watch = new EbsStatsWatch(dir, keyOf, sources);
    reasons.forEach((r) => watch.reasons.add(r));
    return watch;
  }

  /** Reads, now, the pages of the targets `targetIndexes` (each device once). */
  async read(targetIndexes: readonly number[]): Promise<EbsReads> {
    const keys = [...new Set(targetIndexes.map((i) => this.keyOf[i]).filter((k): k is string => k !== undefined))];
    const reads = await Promise.all(keys.map(async (key) => [key, await this.readOne(this.sources.get(key)!)] as const));
    return new Map(reads.filter((r): r is readonly [string, EbsPageAt] => r[1] !== null));
  }

  private async readOne(source: EbsSource): Promise<EbsPageAt | null> {
    const raw = await readEbsRawPage(source);
    if (isUnavailable(raw)) {
      this.reasons.add(raw.unavailable);
      return null;
    }
    try {
      const page = decodeEbsLogPage(raw.bytes);
      this.scale ??= raw.emulation;
      return { source: raw.source, device: raw.device, page, atMs: raw.atMs };
    } catch (err) {
      this.reasons.add(`${source.device}'s page was refused: ${(err as Error).message}`);
      return null;
    }
  }

  /** The job's deltas on its target's device between two reads; null where either lacks it. */
  delta(from: EbsReads, to: EbsReads, targetIndex: number): EbsStatsJob | null {
    const key = this.keyOf[targetIndex];
    const a = key === undefined ? undefined : from.get(key);
    const b = key === undefined ? undefined : to.get(key);
    return a && b && a.page.page === b.page.page ? ebsStatsDelta(a, b) : null;
  }

  /** Why some jobs have no statistics, once for the run (each reason once), or undefined. */
  unavailable(): string | undefined {
    return this.reasons.size === 0 ? undefined : [...this.reasons].join('; ');
  }

  /** The emulated volumes' scale, when one published it. */
  emulation(): CloudEmulation | null {
    return this.scale;
  }

  close(): void {
    if (this.dir) closeEmulatedNvmeDir(this.dir);
  }
}
