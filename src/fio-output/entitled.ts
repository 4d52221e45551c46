/**
 * The contract's rule for a measured/entitled figure (CLOUD-VOLUMES.md "Entitlement in
 * results: the contract"): above 1.10 it is flagged, with its likely cause. The normal text,
 * the suite table and the reports all say it by this one rule.
 */
import type { FioJob, FioJson, VolbenchEntitlement } from './fio-result.js';

/** The contract's one tolerance: a measured/entitled above this is flagged. */
export const ENTITLED_TOLERANCE = 1.1;

/** Why a figure is above what the volume allows. */
export type AboveCause = 'not the named volume' | 'page cache' | 'above the model';

const TRUE_WORDS = new Set(['1', 'true', 'on', 'yes']);

function optionOf(job: FioJob, doc: FioJson, name: string): string | undefined {
  const own = (job['job options'] as Record<string, unknown> | undefined)?.[name];
  const global = (doc['global options'] as Record<string, unknown> | undefined)?.[name];
  const v = own ?? global;
  return v === undefined || v === null ? undefined : String(v);
}

/** A job that went through the page cache: neither direct=1 nor buffered=0 (fio's default). */
export function isBuffered(job: FioJob, doc: FioJson): boolean {
  const direct = optionOf(job, doc, 'direct');
  const buffered = optionOf(job, doc, 'buffered');
  if (direct !== undefined) return !TRUE_WORDS.has(direct.toLowerCase());
  return buffered === undefined || TRUE_WORDS.has(buffered.toLowerCase());
}

/**
 * The likely cause of a figure above the model, in the order a reader should suspect them: a
 * target never identified as the named volume (a local file, tmpfs), then the page cache.
 */
export function aboveCause(identified: boolean, buffered: boolean): AboveCause {
  if (!identified) return 'not the named volume';
  if (buffered) return 'page cache';
  return 'above the model';
}

/** The flag of a ratio: its likely cause above the tolerance, else null. */
export function flagOf(ratio: number | null, identified: boolean, buffered: boolean): AboveCause | null {
  return ratio !== null && ratio > ENTITLED_TOLERANCE ? aboveCause(identified, buffered) : null;
}

/** Whether the result's target was identified as the named volume (it carries the volume's id). */
export function volumeIdentified(doc: FioJson): boolean {
  const cloud = (doc.volbench as { cloud?: { volume?: { id?: unknown } } } | undefined)?.cloud;
  return typeof cloud?.volume?.id === 'string';
}

/** `13.65× entitled (not the named volume)`: a flagged ratio as every format writes it. */
export function aboveText(ratio: number, cause: AboveCause): string {
  return `${ratio.toFixed(2)}× entitled (${cause})`;
}

/** A job's entitlement as the result writes it, or undefined without a volume. */
function jobEntitlement(result: FioJson, index: number): VolbenchEntitlement | undefined {
  return result.volbench?.jobs?.[index]?.entitlement;
}

/** A job's measured/entitled with its flag, or null without a volume. */
export function jobRatio(result: FioJson, index: number): { ratio: number; bound_by: string; flag: AboveCause | null } | null {
  const e = jobEntitlement(result, index);
  const job = result.jobs[index];
  if (!e || !job || !(e.entitled.iops > 0)) return null;
  const ratio = e.measured_vs_entitled;
  return { ratio, bound_by: e.bound_by, flag: flagOf(ratio, volumeIdentified(result), isBuffered(job, result)) };
}

const grouped = (n: number): string => Math.round(n).toLocaleString('en-US');

/** What the binding limit is called in words, and where it comes from. */
function boundText(e: VolbenchEntitlement): string {
  const depth = e.depth_needed !== undefined ? ` (${e.depth_needed} in flight needed)` : '';
  const source = e.bound_by_source === 'ebs-stats' ? ` (measured; the model says ${e.bound_by_model ?? e.bound_by})` : '';
  return `bound_by=${e.bound_by}${depth}${source}`;
}

/**
 * `  entitled     : 3,000 IOPS, 11.7 MiB/s at bs=4096; measured/entitled=18.08 ⚑ (not the named
 * volume); bound_by=volume-iops`: what the named volume allows the job (as an emulated volume
 * was held to it: the scale said), against what it did.
 */
export function entitledLine(result: FioJson, index: number): string {
  const e = jobEntitlement(result, index);
  const r = jobRatio(result, index);
  if (!e || !r) return '';
  const scale = result.volbench?.cloud?.emulation;
  const rate = scale?.rate ?? 1;
  const flag = r.flag ? ` ⚑ (${r.flag})` : '';
  const scaled = scale ? ` (emulated: rates ×${scale.rate})` : '';
  return `  entitled     : ${grouped(e.entitled.iops * rate)} IOPS, ${(e.entitled.mibps * rate).toFixed(1)} MiB/s at bs=${e.bs}${scaled};`
    + ` measured/entitled=${r.ratio.toFixed(2)}${flag}; ${boundText(e)}\n`;
}
